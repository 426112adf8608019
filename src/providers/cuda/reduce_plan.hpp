// How a reduction walks its input, in plain types (shared by the host code,
// reduce.cu and the no-GPU plan tests).
#pragma once
#include <cstdint>
#include <vector>

namespace tessera::cuda {

constexpr int kMaxReduceRuns = 8;

// A reduction after size-1 dims are dropped and neighbouring dims that are
// both kept or both reduced are merged into runs (outermost first). Output
// element o is the kept runs' index o (row-major); it reduces the `count`
// inputs at its base offset plus each reduced-runs index's offset.
struct ReduceShape {
  int kept_runs = 0;
  int64_t kept_sizes[kMaxReduceRuns] = {};
  int64_t kept_strides[kMaxReduceRuns] = {};  // input strides, in elements
  int red_runs = 0;
  int64_t red_sizes[kMaxReduceRuns] = {};
  int64_t red_strides[kMaxReduceRuns] = {};
  int64_t outputs = 0;  // product of kept_sizes
  int64_t count = 0;    // product of red_sizes: inputs per output (0: the op's identity)
  // Whether the innermost input dim is reduced (its run has stride 1): then
  // the threads of a warp or block share an output and read along that run;
  // otherwise each thread has its own output and neighbouring threads read
  // neighbouring inputs of the innermost kept run.
  bool inner_reduced = false;
};

// The runs of kept and reduced dims of an input of `dims` (reduced[d] says
// whether dim d is reduced): size-1 dims dropped, neighbouring dims of the
// same kind merged. Returns false (`out` then unspecified) when there are
// more than kMaxReduceRuns runs of one kind.
bool plan_reduce(const std::vector<int64_t>& dims, const std::vector<bool>& reduced,
                 ReduceShape& out);

}  // namespace tessera::cuda
