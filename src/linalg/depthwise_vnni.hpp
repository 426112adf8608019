// 8-bit depthwise convolution of one channel plane with AVX-512 VNNI and
// VBMI, requantized into bytes. Each output row goes in vectors of 16
// positions; per filter row, one 64-byte load of the padded input row, one
// byte permutation that gathers each position's kw (<= 4) taps into a
// 32-bit lane, and one vpdpbusd with the filter row's weights (int8, one
// 32-bit word): kh of each per 16 outputs, integer throughout, where the
// float path (depthwise_8bit.hpp) converts the plane and spends kh * kw
// multiply-adds. The same bytes as linalg::requantize of the exact sums.
#pragma once
#include <cstdint>

namespace tessera::linalg {

struct DepthwiseVnniShape {
  int64_t H, W, OH, OW;  // the input and output planes
  int64_t kh, kw;        // the window (dilation 1)
  int64_t stride;        // 1 or 2, both ways
  int64_t pad_top, pad_left;
};

// Whether this machine and geometry take it: VNNI and VBMI, kh <= 8,
// kw <= 4, stride 1 or 2, pads >= 0.
bool depthwise_vnni_fits(const DepthwiseVnniShape& s);

// One output channel's filter: per filter row a word of its kw taps minus
// the weights' zero point as int8 bytes (the rest zero), and the sum of all
// those values.
struct DepthwiseVnniFilter {
  int32_t rows[8];
  int32_t sum;
};

// Prepares a filter from its kh * kw values (weight - zero point); false
// when one leaves int8 (then the float path runs).
bool prepare_depthwise_vnni(const int32_t* taps, int64_t kh, int64_t kw, DepthwiseVnniFilter* out);

// How the sums leave, as linalg::requantize computes them. The caller
// checks the in-register conditions (igemm_tiles.hpp,
// requant_in_registers_fits).
struct DepthwiseVnniRequant {
  int32_t bias;
  float mult, y_scale;
  int32_t y_zero, lo, hi;
};

// Whether these scales and biases (count output channels, windows of
// `taps`) requantize in registers (igemm_tiles.hpp's conditions).
bool depthwise_vnni_requant_fits(int64_t taps, float y_scale, const float* mult,
                                 const int32_t* bias, int64_t count);

// y (OH x OW bytes) = the convolution of plane x (H x W bytes, int8 when
// x_signed, zero point x_zero) by the filter, requantized.
void depthwise_vnni_requant(const uint8_t* x, bool x_signed, int32_t x_zero,
                            const DepthwiseVnniFilter& f, const DepthwiseVnniShape& s,
                            const DepthwiseVnniRequant& q, uint8_t* y);

}  // namespace tessera::linalg
