// Work applied to a finished block of a GEMM or convolution output while it
// is still in cache: a per-row bias (a convolution's per-channel bias, since
// NCHW rows are channels), a residual tensor added element-wise, then an
// activation. Doing it here saves the separate passes over memory that a Add
// or Relu node would cost.
#pragma once
#include <cstdint>

namespace tessera::linalg {

enum class Activation : uint8_t { kNone, kRelu, kClip, kLeakyRelu };

struct ActivationSpec {
  Activation kind = Activation::kNone;
  float p0 = 0.f;  // Clip: min; LeakyRelu: alpha
  float p1 = 0.f;  // Clip: max
};

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

}  // namespace tessera::linalg
