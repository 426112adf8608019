// The reduction plan (reduce_plan.hpp): plain C++, tested without a GPU.
#include "providers/cuda/reduce_plan.hpp"

#include <cstddef>

namespace tessera::cuda {

bool plan_reduce(const std::vector<int64_t>& in, const std::vector<bool>& reduced,
                 ReduceShape& out) {
  out = ReduceShape{};
  const size_t rank = in.size();
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * in[d];
  // Runs in input order: (reduced?, size, stride of its innermost dim).
  struct Run {
    bool reduced;
    int64_t size, stride;
  };
  std::vector<Run> runs;
  for (size_t d = 0; d < rank; ++d) {
    if (in[d] == 1) continue;  // neither kept nor reduced makes a difference
    // Row-major: a dim's stride is the next (non-1) dim's stride times its
    // size, so two neighbouring dims of one kind read as one dim.
    if (!runs.empty() && runs.back().reduced == reduced[d]) {
      runs.back().size *= in[d];
      runs.back().stride = strides[d];
    } else {
      runs.push_back({bool(reduced[d]), in[d], strides[d]});
    }
  }
  out.outputs = 1;
  out.count = 1;
  for (const Run& r : runs) {
    int& n = r.reduced ? out.red_runs : out.kept_runs;
    if (n == kMaxReduceRuns) return false;
    (r.reduced ? out.red_sizes : out.kept_sizes)[n] = r.size;
    (r.reduced ? out.red_strides : out.kept_strides)[n] = r.stride;
    ++n;
    (r.reduced ? out.count : out.outputs) *= r.size;
  }
  out.inner_reduced = !runs.empty() && runs.back().reduced;
  return true;
}

}  // namespace tessera::cuda
