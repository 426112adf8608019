// The float loops of dynamic uint8 quantization (DynamicQuantizeLinear, and
// the activations of a dynamically quantized MatMul): the range of a tensor
// and its quantization. AVX-512 where the CPU has it (and cpu_isa() allows),
// else portable; both give the same bytes.
#pragma once
#include <cstdint>

namespace tessera::linalg {

// The range of x[0..n) widened to hold 0, as DynamicQuantizeLinear's is:
// lo = min(0, x...), hi = max(0, x...); NaNs are ignored.
void min_max_with_zero(const float* x, int64_t n, float* lo, float* hi);

// y[i] = clamp(round_half_even(x[i] / scale) + zero_point, 0, 255), NaN -> 0
// (scale > 0, zero_point an integer in [0, 255]).
void quantize_u8(const float* x, int64_t n, float scale, float zero_point, uint8_t* y);

}  // namespace tessera::linalg
