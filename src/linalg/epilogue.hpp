// Work applied to a finished block of a GEMM or convolution output while it
// is still in cache: a per-row bias (a convolution's per-channel bias, since
// NCHW rows are channels), a residual tensor added element-wise, then an
// activation. Doing it here saves the separate passes over memory that a Add
// or Relu node would cost.
#pragma once
#include <cstdint>

namespace tessera::linalg {

// The first four are compares, done in registers by every kernel; the rest
// (from kSigmoid on) are linalg::vec_activation's, which the kernels run as a
// pass over each finished block while it is in cache (is_pass_activation).
enum class Activation : uint8_t {
  kNone,
  kRelu,
  kClip,
  kLeakyRelu,
  kSigmoid,
  kSwish,        // x * sigmoid(p0 x); SiLU is p0 = 1
  kHardSigmoid,  // max(0, min(1, p0 x + p1))
  kHardSwish,    // x * max(0, min(1, p0 x + p1))
  kTanh,
};

struct ActivationSpec {
  Activation kind = Activation::kNone;
  float p0 = 0.f;  // Clip: min; LeakyRelu, Swish, HardSigmoid, HardSwish: alpha
  float p1 = 0.f;  // Clip: max; HardSigmoid, HardSwish: beta
};

constexpr bool is_pass_activation(Activation k) { return k >= Activation::kSigmoid; }

// Whether a pass activation makes a zero nonzero: the blocked layout's padded
// channels must then be cleared again after the pass.
inline bool moves_zero(const ActivationSpec& a) {
  return a.kind == Activation::kSigmoid || (a.kind == Activation::kHardSigmoid && a.p1 != 0.f);
}

struct Epilogue {
  const float* row_bias = nullptr;  // one value per row of C, or null
  const float* residual = nullptr;  // indexed like C with row stride ldr, or null
  int64_t ldr = 0;
  ActivationSpec act;
  bool empty() const {
    return row_bias == nullptr && residual == nullptr && act.kind == Activation::kNone;
  }
};

// C[i, j] = act((C[i, j] + row_bias[i]) + residual[i, j]) for rows [i0, i0+m)
// and columns [j0, j0+n) of C (row stride ldc). The order of the additions is
// the one of the unfused graph (Conv with bias, then Add), so results match it.
void apply_epilogue(const Epilogue& e, int64_t i0, int64_t m, int64_t j0, int64_t n, float* C,
                    int64_t ldc);

// Only the activation, over n contiguous values.
void apply_activation(const ActivationSpec& a, float* x, int64_t n);

// The activation over `pixels` groups of 16 lanes at x (one block of the
// blocked layout), of which the first `valid` are channels: the padded lanes
// stay zero.
void apply_activation_blocked(const ActivationSpec& a, float* x, int64_t pixels, int64_t valid);

}  // namespace tessera::linalg
