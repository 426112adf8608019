// The float loops of dynamic uint8 quantization (DynamicQuantizeLinear, and
// the activations of a dynamically quantized MatMul): the range of a tensor
// and its quantization. AVX-512 or AVX2 where the CPU has it (and cpu_isa()
// allows), else portable; all give the same bytes.
#pragma once
#include <cstdint>

#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

// The range of x[0..n) widened to hold 0, as DynamicQuantizeLinear's is:
// lo = min(0, x...), hi = max(0, x...); NaNs are ignored.
void min_max_with_zero(const float* x, int64_t n, float* lo, float* hi);

// y[i] = clamp(round_half_even(x[i] / scale) + zero_point, 0, 255), NaN -> 0
// (scale > 0, zero_point an integer in [0, 255]).
void quantize_u8(const float* x, int64_t n, float scale, float zero_point, uint8_t* y);
// y[i] = (x[i] - zero_point) * scale for uint8 (or, is_signed, int8) x:
// DequantizeLinear's per-tensor form.
void dequantize_8bit(const uint8_t* x, bool is_signed, int64_t n, float scale, float zero_point,
                     float* y);

// The same into int8 (clamped to [-128, 127], NaN -> 0; zero_point an
// integer in that range): QuantizeLinear's per-tensor form.
void quantize_s8(const float* x, int64_t n, float scale, float zero_point, int8_t* y);

// QLinearConv / QLinearMatMul's requantization of exact int32 sums, in
// their arithmetic: real = float(acc[i] + bias) * multiplier;
// y = clamp(round_half_even(real / y_scale) + y_zero_point, lo, hi), stored
// as a byte (lo..hi within 0..255, or -128..127 as two's complement).
void requantize(const int32_t* acc, int64_t n, int64_t bias, float multiplier, float y_scale,
                int32_t y_zero_point, int32_t lo, int32_t hi, uint8_t* y);

// y[i] = table[x[i]] (x read as unsigned bytes): an 8-bit to 8-bit map made
// of a chain of per-element operators, computed once for all 256 inputs.
void lookup_8bit(const uint8_t* x, int64_t n, const uint8_t* table, uint8_t* y);

// acc[i] += src[i * stride] * w for i < n, in wrapping 32-bit arithmetic:
// one filter tap of a direct integer convolution over an output row.
void accumulate_tap_s16(const int16_t* src, int64_t stride, int64_t n, int32_t w, uint32_t* acc);

// For tests: runs the kernels of `want`, or of cpu_isa() where that is
// narrower (so AVX-512 machines test the AVX2 kernels too); returns the
// previous set. Not thread-safe.
Isa set_quantize_isa(Isa want);

}  // namespace tessera::linalg
