// The register-tiled AVX-512 blocked convolution. One call computes one
// output row of one or two output blocks: the row is cut into tiles of up to
// 14 pixels whose accumulators (OB blocks x T pixels, at most 28 zmm) stay
// in registers across every input channel and tap. Dense: each step loads OB
// filter vectors (16 output channels for one input channel and tap) and
// broadcasts one input value per pixel. Depthwise: each step loads one filter
// vector and one input vector per pixel. Border pixels, whose taps leave the
// input, are done by the caller's checked per-pixel function.
#include "core/host_heap.hpp"
#include "linalg/nchwc_kernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

namespace tessera::linalg::nchwc {

namespace {

constexpr int kMaxT = int(kTileWidth);

#define TESSERA_AVX512 __attribute__((target("avx512f,fma")))

template <Activation K>
TESSERA_AVX512 inline __m512 activate(__m512 x, __m512 p0, __m512 p1) {
  const __m512 zero = _mm512_setzero_ps();
  if constexpr (K == Activation::kRelu)  // zero > x ? zero : x, so NaN passes through as in Relu
    return _mm512_mask_max_ps(x, __mmask16(0xffff), zero, x);
  if constexpr (K == Activation::kClip) {
    x = _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, p0, _CMP_LT_OQ), p0);
    return _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, p1, _CMP_GT_OQ), p1);
  }
  if constexpr (K == Activation::kLeakyRelu)
    return _mm512_mask_mul_ps(x, _mm512_cmp_ps_mask(x, zero, _CMP_LT_OQ), x, p0);
  return x;
}

template <int T, Activation K>
TESSERA_AVX512 inline void store_row_as(const __m512* v, __m512 bias, __mmask16 valid,
                                        const float* res, float* y, __m512 p0, __m512 p1) {
#pragma GCC unroll 14
  for (int t = 0; t < T; ++t) {
    __m512 x = _mm512_add_ps(v[t], bias);
    if (res) x = _mm512_add_ps(x, _mm512_loadu_ps(res + t * 16));
    _mm512_storeu_ps(y + t * 16, _mm512_maskz_mov_ps(valid, activate<K>(x, p0, p1)));
  }
}

// Stores T vectors v[t] of one output block at pixels o, o + 16, ...: + bias,
// + residual, the activation, padded lanes zeroed. The activation and the
// residual are resolved once per row: the vector stores may alias anything,
// so tests of a's fields inside the loop were reloaded and taken after every
// store (a fifth of the time of ResNet-50's 64 -> 256 1x1 layer).
template <int T>
TESSERA_AVX512 inline void store_row(const ConvArgs& a, const __m512* v, __m512 bias,
                                     __mmask16 valid, int64_t o) {
  float* const y = a.y + o;
  const float* const res = a.residual ? a.residual + o : nullptr;
  const __m512 p0 = _mm512_set1_ps(a.act.p0), p1 = _mm512_set1_ps(a.act.p1);
  switch (a.act.kind) {
    case Activation::kNone:
      return store_row_as<T, Activation::kNone>(v, bias, valid, res, y, p0, p1);
    case Activation::kRelu:
      return store_row_as<T, Activation::kRelu>(v, bias, valid, res, y, p0, p1);
    case Activation::kClip:
      return store_row_as<T, Activation::kClip>(v, bias, valid, res, y, p0, p1);
    case Activation::kLeakyRelu:
      return store_row_as<T, Activation::kLeakyRelu>(v, bias, valid, res, y, p0, p1);
    default:  // a pass over the stored pixels, still in L1
      store_row_as<T, Activation::kNone>(v, bias, valid, res, y, p0, p1);
      return apply_activation_blocked(a.act, y, T, __builtin_popcount(valid));
  }
}

TESSERA_AVX512 inline __mmask16 valid_lanes(const ConvArgs& a, int64_t ob) {
  const int64_t left = a.s->M - ob * 16;
  return left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
}

TESSERA_AVX512 inline __m512 bias_vec(const ConvArgs& a, int64_t ob, __mmask16 valid) {
  return a.bias ? _mm512_maskz_loadu_ps(valid, a.bias + ob * 16) : _mm512_setzero_ps();
}

// Dense: T pixels from ow0 of row oh (od * OH + oh in 3-D), output blocks
// ob0 .. ob0+OB-1, the taps of r.
// SW: the column stride when it is known at compile time, else 0. A constant
// stride puts every pixel's input at a constant offset from one pointer; a
// run-time one costs a register per pixel, more than the 16 general
// registers hold at T = 14. PLAIN: the input is plain NCHW (one float per
// pixel per channel, CI channels), as in a network's first convolution.
template <int OB, int T, int CI, int SW, bool PLAIN = false>
TESSERA_AVX512 void dense_tile(const ConvArgs& a, int64_t n, int64_t ob0, int64_t oh, int64_t ow0,
                               const TapRange& r) {
  const Conv2dShape& s = *a.s;
  const Strides& xs = a.xs;
  const int64_t ci = CI > 0 ? CI : a.in_per_group;
  // Between neighbouring output pixels.
  const int64_t px = SW > 0 ? (PLAIN ? SW : SW * 16) : s.sw * xs.pixel;
  __m512 acc[OB][T];
#pragma GCC unroll 4
  for (int b = 0; b < OB; ++b)
#pragma GCC unroll 14
    for (int t = 0; t < T; ++t) acc[b][t] = _mm512_setzero_ps();
  const float* ximg = a.x + n * xs.image + r.x_row + (ow0 * s.sw - s.pw) * xs.pixel;
  PrefetchStream* const pf = a.prefetch;
  for (int64_t ib = 0; ib < a.in_groups; ++ib)
    for (int64_t kd = r.kd0; kd < r.kd1; ++kd)
      for (int64_t kh = r.kh0; kh < r.kh1; ++kh) {
        const float* xr = ximg + ib * xs.group + kd * s.dd * xs.depth + kh * s.dh * xs.row;
        for (int64_t kw = r.kw0; kw < r.kw1; ++kw) {
          if (pf) pf->step();
          const float* xp = xr + kw * s.dw * xs.pixel;
          const float* wp[OB];
#pragma GCC unroll 4
          for (int b = 0; b < OB; ++b) wp[b] = a.filter_tap(ob0 + b, ib, kd, kh, kw);
#pragma GCC unroll 4
          for (int64_t c = 0; c < ci; ++c) {
            __m512 wv[OB];
#pragma GCC unroll 4
            for (int b = 0; b < OB; ++b) wv[b] = _mm512_loadu_ps(wp[b] + c * 16);
            const float* xc = xp + c * xs.channel;
#pragma GCC unroll 14
            for (int t = 0; t < T; ++t) {
              const __m512 xv = _mm512_set1_ps(xc[t * px]);
#pragma GCC unroll 4
              for (int b = 0; b < OB; ++b) acc[b][t] = _mm512_fmadd_ps(wv[b], xv, acc[b][t]);
            }
          }
        }
      }
#pragma GCC unroll 4
  for (int b = 0; b < OB; ++b) {
    const __mmask16 valid = valid_lanes(a, ob0 + b);
    store_row<T>(a, acc[b], bias_vec(a, ob0 + b, valid), valid, a.out_index(n, ob0 + b, oh, ow0));
  }
}

// Depthwise: T pixels from ow0 of row oh, block ob, taps kh in [kh0, kh1).
template <int T, int SW>
TESSERA_AVX512 void depthwise_tile(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh,
                                   int64_t ow0, const TapRange& r) {
  const Conv2dShape& s = *a.s;
  const float* x = a.x + ((n * blocks(s.C) + ob) * s.H * s.W) * 16;
  const float* w = a.w + ob * s.KH * s.KW * 16;
  __m512 acc[T];
#pragma GCC unroll 14
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t kh = r.kh0; kh < r.kh1; ++kh) {
    const float* xr = x + ((oh * s.sh - s.ph + kh * s.dh) * s.W + ow0 * s.sw - s.pw) * 16;
    for (int64_t kw = r.kw0; kw < r.kw1; ++kw) {
      const __m512 wv = _mm512_loadu_ps(w + (kh * s.KW + kw) * 16);
      const float* xp = xr + kw * s.dw * 16;
#pragma GCC unroll 14
      for (int t = 0; t < T; ++t)
        acc[t] = _mm512_fmadd_ps(_mm512_loadu_ps(xp + t * (SW > 0 ? SW : s.sw) * 16), wv, acc[t]);
    }
  }
  const __mmask16 valid = valid_lanes(a, ob);
  const __m512 bias = bias_vec(a, ob, valid);
  store_row<T>(a, acc, bias, valid, a.out_index(n, ob, oh, ow0));
}

using TileFn = void (*)(const ConvArgs&, int64_t, int64_t, int64_t, int64_t, const TapRange&);

// Tiles of 1 .. sizeof...(Ts) pixels; wider entries of the table stay null.
template <int OB, int CI, int SW, bool PLAIN, int... Ts>
constexpr auto dense_table(std::integer_sequence<int, Ts...>) {
  std::array<TileFn, kMaxT> t{};
  ((t[size_t(Ts)] = &dense_tile<OB, Ts + 1, CI, SW, PLAIN>), ...);
  return t;
}
template <int SW, int... Ts>
constexpr auto depthwise_table(std::integer_sequence<int, Ts...>) {
  return std::array<TileFn, sizeof...(Ts)>{&depthwise_tile<Ts + 1, SW>...};
}

using Seq = std::make_integer_sequence<int, kMaxT>;
using Table = std::array<TileFn, kMaxT>;
// [OB - 1][variant][T - 1]
constexpr std::array<std::array<Table, 5>, 2> kDense = {{
    {{dense_table<1, 0, 0, false>(Seq{}), dense_table<1, 16, 0, false>(Seq{}),
      dense_table<1, 16, 1, false>(Seq{}), dense_table<1, 16, 2, false>(Seq{}),
      dense_table<1, 3, 2, true>(Seq{})}},
    {{dense_table<2, 0, 0, false>(Seq{}), dense_table<2, 16, 0, false>(Seq{}),
      dense_table<2, 16, 1, false>(Seq{}), dense_table<2, 16, 2, false>(Seq{}),
      dense_table<2, 3, 2, true>(Seq{})}},
}};
// [variant][T - 1] (depthwise input is always blocked)
constexpr std::array<Table, 4> kDepthwise = {{depthwise_table<0>(Seq{}), depthwise_table<0>(Seq{}),
                                              depthwise_table<1>(Seq{}),
                                              depthwise_table<2>(Seq{})}};

// ---- depthwise K x K (3 or 5), stride 1 or 2 ----

// T output pixels of one row from K zero-bordered input rows (`row_stride`
// floats apart): each input column is loaded once and meets the (up to K)
// filter taps whose output pixel it feeds, so a tile loads (T - 1) * S + K
// vectors per filter row, not K * T as the general tile does, which is bound
// by its loads (one per FMA). The filter and the bias of one block (a struct:
// vector types by value in a function-pointer table would lose their
// alignment attribute).
struct DwTaps {
  const float* w;  // [K * K][16]
  __m512 bias;
  __mmask16 valid;
};

template <int K, int S, int T>
TESSERA_AVX512 void dw_tile(const ConvArgs& a, const float* rows, int64_t row_stride,
                            const DwTaps& k, int64_t o) {
  __m512 acc[T];
#pragma GCC unroll 16
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
#pragma GCC unroll 5
  for (int kh = 0; kh < K; ++kh) {
    const float* row = rows + kh * row_stride;
    // One filter row in registers (K = 3, T = 8 keeps all nine taps).
    __m512 w[K];
#pragma GCC unroll 5
    for (int kw = 0; kw < K; ++kw) w[kw] = _mm512_loadu_ps(k.w + (kh * K + kw) * 16);
#pragma GCC unroll 64
    for (int j = 0; j < (T - 1) * S + K; ++j) {
      const __m512 xv = _mm512_loadu_ps(row + j * 16);
#pragma GCC unroll 5
      for (int kw = 0; kw < K; ++kw) {
        const int d = j - kw;  // pixel d / S reads this column through tap kw
        if (d >= 0 && d % S == 0 && d / S < T) acc[d / S] = _mm512_fmadd_ps(xv, w[kw], acc[d / S]);
      }
    }
  }
  store_row<T>(a, acc, k.bias, k.valid, o);
}

// Pixels per tile: T accumulators, K filter vectors and the column in
// registers. 3x3 at stride 1 keeps the 8 that were measured against 14 on
// MobileNetV2's layers; the others take 14, a 7 x 7 or 14 x 14 row in one or
// two tiles.
template <int K, int S>
constexpr int dw_tile_width() {
  return K == 3 && S == 1 ? 8 : 14;
}

using DwTileFn = void (*)(const ConvArgs&, const float*, int64_t, const DwTaps&, int64_t);
template <int K, int S, int... Ts>
constexpr auto dw_table(std::integer_sequence<int, Ts...>) {
  std::array<DwTileFn, kMaxT> t{};
  ((t[size_t(Ts)] = &dw_tile<K, S, Ts + 1>), ...);
  return t;
}
template <int K, int S>
constexpr auto dw_table() {
  return dw_table<K, S>(std::make_integer_sequence<int, dw_tile_width<K, S>()>{});
}
// [K == 5][S - 1]
constexpr std::array<std::array<std::array<DwTileFn, kMaxT>, 2>, 2> kDwRows = {{
    {{dw_table<3, 1>(), dw_table<3, 2>()}},
    {{dw_table<5, 1>(), dw_table<5, 2>()}},
}};

}  // namespace

bool depthwise_rows_supported(const Conv2dShape& s) {
  // A 3x3 at stride 2 meets each copied column only 1.5 times per row of
  // taps; on rows wider than 7 pixels the general kernel, reading the input
  // in place, was faster (MobileNetV2's 96 x 112 x 112: 255 us against
  // 375); on 7-pixel rows, where it runs a clipped border pixel beside every
  // tile, 3-4x slower (576 x 14 x 14: 77 us against 21).
  return s.depthwise() && s.input_blocked && s.KH == s.KW && (s.KH == 3 || s.KH == 5) &&
         s.dh == 1 && s.dw == 1 && s.sh == s.sw && (s.sh == 1 || s.sh == 2) && s.D == 1 &&
         s.KD == 1 && (s.KH == 5 || s.sh == 1 || s.OW <= 7);
}

// Rows [oh0, oh1) of block ob of image n, from the zero-bordered copy of
// the rows they read (depthwise_bordered_rows).
TESSERA_AVX512 void depthwise_rows(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh0,
                                   int64_t oh1) {
  const Conv2dShape& s = *a.s;
  const int64_t K = s.KH, S = s.sh;
  const int64_t cols = (s.OW - 1) * S + K;
  const float* const buf = depthwise_bordered_rows(a, n, ob, oh0, oh1);
  DwTaps taps;
  taps.w = a.w + ob * K * K * 16;
  taps.valid = valid_lanes(a, ob);
  taps.bias = bias_vec(a, ob, taps.valid);
  const auto& table = kDwRows[K == 5][size_t(S - 1)];
  const int64_t width = K == 3 && S == 1 ? dw_tile_width<3, 1>() : dw_tile_width<5, 1>();
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const float* r0 = buf + (oh - oh0) * S * cols * 16;
    for (int64_t ow = 0; ow < s.OW; ow += width) {
      const int64_t t = std::min(width, s.OW - ow);
      table[size_t(t - 1)](a, r0 + ow * S * 16, cols * 16, taps, a.out_index(n, ob, oh, ow));
    }
  }
}

TESSERA_AVX512 void pool_row_avx512(const Pool2dShape& s, bool is_max, const float* x, float* y,
                                    int64_t oh) {
  const int64_t ih0 = oh * s.sh - s.ph;
  int64_t kh0 = 0, kh1 = 0;
  tap_range(ih0, s.KH, s.dh, s.H, &kh0, &kh1);
  int64_t lo = 0, hi = 0;  // columns whose every tap is inside the row skip the clipping
  pool_interior_columns(s, &lo, &hi);
  const __m512 lowest = _mm512_set1_ps(-__builtin_inff());
  for (int64_t ow = 0; ow < s.OW; ++ow) {
    const int64_t iw0 = ow * s.sw - s.pw;
    int64_t kw0 = 0, kw1 = s.KW;
    if (ow < lo || ow >= hi) tap_range(iw0, s.KW, s.dw, s.W, &kw0, &kw1);
    __m512 acc = is_max ? lowest : _mm512_setzero_ps();
    __mmask16 nan = 0;
    for (int64_t kh = kh0; kh < kh1; ++kh) {
      const float* xr = x + ((ih0 + kh * s.dh) * s.W + iw0) * 16;
      if (is_max)  // MAXPS yields its second operand when either is NaN, so a NaN
                   // tap enters acc but a later tap would replace it: NaN lanes are
                   // also collected in `nan` and win at the end
        for (int64_t kw = kw0; kw < kw1; ++kw) {
          const __m512 v = _mm512_loadu_ps(xr + kw * s.dw * 16);
          acc = _mm512_maskz_max_ps(0xffff, acc, v);  // (GCC 12 warns on the unmasked form)
          nan = _kor_mask16(nan, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
        }
      else
        for (int64_t kw = kw0; kw < kw1; ++kw)
          acc = _mm512_add_ps(acc, _mm512_loadu_ps(xr + kw * s.dw * 16));
    }
    const int64_t count = (kh1 - kh0) * (kw1 - kw0);
    float* yp = y + (oh * s.OW + ow) * 16;
    if (is_max) {  // a window wholly in the padding has no element: keep padding lanes zero
      acc = _mm512_mask_mov_ps(acc, nan, _mm512_set1_ps(__builtin_nanf("")));
      _mm512_storeu_ps(yp, count ? acc : _mm512_setzero_ps());
      continue;
    }
    const int64_t div = pool_divisor(s, ih0, iw0, count);
    _mm512_storeu_ps(yp, _mm512_mul_ps(acc, _mm512_set1_ps(div > 0 ? 1.f / float(div) : 0.f)));
  }
}

void conv_row_avx512(const ConvArgs& a, int64_t n, int64_t ob0, int64_t nb, int64_t oh, int64_t ow0,
                     int64_t ow1) {
  const Conv2dShape& s = *a.s;
  const int64_t width = conv_tile_width(Isa::kAvx512);
  const size_t v = size_t(tile_variant(s));
  const Table& table = s.depthwise() ? kDepthwise[v] : kDense[size_t(nb - 1)][v];
  conv_row_tiles(a, oh, ow0, ow1, width, [&](int64_t t, int64_t ow, const TapRange& r) {
    table[size_t(t - 1)](a, n, ob0, oh, ow, r);
  });
}

}  // namespace tessera::linalg::nchwc

#endif
