// Internal to nchwc.cpp, nchwc_avx512.cpp and nchwc_avx2.cpp: the resolved
// arguments of one blocked convolution, and the geometry and epilogue the
// kernels share.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/host_heap.hpp"
#include "linalg/nchwc.hpp"

namespace tessera::linalg::nchwc {

// Element strides of the input: per image, per channel group (a block, or
// unused for a plain input), per row, per pixel, per channel in a group and
// per depth plane (3-D).
struct Strides {
  int64_t image = 0, group = 0, row = 0, pixel = 0, channel = 0, depth = 0;
};

// Filter lines a thread fetches ahead while it computes: the next output
// group's filters, a few lines per (input block, tap) step of each tile, so
// they arrive from memory while the current group's FMAs run. A model's
// weights (ResNet-50: 100 MB) do not stay in cache from one run to the next,
// and without this each group's first tile waited for its filters
// (BM_ConvBlockedColdFilter).
struct PrefetchStream {
  const char* next = nullptr;
  const char* end = nullptr;
  int64_t per_step = 0;
  [[gnu::always_inline]] void step() {
    for (int64_t i = 0; i < per_step && next < end; ++i, next += 64) __builtin_prefetch(next, 0, 2);
  }
  // The lines of [p, p + bytes), spread evenly over `steps` calls of step().
  static PrefetchStream over(const void* p, int64_t bytes, int64_t steps) {
    PrefetchStream s;
    s.next = static_cast<const char*>(p);
    s.end = s.next + bytes;
    steps = steps > 1 ? steps : 1;
    s.per_step = (bytes / 64 + steps - 1) / steps;
    return s;
  }
};

// Taps [kd0, kd1) x [kh0, kh1) x [kw0, kw1) of a filter, for one output row
// whose first tap row (kd = kh = 0) starts x_row elements into a dense
// input's channel group (the depthwise tiles, 2-D only, find their rows
// themselves).
struct TapRange {
  int64_t kh0, kh1, kw0, kw1;
  int64_t kd0 = 0, kd1 = 1;
  int64_t x_row = 0;
};

// Output columns [ow0, ow1) of a bordered convolution whose pixels all run
// the column taps [kw0, kw1) (see column_segments).
struct ColumnSegment {
  int64_t ow0, ow1, kw0, kw1;
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
  // Output columns whose every tap is inside the input.
  int64_t ow_lo = 0, ow_hi = 0;
  // The geometry before conv2d copied the input into a zero-bordered buffer
  // (null: none was made). Each row and tile runs only the taps that touch
  // the input itself: the others read only zeros of the border (a dilated
  // 3x3 layer on a plane smaller than its dilation is then a 1x1 product).
  const Conv2dShape* unpadded = nullptr;
  // Bordered only, may be null: the row's columns cut where their live taps
  // change, each part run in tiles with exactly its taps (a dilation-12 3x3
  // on a 14-pixel row: 2, 1 and 2 columns of taps in three parts, not 3 for
  // every pixel of one tile).
  const std::vector<ColumnSegment>* segments = nullptr;
  // Set in a thread's own copy only (see PrefetchStream); dense tiles use it.
  PrefetchStream* prefetch = nullptr;

  // Dense: the [in_per_group][16] filter slice of output block ob, input
  // group ib, tap (kd, kh, kw).
  const float* filter_tap(int64_t ob, int64_t ib, int64_t kd, int64_t kh, int64_t kw) const {
    return w +
           ((((ob * in_groups + ib) * s->KD + kd) * s->KH + kh) * s->KW + kw) * in_per_group * 16;
  }
  // Row `row` is od * OH + oh in 3-D (see Conv2dShape).
  int64_t out_index(int64_t n, int64_t ob, int64_t row, int64_t ow) const {
    return (((n * blocks(s->M) + ob) * s->OD * s->OH + row) * s->OW + ow) * 16;
  }
};

// The arguments of a blocked 1x1 product over one row of `pixels` pixels: `s`
// (C and M as the caller set them) gets that geometry and must outlive the
// result; the input's channel blocks are `block_stride` floats apart, its
// pixels 16. The caller sets w, x, y and the epilogue. Winograd's point
// products and the fused expansion run on the dense kernels through this.
inline ConvArgs pointwise_row_args(Conv2dShape& s, int64_t pixels, int64_t block_stride) {
  s.N = 1, s.H = s.OH = 1, s.W = s.OW = pixels, s.KH = s.KW = 1;
  s.sh = s.sw = 1, s.ph = s.pw = 0, s.dh = s.dw = 1, s.group = 1, s.input_blocked = true;
  s.D = s.OD = s.KD = s.sd = s.dd = 1, s.pd = 0;
  ConvArgs a;
  a.s = &s;
  a.in_groups = blocks(s.C);
  a.in_per_group = 16;
  a.xs = {0, block_stride, 0, 16, 1};
  a.ow_lo = 0, a.ow_hi = pixels;
  return a;
}

// The valid range [lo, hi) of output positions whose every tap lands inside
// an input of `in` elements (stride s, leading pad p, dilation d, k taps).
inline void interior(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                     int64_t* lo, int64_t* hi) {
  int64_t a = 0;
  while (a < out && a * s - p < 0) ++a;
  int64_t b = out;
  while (b > a && (b - 1) * s - p + (k - 1) * d >= in) --b;
  *lo = a;
  *hi = b > a ? b : a;
}

// [t0, t1): the taps of a window starting at input position `start` (step
// `d`, k taps) that land inside [0, in).
inline void tap_range(int64_t start, int64_t k, int64_t d, int64_t in, int64_t* t0, int64_t* t1) {
  int64_t a = 0, b = k;
  while (a < b && start + a * d < 0) ++a;
  while (b > a && start + (b - 1) * d >= in) --b;
  *t0 = a;
  *t1 = b;
}

// Output blocks per call of the AVX-512 kernel. Depthwise: one. Dense: two
// (one input broadcast feeds two FMAs, 14 pixels per tile). A four blocks x
// 6 pixels tile for blocked 1x1 convolutions (fewer loads per FMA) was
// measured on eight back-to-back 1024<->256 1x1 layers: no faster on one
// thread and 15-20% slower on two, so it is not used.
// The AVX2 kernel holds one block (two 8-lane halves) x 6 pixels in 12 of
// its 16 registers.
inline int64_t conv_out_blocks_per_group(const Conv2dShape& s, Isa k) {
  return s.depthwise() || k != Isa::kAvx512 ? 1 : 2;
}
inline int64_t conv_out_block_groups(const Conv2dShape& s, Isa k) {
  const int64_t g = conv_out_blocks_per_group(s, k);
  return (blocks(s.M) + g - 1) / g;
}

// Which tile table serves an input: 0 plain, 1 blocked (any stride), 2
// blocked stride 1, 3 blocked stride 2, 4 plain RGB stride 2 (the stem of
// most image networks: its three-channel loop unrolls fully and its pixel
// stride is a constant).
inline int tile_variant(const Conv2dShape& s) {
  if (!s.input_blocked) return s.C == 3 && s.sw == 2 ? 4 : 0;
  return s.sw == 1 ? 2 : s.sw == 2 ? 3 : 1;
}

// Pixels [ow0, ow1) of output row `row` (od * OH + oh in 3-D), as calls
// tile(t, ow, taps) of t <= width pixels from ow. Interior pixels (every
// tap inside the input) go in full tiles; border pixels one at a time, with
// their columns of taps clipped. All pixels of a row share its planes and
// rows of taps. Rows and tiles run only the taps that touch the unbordered
// input (a.unpadded).
// With `balanced`, each run of pixels is cut into tiles of near-equal width
// (7 pixels at width 6: 4 + 3, not 6 + 1).
template <typename Tile>
inline void conv_row_tiles(const ConvArgs& a, int64_t row, int64_t ow0, int64_t ow1, int64_t width,
                           Tile&& tile, bool balanced = false) {
  auto next = [&](int64_t left) {
    if (!balanced) return width < left ? width : left;
    const int64_t k = (left + width - 1) / width;
    return (left + k - 1) / k;
  };
  const Conv2dShape& s = *a.s;
  const Conv2dShape& u = a.unpadded ? *a.unpadded : s;
  const int64_t od = s.OD > 1 ? row / s.OH : 0, oh = row - od * s.OH;
  TapRange r{
      0, s.KH, 0, s.KW, 0, s.KD, (od * s.sd - s.pd) * a.xs.depth + (oh * s.sh - s.ph) * a.xs.row};
  tap_range(oh * s.sh - u.ph, s.KH, s.dh, u.H, &r.kh0, &r.kh1);
  if (s.KD > 1 || s.pd > 0) tap_range(od * s.sd - u.pd, s.KD, s.dd, u.D, &r.kd0, &r.kd1);
  auto border = [&](int64_t ow) {
    TapRange rb = r;
    tap_range(ow * s.sw - u.pw, s.KW, s.dw, u.W, &rb.kw0, &rb.kw1);
    tile(int64_t(1), ow, rb);
  };
  const int64_t lo = a.ow_lo < ow0 ? ow0 : a.ow_lo > ow1 ? ow1 : a.ow_lo;
  const int64_t hi = a.ow_hi < lo ? lo : a.ow_hi > ow1 ? ow1 : a.ow_hi;
  for (int64_t ow = ow0; ow < lo; ++ow) border(ow);
  if (!a.unpadded) {
    for (int64_t ow = lo; ow < hi;) {
      const int64_t t = next(hi - ow);
      tile(t, ow, r);
      ow += t;
    }
  } else if (a.segments) {
    for (const ColumnSegment& g : *a.segments) {
      const int64_t b = g.ow0 > lo ? g.ow0 : lo, e = g.ow1 < hi ? g.ow1 : hi;
      TapRange rt = r;
      rt.kw0 = g.kw0, rt.kw1 = g.kw1;
      for (int64_t ow = b; ow < e;) {
        const int64_t t = next(e - ow);
        tile(t, ow, rt);
        ow += t;
      }
    }
  } else {
    // Bordered: a tile runs the columns of taps some pixel of it reads
    // inside the input.
    for (int64_t ow = lo; ow < hi;) {
      const int64_t t = next(hi - ow);
      TapRange rt = r;
      int64_t unused = 0;
      tap_range((ow + t - 1) * s.sw - u.pw, s.KW, s.dw, u.W, &rt.kw0, &unused);
      tap_range(ow * s.sw - u.pw, s.KW, s.dw, u.W, &unused, &rt.kw1);
      if (rt.kw1 < rt.kw0) rt.kw1 = rt.kw0;
      tile(t, ow, rt);
      ow += t;
    }
  }
  for (int64_t ow = hi; ow < ow1; ++ow) border(ow);
}

// Output columns [lo, hi) of a pooling row whose every tap is inside the row.
inline void pool_interior_columns(const Pool2dShape& s, int64_t* lo, int64_t* hi) {
  *lo = s.OW < (s.pw + s.sw - 1) / s.sw ? s.OW : (s.pw + s.sw - 1) / s.sw;
  const int64_t last = s.W - 1 - (s.KW - 1) * s.dw + s.pw;  // largest interior start * sw
  const int64_t h = last < 0 ? 0 : last / s.sw + 1;
  *hi = h < *lo ? *lo : h > s.OW ? s.OW : h;
}

// The divisor of an average window starting at (ih0, iw0) with `count` taps
// inside the input: with count_include_pad, the window clipped to the padded
// input, as in AveragePool.
inline int64_t pool_divisor(const Pool2dShape& s, int64_t ih0, int64_t iw0, int64_t count) {
  if (!s.count_include_pad) return count;
  const int64_t h_last = ih0 + (s.KH - 1) * s.dh + 1, w_last = iw0 + (s.KW - 1) * s.dw + 1;
  const int64_t h_end = h_last < s.H + s.pe_h ? h_last : s.H + s.pe_h;
  const int64_t w_end = w_last < s.W + s.pe_w ? w_last : s.W + s.pe_w;
  return ((h_end - ih0 + s.dh - 1) / s.dh) * ((w_end - iw0 + s.dw - 1) / s.dw);
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
    default:
      apply_activation(a.act, acc, valid);
  }
  for (int64_t l = valid; l < 16; ++l) acc[l] = 0.f;
  for (int l = 0; l < 16; ++l) a.y[o + l] = acc[l];
}

// One output row of a blocked pooling (max, or average), written with
// intrinsics: the portable body's NaN-propagating compare does not vectorise.
// Defined in nchwc_avx512.cpp (x86-64 only).
void pool_row_avx512(const Pool2dShape& s, bool is_max, const float* x, float* y, int64_t oh);

// The widest register tile, in pixels: 14 for the AVX-512 kernel's one or
// two output blocks (28 accumulators), 6 for the AVX2 kernel.
inline constexpr int64_t kTileWidth = 14;
inline constexpr int64_t kTileWidthAvx2 = 6;
inline int64_t conv_tile_width(Isa k) { return k == Isa::kAvx2 ? kTileWidthAvx2 : kTileWidth; }

// The register-tiled depthwise of depthwise_rows (3x3 or 5x5, stride 1 or
// 2, any pads) handles `s` and is the faster kernel for it.
bool depthwise_rows_supported(const Conv2dShape& s);
// Output rows [oh0, oh1) of block ob of image n. Defined in nchwc_avx512.cpp
// and nchwc_avx2.cpp.
void depthwise_rows(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh0, int64_t oh1);
void depthwise_rows_avx2(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh0, int64_t oh1);

// For depthwise_rows: the input rows and columns that output rows [oh0, oh1)
// of block ob of image n read, copied with zeros for the padding into a
// per-thread buffer that stays in cache, (OW - 1) * S + K pixels a row from
// iw = -pw. No tap is then ever clipped, and the copy is one pass over data
// the taps read K * K / S^2 times.
inline const float* depthwise_bordered_rows(const ConvArgs& a, int64_t n, int64_t ob, int64_t oh0,
                                            int64_t oh1) {
  const Conv2dShape& s = *a.s;
  const int64_t K = s.KH, S = s.sh;
  const int64_t ih0 = oh0 * S - s.ph, rows = (oh1 - oh0 - 1) * S + K;
  const int64_t cols = (s.OW - 1) * S + K;  // from iw = -pw
  static thread_local HostVector<float> buf;
  if (buf.size() < size_t(rows * cols * 16)) buf.resize(size_t(rows * cols * 16));
  const float* x = a.x + (n * blocks(s.C) + ob) * s.H * s.W * 16;
  const int64_t left = std::min(s.pw, cols), iw_end = std::min(s.W, cols - s.pw);
  for (int64_t r = 0; r < rows; ++r) {
    float* d = buf.data() + r * cols * 16;
    const int64_t ih = ih0 + r;
    if (ih < 0 || ih >= s.H || iw_end <= 0) {
      std::memset(d, 0, size_t(cols * 16) * sizeof(float));
      continue;
    }
    std::memset(d, 0, size_t(left * 16) * sizeof(float));
    std::memcpy(d + left * 16, x + ih * s.W * 16, size_t(iw_end * 16) * sizeof(float));
    const int64_t done = left + iw_end;
    if (done < cols) std::memset(d + done * 16, 0, size_t((cols - done) * 16) * sizeof(float));
  }
  return buf.data();
}

// Pixels [ow0, ow1) of one output row of output blocks [ob0, ob0 + nb), nb at
// most conv_out_blocks_per_group. Defined in nchwc_avx512.cpp and
// nchwc_avx2.cpp (x86-64 only); conv_row (nchwc.cpp) calls the one of
// conv_kernel_isa(), or the portable per-pixel kernel.
void conv_row_avx512(const ConvArgs& a, int64_t n, int64_t ob0, int64_t nb, int64_t oh, int64_t ow0,
                     int64_t ow1);
void conv_row_avx2(const ConvArgs& a, int64_t n, int64_t ob0, int64_t nb, int64_t oh, int64_t ow0,
                   int64_t ow1);
// The kernels in use: cpu_isa(), or narrower after set_kernel_isa.
Isa conv_kernel_isa();
void conv_row(const ConvArgs& a, int64_t n, int64_t ob0, int64_t nb, int64_t oh, int64_t ow0,
              int64_t ow1);

// Runs fn(b, e) over [0, n), split across the pool when the work is worth it.
template <typename Fn>
void for_range(ThreadPool* pool, int64_t n, double cost, Fn&& fn) {
  if (pool)
    pool->parallel_for(n, cost, fn);
  else
    fn(int64_t(0), n);
}

// The AVX2 blocked pooling row (see pool_row_avx512). Defined in nchwc_avx2.cpp.
void pool_row_avx2(const Pool2dShape& s, bool is_max, const float* x, float* y, int64_t oh);

}  // namespace tessera::linalg::nchwc
