// Internal to nchwc.cpp and nchwc_avx512.cpp: the resolved arguments of one
// blocked convolution, and the per-pixel epilogue both kernels share.
#pragma once
#include <cstdint>

#include "linalg/nchwc.hpp"

namespace tessera::linalg::nchwc {

// Element strides of the input: per image, per channel group (a block, or
// unused for a plain input), per row, per pixel and per channel in a group.
struct Strides {
  int64_t image = 0, group = 0, row = 0, pixel = 0, channel = 0;
};

struct ConvArgs {
  const Conv2dShape* s = nullptr;
  const float* w = nullptr;  // packed filter
  const float* x = nullptr;
  const float* bias = nullptr;
  const float* residual = nullptr;
  ActivationSpec act;
  float* y = nullptr;
  int64_t in_groups = 0, in_per_group = 0;  // dense: channel groups of the input
  Strides xs;
  // Output rows / columns whose every tap is inside the input.
  int64_t oh_lo = 0, oh_hi = 0, ow_lo = 0, ow_hi = 0;

  // Dense: the [in_per_group][16] filter slice of output block ob, input group ib, tap (kh, kw).
  const float* filter_tap(int64_t ob, int64_t ib, int64_t kh, int64_t kw) const {
    return w + (((ob * in_groups + ib) * s->KH + kh) * s->KW + kw) * in_per_group * 16;
  }
  int64_t out_index(int64_t n, int64_t ob, int64_t oh, int64_t ow) const {
    return (((n * blocks(s->M) + ob) * s->OH + oh) * s->OW + ow) * 16;
  }
};

// [t0, t1): the taps of a window starting at input position `start` (step
// `d`, k taps) that land inside [0, in).
inline void tap_range(int64_t start, int64_t k, int64_t d, int64_t in, int64_t* t0, int64_t* t1) {
  int64_t a = 0, b = k;
  while (a < b && start + a * d < 0) ++a;
  while (b > a && start + (b - 1) * d >= in) --b;
  *t0 = a;
  *t1 = b;
}

// Output blocks are computed two at a time by the dense AVX-512 kernel (one
// input broadcast feeds two FMAs), one at a time for depthwise.
inline int64_t conv_out_block_groups(const Conv2dShape& s) {
  return s.depthwise() ? blocks(s.M) : (blocks(s.M) + 1) / 2;
}

// acc (16 lanes of output block ob at (oh, ow)) + bias, + residual, then the
// activation; padded channels are stored as zero.
[[gnu::always_inline]] inline void finish_block(const ConvArgs& a, int64_t n, int64_t ob,
                                                int64_t oh, int64_t ow, float* acc) {
  const int64_t c0 = ob * 16;
  const int64_t valid = a.s->M - c0 < 16 ? a.s->M - c0 : 16;
  const int64_t o = a.out_index(n, ob, oh, ow);
  if (a.bias)
    for (int64_t l = 0; l < valid; ++l) acc[l] += a.bias[c0 + l];
  if (a.residual)
    for (int l = 0; l < 16; ++l) acc[l] += a.residual[o + l];
  switch (a.act.kind) {
    case Activation::kNone:
      break;
    case Activation::kRelu:
      for (int l = 0; l < 16; ++l) acc[l] = acc[l] < 0.f ? 0.f : acc[l];
      break;
    case Activation::kClip:
      for (int l = 0; l < 16; ++l) {
        const float t = acc[l] < a.act.p0 ? a.act.p0 : acc[l];
        acc[l] = t > a.act.p1 ? a.act.p1 : t;
      }
      break;
    case Activation::kLeakyRelu:
      for (int l = 0; l < 16; ++l) acc[l] = acc[l] < 0.f ? acc[l] * a.act.p0 : acc[l];
      break;
  }
  for (int64_t l = valid; l < 16; ++l) acc[l] = 0.f;
  for (int l = 0; l < 16; ++l) a.y[o + l] = acc[l];
}

// One output row of a blocked pooling (max, or average), written with
// intrinsics: the portable body's NaN-propagating compare does not vectorise.
// Defined in nchwc_avx512.cpp (x86-64 only).
void pool_row_avx512(const Pool2dShape& s, bool is_max, const float* x, float* y, int64_t oh);

// The widest register tile of the AVX-512 kernel, in pixels.
inline constexpr int64_t kTileWidth = 14;

// The register-tiled depthwise 3x3 (stride 1, any pads) of
// depthwise3x3_rows handles `s` (AVX-512 only).
bool depthwise3x3_supported(const Conv2dShape& s);
// Output rows [oh0, oh1) of block ob of image n. Defined in nchwc_avx512.cpp.
void depthwise3x3_rows(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh0, int64_t oh1);

// Pixels [ow0, ow1) of one output row of output-block group `og` (see
// conv_out_block_groups). Defined in nchwc_avx512.cpp (x86-64 only).
void conv_row_avx512(const ConvArgs& a, int64_t n, int64_t og, int64_t oh, int64_t ow0,
                     int64_t ow1);

}  // namespace tessera::linalg::nchwc
