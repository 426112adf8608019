// Mean and variance of long float runs, and the affine map that applies a
// normalization, for the instance, group and batch normalizations. The
// statistics are two-pass per chunk of kMomentChunk values (the chunk is in
// L1 for its second pass, so a run is read from memory once) in float vector
// lanes; chunks are merged in double with the pairwise update of Chan et al.,
// so accuracy does not degrade with the run's length and pieces of one run
// computed on different threads merge to the same kind of result.
#pragma once
#include <cstdint>

#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

inline constexpr int64_t kMomentChunk = 2048;

// count values with this mean and sum of squared deviations from it.
struct Moments {
  int64_t count = 0;
  double mean = 0;
  double m2 = 0;
  double variance() const { return count > 0 ? m2 / double(count) : 0.0; }
};

// a := the moments of a's values together with b's.
void merge_moments(Moments& a, const Moments& b);

// The moments of x[0, n); n == 0 gives count 0.
Moments run_moments(const float* x, int64_t n);

// out[i] = (x[i] - shift) * scale + bias; out may alias x.
void normalize_run(const float* x, float shift, float scale, float bias, float* out, int64_t n);

}  // namespace tessera::linalg

namespace tessera::linalg::detail {

// The kernels of one instruction set (tests run each the CPU supports
// against a plain reference); false when this build or CPU cannot run it.
struct MomentKernels {
  Moments (*run)(const float*, int64_t);
  void (*normalize)(const float*, float, float, float, float*, int64_t);
};
bool moment_kernels(Isa isa, MomentKernels* out);

}  // namespace tessera::linalg::detail
