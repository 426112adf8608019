// The register-tiled AVX2 blocked convolution and pooling, for CPUs without
// AVX-512. A 16-channel block is two 8-lane halves. One call computes one
// output row of one output block, cut into tiles of up to 6 pixels whose 12
// accumulators (2 halves x 6 pixels) stay in registers across every input
// channel and tap, leaving 4 of the 16 ymm registers for the two filter
// halves and the input. Dense: each step loads the two filter halves (16
// output channels for one input channel and tap) and broadcasts one input
// value per pixel: 2 + T loads per 2T FMAs. Depthwise: each step loads the
// two filter halves and two input halves per pixel.
#include "linalg/nchwc_kernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace tessera::linalg::nchwc {

namespace {

constexpr int kMaxT = int(kTileWidthAvx2);

#define TESSERA_AVX2 __attribute__((target("avx2,fma")))

// Lanes l < valid set (all ones), the rest clear.
TESSERA_AVX2 inline __m256i lanes_below(int64_t valid) {
  const int v = valid < 0 ? 0 : valid > 8 ? 8 : int(valid);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(v), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// What every pixel of one output block shares in its epilogue: the bias
// halves and the mask of real (not padded) channels.
struct BlockEnd {
  __m256 bias[2];
  __m256 valid[2];
};

TESSERA_AVX2 inline BlockEnd block_end(const ConvArgs& a, int64_t ob) {
  const int64_t left = a.s->M - ob * 16;
  BlockEnd e;
  for (int h = 0; h < 2; ++h) {
    const __m256i m = lanes_below(left - 8 * h);
    e.valid[h] = _mm256_castsi256_ps(m);
    // A masked load reads no lane past the last channel of the bias.
    e.bias[h] = a.bias ? _mm256_maskload_ps(a.bias + ob * 16 + 8 * h, m) : _mm256_setzero_ps();
  }
  return e;
}

template <Activation K>
TESSERA_AVX2 inline __m256 activate(__m256 v, __m256 p0, __m256 p1) {
  const __m256 zero = _mm256_setzero_ps();
  if constexpr (K == Activation::kRelu)  // a compare, so NaN passes through as in Relu
    return _mm256_blendv_ps(v, zero, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
  if constexpr (K == Activation::kClip) {
    v = _mm256_blendv_ps(v, p0, _mm256_cmp_ps(v, p0, _CMP_LT_OQ));
    return _mm256_blendv_ps(v, p1, _mm256_cmp_ps(v, p1, _CMP_GT_OQ));
  }
  if constexpr (K == Activation::kLeakyRelu)
    return _mm256_blendv_ps(v, _mm256_mul_ps(v, p0), _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
  return v;
}

template <int T, Activation K>
TESSERA_AVX2 inline void store_tile_as(const __m256 (&lo)[T], const __m256 (&hi)[T],
                                       const BlockEnd& e, const float* res, float* y, __m256 p0,
                                       __m256 p1) {
#pragma GCC unroll 6
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < 2; ++h) {
      __m256 v = _mm256_add_ps(h ? hi[t] : lo[t], e.bias[h]);
      if (res) v = _mm256_add_ps(v, _mm256_loadu_ps(res + t * 16 + 8 * h));
      _mm256_storeu_ps(y + t * 16 + 8 * h, _mm256_and_ps(activate<K>(v, p0, p1), e.valid[h]));
    }
}

// The epilogue of a tile: T pixels of output block ob from ow0, as two
// 8-lane halves each: + bias, + residual, activation, padded lanes zeroed.
// The activation and the residual are resolved once per tile (vector stores
// may alias anything, so tests of a's fields in the loop were reloaded and
// taken after every store; see the AVX-512 store_row).
template <int T>
TESSERA_AVX2 inline void store_tile(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh,
                                    int64_t ow0, const __m256 (&lo)[T], const __m256 (&hi)[T]) {
  const BlockEnd e = block_end(a, ob);
  const int64_t o = a.out_index(n, ob, oh, ow0);
  float* const y = a.y + o;
  const float* const res = a.residual ? a.residual + o : nullptr;
  const __m256 p0 = _mm256_set1_ps(a.act.p0), p1 = _mm256_set1_ps(a.act.p1);
  switch (a.act.kind) {
    case Activation::kNone:
      return store_tile_as<T, Activation::kNone>(lo, hi, e, res, y, p0, p1);
    case Activation::kRelu:
      return store_tile_as<T, Activation::kRelu>(lo, hi, e, res, y, p0, p1);
    case Activation::kClip:
      return store_tile_as<T, Activation::kClip>(lo, hi, e, res, y, p0, p1);
    case Activation::kLeakyRelu:
      return store_tile_as<T, Activation::kLeakyRelu>(lo, hi, e, res, y, p0, p1);
    default:  // a pass over the stored pixels, still in L1
      store_tile_as<T, Activation::kNone>(lo, hi, e, res, y, p0, p1);
      return apply_activation_blocked(a.act, y, T, a.s->M - ob * 16);
  }
}

// One (input block, tap) step of a dense tile: where its input values start,
// from the tile's first tap, and where its [in_per_group][16] filter slice
// starts, from the output block's first.
struct Step {
  int64_t x, w;
};

// The steps of taps r, input blocks [0, in_groups), in the filter's order.
// A row computes them once for all its tiles, so a tile's loop over them is
// two loads and two adds a step: a 1x1 layer's step is only 16 x 12 FMAs on
// 8-lane registers, and five nested loops' index arithmetic, spilled beside
// the 16 ymm registers the tile holds, would take a share of it.
void dense_steps(const ConvArgs& a, const TapRange& r, std::vector<Step>* out) {
  const Conv2dShape& s = *a.s;
  const Strides& xs = a.xs;
  out->clear();
  for (int64_t ib = 0; ib < a.in_groups; ++ib)
    for (int64_t kd = r.kd0; kd < r.kd1; ++kd)
      for (int64_t kh = r.kh0; kh < r.kh1; ++kh)
        for (int64_t kw = r.kw0; kw < r.kw1; ++kw)
          out->push_back(
              {ib * xs.group + kd * s.dd * xs.depth + kh * s.dh * xs.row + kw * s.dw * xs.pixel,
               a.filter_tap(0, ib, kd, kh, kw) - a.w});
}

// Dense: T pixels from ow0 of row oh (od * OH + oh in 3-D), output block ob,
// over `steps`. CI, SW and PLAIN as in the AVX-512 dense_tile: a compile-time
// channel count and column stride, and a plain (not blocked) input.
template <int T, int CI, int SW, bool PLAIN = false>
TESSERA_AVX2 void dense_tile(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh, int64_t ow0,
                             const TapRange& r, const Step* steps, int64_t count) {
  const Conv2dShape& s = *a.s;
  const Strides& xs = a.xs;
  const int64_t ci = CI > 0 ? CI : a.in_per_group;
  const int64_t px = SW > 0 ? (PLAIN ? SW : SW * 16) : s.sw * xs.pixel;
  const int64_t xc_stride = xs.channel;
  __m256 lo[T], hi[T];
#pragma GCC unroll 6
  for (int t = 0; t < T; ++t) lo[t] = hi[t] = _mm256_setzero_ps();
  const float* const ximg = a.x + n * xs.image + r.x_row + (ow0 * s.sw - s.pw) * xs.pixel;
  const float* const wblk = a.filter_tap(ob, 0, 0, 0, 0);
  PrefetchStream* const pf = a.prefetch;
  for (int64_t i = 0; i < count; ++i) {
    if (pf) pf->step();
    const float* const xp = ximg + steps[i].x;
    const float* const wp = wblk + steps[i].w;
#pragma GCC unroll 4
    for (int64_t c = 0; c < ci; ++c) {
      const __m256 w0 = _mm256_loadu_ps(wp + c * 16), w1 = _mm256_loadu_ps(wp + c * 16 + 8);
      const float* xc = xp + c * xc_stride;
#pragma GCC unroll 6
      for (int t = 0; t < T; ++t) {
        const __m256 xv = _mm256_set1_ps(xc[t * px]);
        lo[t] = _mm256_fmadd_ps(w0, xv, lo[t]);
        hi[t] = _mm256_fmadd_ps(w1, xv, hi[t]);
      }
    }
  }
  store_tile<T>(a, n, ob, oh, ow0, lo, hi);
}

// Depthwise: T pixels from ow0 of row oh, block ob, taps in r.
template <int T, int SW>
TESSERA_AVX2 void depthwise_tile(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh, int64_t ow0,
                                 const TapRange& r) {
  const Conv2dShape& s = *a.s;
  const float* x = a.x + ((n * blocks(s.C) + ob) * s.H * s.W) * 16;
  const float* w = a.w + ob * s.KH * s.KW * 16;
  const int64_t px = (SW > 0 ? SW : s.sw) * 16;
  __m256 lo[T], hi[T];
#pragma GCC unroll 6
  for (int t = 0; t < T; ++t) lo[t] = hi[t] = _mm256_setzero_ps();
  for (int64_t kh = r.kh0; kh < r.kh1; ++kh) {
    const float* xr = x + ((oh * s.sh - s.ph + kh * s.dh) * s.W + ow0 * s.sw - s.pw) * 16;
    for (int64_t kw = r.kw0; kw < r.kw1; ++kw) {
      const float* wp = w + (kh * s.KW + kw) * 16;
      const __m256 w0 = _mm256_loadu_ps(wp), w1 = _mm256_loadu_ps(wp + 8);
      const float* xp = xr + kw * s.dw * 16;
#pragma GCC unroll 6
      for (int t = 0; t < T; ++t) {
        lo[t] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + t * px), w0, lo[t]);
        hi[t] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + t * px + 8), w1, hi[t]);
      }
    }
  }
  store_tile<T>(a, n, ob, oh, ow0, lo, hi);
}

using TileFn = void (*)(const ConvArgs&, int64_t, int64_t, int64_t, int64_t, const TapRange&);
using Table = std::array<TileFn, kMaxT>;
using DenseFn = void (*)(const ConvArgs&, int64_t, int64_t, int64_t, int64_t, const TapRange&,
                         const Step*, int64_t);
using DenseTable = std::array<DenseFn, kMaxT>;

template <int CI, int SW, bool PLAIN, int... Ts>
constexpr DenseTable dense_table(std::integer_sequence<int, Ts...>) {
  return DenseTable{&dense_tile<Ts + 1, CI, SW, PLAIN>...};
}
template <int SW, int... Ts>
constexpr Table depthwise_table(std::integer_sequence<int, Ts...>) {
  return Table{&depthwise_tile<Ts + 1, SW>...};
}

using Seq = std::make_integer_sequence<int, kMaxT>;
// [variant][T - 1], variants as tile_variant numbers them.
constexpr std::array<DenseTable, 5> kDense = {{
    dense_table<0, 0, false>(Seq{}),
    dense_table<16, 0, false>(Seq{}),
    dense_table<16, 1, false>(Seq{}),
    dense_table<16, 2, false>(Seq{}),
    dense_table<3, 2, true>(Seq{}),
}};
// Depthwise input is always blocked: variants 0 and 1 take the stride at run time.
constexpr std::array<Table, 4> kDepthwise = {{depthwise_table<0>(Seq{}), depthwise_table<0>(Seq{}),
                                              depthwise_table<1>(Seq{}),
                                              depthwise_table<2>(Seq{})}};

// ---- depthwise K x K (3 or 5), stride 1 or 2, from a zero-bordered copy ----

// T output pixels of one row from K bordered input rows (`row_stride` floats
// apart), as depthwise_rows's AVX-512 tile: each input column is loaded once
// per filter row and meets the (up to K) taps whose output pixel it feeds,
// (T - 1) * S + K loads per K * T FMAs, where depthwise_tile loads once per
// FMA. The two 8-lane halves of the block run one after the other, so T
// accumulators, one filter row and the column fit the 16 registers.
template <int K, int S, int T>
TESSERA_AVX2 void dw_tile(const ConvArgs& a, const float* rows, int64_t row_stride, const float* w,
                          int64_t n, int64_t ob, int64_t oh, int64_t ow) {
  __m256 acc[2][T];
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) acc[h][t] = _mm256_setzero_ps();
#pragma GCC unroll 5
    for (int kh = 0; kh < K; ++kh) {
      const float* row = rows + kh * row_stride + 8 * h;
      __m256 wv[K];
#pragma GCC unroll 5
      for (int kw = 0; kw < K; ++kw) wv[kw] = _mm256_loadu_ps(w + (kh * K + kw) * 16 + 8 * h);
#pragma GCC unroll 32
      for (int j = 0; j < (T - 1) * S + K; ++j) {
        const __m256 xv = _mm256_loadu_ps(row + j * 16);
#pragma GCC unroll 5
        for (int kw = 0; kw < K; ++kw) {
          const int d = j - kw;  // pixel d / S reads this column through tap kw
          if (d >= 0 && d % S == 0 && d / S < T)
            acc[h][d / S] = _mm256_fmadd_ps(xv, wv[kw], acc[h][d / S]);
        }
      }
    }
  }
  store_tile<T>(a, n, ob, oh, ow, acc[0], acc[1]);
}

// Pixels per tile: 8 accumulators, a filter row of up to 5 and the column.
constexpr int kDwWidth = 8;
using DwTileFn = void (*)(const ConvArgs&, const float*, int64_t, const float*, int64_t, int64_t,
                          int64_t, int64_t);
using DwTable = std::array<DwTileFn, kDwWidth>;
template <int K, int S, int... Ts>
constexpr DwTable dw_table(std::integer_sequence<int, Ts...>) {
  return DwTable{&dw_tile<K, S, Ts + 1>...};
}
// [K == 5][S - 1]
constexpr std::array<std::array<DwTable, 2>, 2> kDwRows = {{
    {{dw_table<3, 1>(std::make_integer_sequence<int, kDwWidth>{}),
      dw_table<3, 2>(std::make_integer_sequence<int, kDwWidth>{})}},
    {{dw_table<5, 1>(std::make_integer_sequence<int, kDwWidth>{}),
      dw_table<5, 2>(std::make_integer_sequence<int, kDwWidth>{})}},
}};

}  // namespace

void conv_row_avx2(const ConvArgs& a, int64_t n, int64_t ob0, int64_t nb, int64_t oh, int64_t ow0,
                   int64_t ow1) {
  const Conv2dShape& s = *a.s;
  const size_t v = size_t(tile_variant(s));
  // One output block per group (conv_out_blocks_per_group), so nb is 1.
  (void)nb;
  // Tiles of near-equal width: 7 pixels run as 4 + 3, not 6 + 1, whose lone
  // pixel has two accumulator chains for FMAs of latency 4.
  const bool balanced = true;
  if (s.depthwise()) {
    const Table& table = kDepthwise[v];
    conv_row_tiles(
        a, oh, ow0, ow1, kTileWidthAvx2,
        [&](int64_t t, int64_t ow, const TapRange& r) {
          table[size_t(t - 1)](a, n, ob0, oh, ow, r);
        },
        balanced);
    return;
  }
  const DenseTable& table = kDense[v];
  static thread_local std::vector<Step> steps;
  TapRange built{-1, -1, -1, -1, -1, -1};
  conv_row_tiles(
      a, oh, ow0, ow1, kTileWidthAvx2,
      [&](int64_t t, int64_t ow, const TapRange& r) {
        if (r.kd0 != built.kd0 || r.kd1 != built.kd1 || r.kh0 != built.kh0 || r.kh1 != built.kh1 ||
            r.kw0 != built.kw0 || r.kw1 != built.kw1)
          dense_steps(a, r, &steps), built = r;
        table[size_t(t - 1)](a, n, ob0, oh, ow, r, steps.data(), int64_t(steps.size()));
      },
      balanced);
}

void depthwise_rows_avx2(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh0, int64_t oh1) {
  const Conv2dShape& s = *a.s;
  const int64_t K = s.KH, S = s.sh;
  const int64_t cols = (s.OW - 1) * S + K;
  const float* const buf = depthwise_bordered_rows(a, n, ob, oh0, oh1);
  const float* const w = a.w + ob * K * K * 16;
  const DwTable& table = kDwRows[K == 5][size_t(S - 1)];
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const float* r0 = buf + (oh - oh0) * S * cols * 16;
    for (int64_t ow = 0; ow < s.OW; ow += kDwWidth) {
      const int64_t t = std::min<int64_t>(kDwWidth, s.OW - ow);
      table[size_t(t - 1)](a, r0 + ow * S * 16, cols * 16, w, n, ob, oh, ow);
    }
  }
}

TESSERA_AVX2 void pool_row_avx2(const Pool2dShape& s, bool is_max, const float* x, float* y,
                                int64_t oh) {
  const int64_t ih0 = oh * s.sh - s.ph;
  int64_t kh0 = 0, kh1 = 0;
  tap_range(ih0, s.KH, s.dh, s.H, &kh0, &kh1);
  int64_t lo = 0, hi = 0;  // columns whose every tap is inside the row skip the clipping
  pool_interior_columns(s, &lo, &hi);
  const __m256 lowest = _mm256_set1_ps(-__builtin_inff());
  for (int64_t ow = 0; ow < s.OW; ++ow) {
    const int64_t iw0 = ow * s.sw - s.pw;
    int64_t kw0 = 0, kw1 = s.KW;
    if (ow < lo || ow >= hi) tap_range(iw0, s.KW, s.dw, s.W, &kw0, &kw1);
    __m256 acc0 = is_max ? lowest : _mm256_setzero_ps(), acc1 = acc0;
    // MAXPS yields its second operand when either is NaN, so a NaN tap
    // enters acc but a later tap would replace it: NaN lanes are also
    // collected here and win at the end.
    __m256 nan0 = _mm256_setzero_ps(), nan1 = nan0;
    for (int64_t kh = kh0; kh < kh1; ++kh) {
      const float* xr = x + ((ih0 + kh * s.dh) * s.W + iw0) * 16;
      for (int64_t kw = kw0; kw < kw1; ++kw) {
        const float* p = xr + kw * s.dw * 16;
        const __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8);
        if (is_max) {
          acc0 = _mm256_max_ps(acc0, v0);
          acc1 = _mm256_max_ps(acc1, v1);
          nan0 = _mm256_or_ps(nan0, _mm256_cmp_ps(v0, v0, _CMP_UNORD_Q));
          nan1 = _mm256_or_ps(nan1, _mm256_cmp_ps(v1, v1, _CMP_UNORD_Q));
        } else {
          acc0 = _mm256_add_ps(acc0, v0);
          acc1 = _mm256_add_ps(acc1, v1);
        }
      }
    }
    const int64_t count = (kh1 - kh0) * (kw1 - kw0);
    float* yp = y + (oh * s.OW + ow) * 16;
    if (is_max) {  // a window wholly in the padding has no element: keep padding lanes zero
      const __m256 qnan = _mm256_set1_ps(__builtin_nanf(""));
      acc0 = count ? _mm256_blendv_ps(acc0, qnan, nan0) : _mm256_setzero_ps();
      acc1 = count ? _mm256_blendv_ps(acc1, qnan, nan1) : _mm256_setzero_ps();
    } else {
      const int64_t div = pool_divisor(s, ih0, iw0, count);
      const __m256 inv = _mm256_set1_ps(div > 0 ? 1.f / float(div) : 0.f);
      acc0 = _mm256_mul_ps(acc0, inv);
      acc1 = _mm256_mul_ps(acc1, inv);
    }
    _mm256_storeu_ps(yp, acc0);
    _mm256_storeu_ps(yp + 8, acc1);
  }
}

}  // namespace tessera::linalg::nchwc

#endif
