// Filter packing, layout reorders and pooling for the blocked layout, and the
// portable convolution. Loops over the 16 lanes of a block are written plainly
// so the compiler turns each into one vector operation; the global average
// pool body is compiled three times (generic, AVX2, AVX-512: the epilogue.cpp
// scheme). The register-tiled convolutions and pooling rows are in
// nchwc_avx512.cpp and nchwc_avx2.cpp.
#include "linalg/nchwc.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "linalg/nchwc_kernel.hpp"

namespace tessera::linalg::nchwc {

namespace {

// The kernels in use; tests narrow it to check the others on the same CPU.
Isa g_isa = cpu_isa();

// One output pixel's block over the taps inside the input: the portable
// kernel. `row` is od * OH + oh in 3-D (see Conv2dShape).
void conv_pixel_generic(const ConvArgs& a, int64_t n, int64_t ob, int64_t row, int64_t ow) {
  const Conv2dShape& s = *a.s;
  const int64_t od = row / s.OH, oh = row % s.OH;
  const int64_t id0 = od * s.sd - s.pd, ih0 = oh * s.sh - s.ph, iw0 = ow * s.sw - s.pw;
  int64_t kd0 = 0, kd1 = 0, kh0 = 0, kh1 = 0, kw0 = 0, kw1 = 0;
  tap_range(id0, s.KD, s.dd, s.D, &kd0, &kd1);
  tap_range(ih0, s.KH, s.dh, s.H, &kh0, &kh1);
  tap_range(iw0, s.KW, s.dw, s.W, &kw0, &kw1);
  float acc[16];
  for (int l = 0; l < 16; ++l) acc[l] = 0.f;
  const Strides& xs = a.xs;
  for (int64_t ib = 0; ib < (s.depthwise() ? 1 : a.in_groups); ++ib)
    for (int64_t kd = kd0; kd < kd1; ++kd)
      for (int64_t kh = kh0; kh < kh1; ++kh)
        for (int64_t kw = kw0; kw < kw1; ++kw) {
          const int64_t id = id0 + kd * s.dd, ih = ih0 + kh * s.dh, iw = iw0 + kw * s.dw;
          if (s.depthwise()) {  // input block ob, one filter vector per tap (2-D only)
            const float* xp = a.x + (((n * blocks(s.C) + ob) * s.H + ih) * s.W + iw) * 16;
            const float* wp = a.w + ((ob * s.KH + kh) * s.KW + kw) * 16;
            for (int l = 0; l < 16; ++l) acc[l] += xp[l] * wp[l];
            continue;
          }
          const float* xp =
              a.x + n * xs.image + ib * xs.group + id * xs.depth + ih * xs.row + iw * xs.pixel;
          const float* wp = a.filter_tap(ob, ib, kd, kh, kw);
          for (int64_t c = 0; c < a.in_per_group; ++c) {
            const float xv = xp[c * xs.channel];
            for (int l = 0; l < 16; ++l) acc[l] += xv * wp[c * 16 + l];
          }
        }
  finish_block(a, n, ob, row, ow, acc);
}

// ---- pooling and reorders: one body, two compilations ----

[[gnu::always_inline]] inline void pool_row_body(const Pool2dShape& s, bool is_max, const float* x,
                                                 float* y, int64_t oh) {
  const int64_t ih0 = oh * s.sh - s.ph;
  for (int64_t ow = 0; ow < s.OW; ++ow) {
    const int64_t iw0 = ow * s.sw - s.pw;
    float acc[16];
    const float init = is_max ? -std::numeric_limits<float>::infinity() : 0.f;
    for (int l = 0; l < 16; ++l) acc[l] = init;
    int64_t count = 0;
    for (int64_t kh = 0; kh < s.KH; ++kh) {
      const int64_t ih = ih0 + kh * s.dh;
      if (ih < 0 || ih >= s.H) continue;
      for (int64_t kw = 0; kw < s.KW; ++kw) {
        const int64_t iw = iw0 + kw * s.dw;
        if (iw < 0 || iw >= s.W) continue;
        const float* xp = x + (ih * s.W + iw) * 16;
        ++count;
        if (is_max)  // NaN wins, as in MaxPool
          for (int l = 0; l < 16; ++l) acc[l] = (xp[l] > acc[l] || xp[l] != xp[l]) ? xp[l] : acc[l];
        else
          for (int l = 0; l < 16; ++l) acc[l] += xp[l];
      }
    }
    float* yp = y + (oh * s.OW + ow) * 16;
    if (is_max) {
      // A window entirely in the padding has no element; it cannot occur for
      // valid pads (pad < kernel), but keep the padded-lanes-zero invariant.
      for (int l = 0; l < 16; ++l) yp[l] = count ? acc[l] : 0.f;
    } else {
      const int64_t div = pool_divisor(s, ih0, iw0, count);
      const float inv = div > 0 ? 1.f / float(div) : 0.f;
      for (int l = 0; l < 16; ++l) yp[l] = acc[l] * inv;
    }
  }
}

void pool_row_generic(const Pool2dShape& s, bool is_max, const float* x, float* y, int64_t oh) {
  pool_row_body(s, is_max, x, y, oh);
}

[[gnu::always_inline]] inline void gap_body(int64_t HW, const float* x, float* y) {
  float acc[16] = {};
  for (int64_t p = 0; p < HW; ++p)
    for (int l = 0; l < 16; ++l) acc[l] += x[p * 16 + l];
  const float inv = HW > 0 ? 1.f / float(HW) : 0.f;
  for (int l = 0; l < 16; ++l) y[l] = acc[l] * inv;
}

void gap_generic(int64_t HW, const float* x, float* y) { gap_body(HW, x, y); }

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void gap_avx512(int64_t HW, const float* x, float* y) {
  gap_body(HW, x, y);
}
__attribute__((target("avx2,fma"))) void gap_avx2(int64_t HW, const float* x, float* y) {
  gap_body(HW, x, y);
}
#endif

void pool2d(const Pool2dShape& s, bool is_max, const float* x, float* y, ThreadPool* pool) {
  const int64_t planes = s.N * blocks(s.C);
  auto rows = [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t p = r / s.OH, oh = r % s.OH;
      const float* xp = x + p * s.H * s.W * 16;
      float* yp = y + p * s.OH * s.OW * 16;
#if defined(__x86_64__)
      if (g_isa == Isa::kAvx512) {
        pool_row_avx512(s, is_max, xp, yp, oh);
        continue;
      }
      if (g_isa == Isa::kAvx2) {
        pool_row_avx2(s, is_max, xp, yp, oh);
        continue;
      }
#endif
      pool_row_generic(s, is_max, xp, yp, oh);
    }
  };
  const double cost = double(s.OW * s.KH * s.KW * 16);
  if (pool)
    pool->parallel_for(planes * s.OH, cost, rows);
  else
    rows(0, planes * s.OH);
}

// Filters up to this size are read from L2 by every chunk of pixels (half
// the 1 MiB L2 of current x86 server cores; the input chunk and output need
// the rest).
constexpr double kFiltersInL2 = 512.0 * 1024.0;

// One axis of a zero-bordered copy: buffer position j holds input position
// lo + j (zero outside [0, in)), for `size` positions. It spans only the
// taps that touch the input from some output position: [first, last] (see
// live_taps); the others would read border only, and the kernels skip them
// (ConvArgs::unpadded), so DeepLab's dilation-36 layer on a 14 x 14 plane
// copies the plane itself, not a plane padded by 36 on every side (29 times
// its size).
struct BorderAxis {
  int64_t lo = 0, size = 0;
  int64_t first = 0;  // the first live tap: the kernels' new leading pad is first * d
};

// The taps [first, last] of a k-tap window (stride s, leading pad p,
// dilation d) that land inside [0, in) for some of `out` output positions;
// first > last when none does.
void live_taps(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t* first,
               int64_t* last) {
  int64_t a = 0, b = k - 1;
  while (a < k && (a * d - p >= in || a * d - p + (out - 1) * s < 0)) ++a;
  while (b >= a && (b * d - p >= in || b * d - p + (out - 1) * s < 0)) --b;
  *first = a;
  *last = b;
}

BorderAxis border_axis(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  int64_t first = 0, last = 0;
  live_taps(out, in, k, s, p, d, &first, &last);
  if (first > last) first = last = 0;  // no tap touches the input: any one (all zero)
  return {first * d - p, (out - 1) * s + (last - first) * d + 1, first};
}

// The columns of a bordered convolution's rows (geometry `u` before the
// bordering) cut where their live column taps change, when running each
// part with exactly its taps is estimated cheaper than tiles of `width`
// running the union of their pixels' taps; else empty. A tile of T pixels
// and k columns of taps costs about k (T + 3): each tap's filter loads and
// loop weigh about three pixels. An ordinary 3x3 with pads 1 keeps its full
// tiles (its two edge pixels would be one-pixel tiles); dilated layers on
// small planes, whose pixels read few of their taps, are cut.
std::vector<ColumnSegment> column_segments(const Conv2dShape& u, int64_t width) {
  std::vector<ColumnSegment> segs;
  for (int64_t ow = 0; ow < u.OW; ++ow) {
    int64_t k0 = 0, k1 = 0;
    tap_range(ow * u.sw - u.pw, u.KW, u.dw, u.W, &k0, &k1);
    if (k1 < k0) k1 = k0;
    if (!segs.empty() && segs.back().kw0 == k0 && segs.back().kw1 == k1)
      segs.back().ow1 = ow + 1;
    else
      segs.push_back({ow, ow + 1, k0, k1});
  }
  auto tiles_cost = [&](int64_t ow0, int64_t ow1, auto&& taps) {
    int64_t c = 0;
    for (int64_t ow = ow0; ow < ow1; ow += width) {
      const int64_t t = std::min(width, ow1 - ow);
      c += taps(ow, ow + t) * (t + 3);
    }
    return c;
  };
  // The union of the live taps of pixels [b, e), as one tile runs them.
  auto union_taps = [&](int64_t b, int64_t e) {
    int64_t k0 = u.KW, k1 = 0;
    for (const ColumnSegment& g : segs)
      if (g.ow0 < e && g.ow1 > b && g.kw1 > g.kw0)
        k0 = std::min(k0, g.kw0), k1 = std::max(k1, g.kw1);
    return k1 > k0 ? k1 - k0 : int64_t(0);
  };
  int64_t cut = 0;
  for (const ColumnSegment& g : segs)
    cut += tiles_cost(g.ow0, g.ow1, [&](int64_t, int64_t) { return g.kw1 - g.kw0; });
  if (segs.size() < 2 || cut >= tiles_cost(0, u.OW, union_taps)) segs.clear();
  return segs;
}

// Copies x (blocked, or plain when !s.input_blocked) into a per-thread buffer
// with zero borders wide enough for every live tap of `s`, and rewrites `s`
// to describe it (its pads become the offsets of the first live taps).
// Returns the buffer, which the calling thread keeps for the next call.
const float* zero_bordered(Conv2dShape& s, const float* x, ThreadPool* pool) {
  const BorderAxis bd = border_axis(s.OD, s.D, s.KD, s.sd, s.pd, s.dd);
  const BorderAxis bh = border_axis(s.OH, s.H, s.KH, s.sh, s.ph, s.dh);
  const BorderAxis bw = border_axis(s.OW, s.W, s.KW, s.sw, s.pw, s.dw);
  const int64_t Dp = bd.size, Hp = bh.size, Wp = bw.size;
  // A pixel is one block of 16 channels, or one value of a plain plane; a
  // plane here is one depth slice of one block or channel.
  const int64_t lanes = s.input_blocked ? 16 : 1;
  const int64_t planes = s.N * (s.input_blocked ? blocks(s.C) : s.C) * Dp;
  static thread_local HostVector<float> buf;
  if (buf.size() < size_t(planes * Hp * Wp * lanes)) buf.resize(size_t(planes * Hp * Wp * lanes));
  float* out = buf.data();
  const int64_t D = s.D, H = s.H, W = s.W;
  // The buffer columns that hold input columns: [c0, c1).
  const int64_t c0 = std::clamp<int64_t>(-bw.lo, 0, Wp),
                c1 = std::clamp<int64_t>(W - bw.lo, c0, Wp);
  for_range(pool, planes, double(Hp * Wp * lanes), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      float* d = out + p * Hp * Wp * lanes;
      const int64_t id = p % Dp + bd.lo;
      if (id < 0 || id >= D) {
        std::memset(d, 0, size_t(Hp * Wp * lanes) * sizeof(float));
        continue;
      }
      const float* src = x + ((p / Dp) * D + id) * H * W * lanes;
      for (int64_t h = 0; h < Hp; ++h) {
        float* row = d + h * Wp * lanes;
        const int64_t ih = h + bh.lo;
        if (ih < 0 || ih >= H) {
          std::memset(row, 0, size_t(Wp * lanes) * sizeof(float));
          continue;
        }
        std::memset(row, 0, size_t(c0 * lanes) * sizeof(float));
        std::memcpy(row + c0 * lanes, src + (ih * W + c0 + bw.lo) * lanes,
                    size_t((c1 - c0) * lanes) * sizeof(float));
        std::memset(row + c1 * lanes, 0, size_t((Wp - c1) * lanes) * sizeof(float));
      }
    }
  });
  s.D = Dp, s.H = Hp, s.W = Wp;
  s.pd = bd.first * s.dd, s.ph = bh.first * s.dh, s.pw = bw.first * s.dw;
  return out;
}

}  // namespace

bool fast_path_available() { return g_isa != Isa::kPortable; }

bool set_fast_path_enabled(bool on) {
  const bool was = fast_path_available();
  g_isa = on ? cpu_isa() : Isa::kPortable;
  return was;
}

Isa set_kernel_isa(Isa want) {
  const Isa was = g_isa;
  g_isa = std::min(want, cpu_isa());
  return was;
}

const char* kernel_name() { return isa_name(g_isa); }

Isa conv_kernel_isa() { return g_isa; }

void conv_row(const ConvArgs& a, int64_t n, int64_t ob0, int64_t nb, int64_t oh, int64_t ow0,
              int64_t ow1) {
#if defined(__x86_64__)
  if (g_isa == Isa::kAvx512) return conv_row_avx512(a, n, ob0, nb, oh, ow0, ow1);
  if (g_isa == Isa::kAvx2) return conv_row_avx2(a, n, ob0, nb, oh, ow0, ow1);
#endif
  for (int64_t ob = ob0; ob < ob0 + nb; ++ob)
    for (int64_t ow = ow0; ow < ow1; ++ow) conv_pixel_generic(a, n, ob, oh, ow);
}

// ---- filters ----

PackedFilter::PackedFilter(const float* w, const Conv2dShape& s)
    : M_(s.M),
      C_(s.C),
      KD_(s.KD),
      KH_(s.KH),
      KW_(s.KW),
      group_(s.group),
      input_blocked_(s.input_blocked) {
  check(s.M > 0 && s.C > 0 && s.KD > 0 && s.KH > 0 && s.KW > 0, "blocked conv: empty filter");
  // The taps in W's order: (kd, kh, kw), as the dense tiles walk them.
  const int64_t taps = s.KD * s.KH * s.KW;
  if (s.depthwise()) {
    check(s.group == s.C && s.group == s.M && s.input_blocked,
          "blocked conv: grouped convolution must be depthwise (group ", s.group, ", C ", s.C,
          ", M ", s.M, ")");
    check(s.KD == 1, "blocked conv: a depthwise convolution must be 2-D");
    data_.assign(size_t(blocks(s.C) * taps * 16), 0.f);
    for (int64_t c = 0; c < s.C; ++c)
      for (int64_t t = 0; t < taps; ++t)
        data_[size_t(((c / 16) * taps + t) * 16 + c % 16)] = w[c * taps + t];
    return;
  }
  check(s.group == 1, "blocked conv: group ", s.group, " is neither 1 nor depthwise");
  // Input channels per group of the kernel's channel loop: a block, or all
  // channels of a plain input.
  const int64_t ci = s.input_blocked ? 16 : s.C;
  const int64_t ng = s.input_blocked ? blocks(s.C) : 1;
  const int64_t mb = blocks(s.M);
  data_.assign(size_t(mb * ng * taps * ci * 16), 0.f);
  // In the order of the packed data: the writes stream, and the reads of one
  // (block, group) stay within 16 rows of w (a ResNet-50 took 80 ms less to
  // pack than in w's order).
  float* d = data_.data();
  for (int64_t b = 0; b < mb; ++b)
    for (int64_t g = 0; g < ng; ++g)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t cl = 0; cl < ci; ++cl, d += 16) {
          const int64_t c = g * ci + cl;
          if (c >= s.C) continue;
          for (int64_t mo = 0; mo < 16 && b * 16 + mo < s.M; ++mo)
            d[mo] = w[((b * 16 + mo) * s.C + c) * taps + t];
        }
}

bool PackedFilter::matches(const Conv2dShape& s) const {
  return !data_.empty() && M_ == s.M && C_ == s.C && KD_ == s.KD && KH_ == s.KH && KW_ == s.KW &&
         group_ == s.group && input_blocked_ == s.input_blocked;
}

// ---- convolution ----

void conv2d(const Conv2dShape& shape, const PackedFilter& w, const float* x, const float* bias,
            const float* residual, const ActivationSpec& act, float* y, ThreadPool* pool) {
  check(w.matches(shape), "blocked conv: packed filter does not match the convolution");
  check(!shape.depthwise() || (shape.D == 1 && shape.OD == 1),
        "blocked conv: a depthwise convolution must be 2-D");
  // A 1x1, stride 1, unpadded convolution maps pixel i to pixel i: the image
  // is one long row, so every register tile is full width (7x7 planes would
  // otherwise run as seven half-empty tiles).
  Conv2dShape s = shape;
  if (s.KD == 1 && s.KH == 1 && s.KW == 1 && s.sd == 1 && s.sh == 1 && s.sw == 1 && s.pd == 0 &&
      s.ph == 0 && s.pw == 0 && s.OD == s.D && s.OH == s.H && s.OW == s.W) {
    s.W = s.OW = s.D * s.H * s.W;
    s.D = s.OD = s.H = s.OH = 1;
  }
  // Border pixels, whose taps leave the input, run one at a time with clipped
  // taps, several times slower than a register tile. Copying the input into a
  // zero-bordered buffer costs one pass over it: next to nothing for a dense
  // convolution (C x taps FMAs per input value), so it always does; a
  // depthwise one is itself about one pass over memory, so it copies only on
  // small planes, where border pixels are a large share of each row, and
  // only at stride 1: at stride 2 the input is four times the output, and
  // the copy cost more than the border pixels it saved (MobileNetV2's
  // 192 x 28 x 28 layer: 31 -> 18.5 us without it).
#if defined(__x86_64__)
  const bool dw_rows = g_isa != Isa::kPortable && depthwise_rows_supported(s);
#else
  const bool dw_rows = false;
#endif
  const Conv2dShape unpadded = s;  // the bordering below changes the geometry
  bool bordered = false;
  if (g_isa != Isa::kPortable && !dw_rows) {
    int64_t lo = 0, hi = 0, rlo = 0, rhi = 0, dlo = 0, dhi = 0;
    interior(s.OW, s.W, s.KW, s.sw, s.pw, s.dw, &lo, &hi);
    interior(s.OH, s.H, s.KH, s.sh, s.ph, s.dh, &rlo, &rhi);
    interior(s.OD, s.D, s.KD, s.sd, s.pd, s.dd, &dlo, &dhi);
    const int64_t border = s.OW - (hi - lo);
    const bool padded = border > 0 || rhi - rlo < s.OH || dhi - dlo < s.OD;
    // A plain input (a network's RGB stem) is copied only where each of its
    // values meets many FMAs: ResNet's 7x7 x 64 stem gained 3.5%, MobileNetV2's
    // 3x3 x 32 one lost 40% at two threads (its copy is as long as its FMAs).
    // A blocked one when its border pixels, at about twice a tiled pixel's
    // time, would cost more than the copy: ~0.02 ns a multiply-add against
    // ~0.1 ns a copied value. A strided layer with few channels has one
    // border row and column, and its copy cost more than they did (RegNetY's
    // 16-channel groups at stride 2).
    const double border_pixels =
        double(s.OD * s.OH * s.OW) - double((dhi - dlo) * (rhi - rlo) * (hi - lo));
    const double border_ns = border_pixels * double(s.M * s.C * s.KD * s.KH * s.KW) * 0.02;
    const double copy_ns = double(s.D * s.H * s.W * blocks(s.C) * 16) * 0.1;
    const bool worth = s.input_blocked ? border_ns > copy_ns
                                       : s.M * s.KD * s.KH * s.KW >= 256 * s.sd * s.sh * s.sw;
    if (s.depthwise() ? s.sw == 1 && border * 16 > s.OW : padded && worth)
      x = zero_bordered(s, x, pool), bordered = true;
  }
  ConvArgs a;
  a.s = &s;
  a.w = w.data();
  a.x = x;
  a.bias = bias;
  a.residual = residual;
  a.act = act;
  a.y = y;
  a.unpadded = bordered ? &unpadded : nullptr;
  std::vector<ColumnSegment> segments;
  if (bordered) segments = column_segments(unpadded, conv_tile_width(g_isa));
  if (!segments.empty()) a.segments = &segments;
  a.in_groups = s.input_blocked ? blocks(s.C) : 1;
  a.in_per_group = s.input_blocked ? 16 : s.C;
  const int64_t plane = s.H * s.W;
  if (s.input_blocked)
    a.xs = {blocks(s.C) * s.D * plane * 16, s.D * plane * 16, s.W * 16, 16, 1, plane * 16};
  else
    a.xs = {s.C * s.D * plane, 0, s.W, 1, s.D * plane, plane};
  // A bordered input holds every live tap of every pixel: no pixel needs
  // the one-at-a-time border path (its tiles still run only live taps).
  if (bordered)
    a.ow_lo = 0, a.ow_hi = s.OW;
  else
    interior(s.OW, s.W, s.KW, s.sw, s.pw, s.dw, &a.ow_lo, &a.ow_hi);
  const int64_t mb = blocks(s.M);
  const int64_t taps = s.KD * s.KH * s.KW;
  const int64_t out_rows = s.OD * s.OH;  // of one image (see Conv2dShape)
  const double pixel_cost =
      double(taps) * 2.0 * 16.0 * double(s.depthwise() ? 1 : a.in_groups * a.in_per_group);
#if defined(__x86_64__)
  if (dw_rows) {
    // Work items: (image, block, band of up to 16 rows), so two threads share
    // even a plane with few blocks.
    const int64_t band = 16, bands = (s.OH + band - 1) / band;
    for_range(pool, s.N * mb * bands, pixel_cost * double(std::min(band, s.OH) * s.OW),
              [&](int64_t b, int64_t e) {
                for (int64_t r = b; r < e; ++r) {
                  const int64_t n = r / (mb * bands), ob = (r / bands) % mb, k = r % bands;
                  const int64_t oh0 = k * band, oh1 = std::min(s.OH, (k + 1) * band);
                  if (g_isa == Isa::kAvx2)
                    depthwise_rows_avx2(a, n, ob, oh0, oh1);
                  else
                    depthwise_rows(a, n, ob, oh0, oh1);
                }
              });
    return;
  }
  if (g_isa != Isa::kPortable) {
    const Isa isa = g_isa;
    const int64_t groups = conv_out_block_groups(s, isa);  // of output blocks
    const int64_t width = conv_tile_width(isa);
    const int64_t row_tiles = (s.OW + width - 1) / width;
    const int64_t tiles = s.N * out_rows * row_tiles;  // of the output, in (image, row, tile) order
    // Tiles a thread computes back to back for one group: long rows are cut
    // so one chunk of input stays in L1 while the groups pass.
    const int64_t chunk = s.OW > 8 * kTileWidth ? 4 * kTileWidth / width : row_tiles;
    // Which operand a thread keeps in cache. With the group outermost, one
    // group's filters stay in L1/L2 while every pixel streams past, so the
    // input is read once per group; with the group innermost, one chunk of
    // input stays in L1 while every group's filters stream from L2. The
    // second reads the input once, and wins whenever all filters fit in L2
    // beside the input chunk.
    const double filter_bytes =
        double(mb * 16) * double(s.depthwise() ? 1 : s.C) * double(taps) * sizeof(float);
    const bool group_inner = !s.depthwise() && groups > 1 && filter_bytes <= kFiltersInL2;
    const int64_t per_group = conv_out_blocks_per_group(s, isa);
    // Output blocks [b0, b1) x output tiles [t0, t1), the blocks in groups of
    // per_group from b0, in the cache order above.
    auto part = [&](int64_t b0, int64_t b1, int64_t t0, int64_t t1) {
      auto row = [&](const ConvArgs& args, int64_t n, int64_t ob, int64_t oh, int64_t ow0,
                     int64_t ow1) {
        conv_row(args, n, ob, std::min(per_group, b1 - ob), oh, ow0, ow1);
      };
      auto chunks = [&](auto&& f) {
        for (int64_t t = t0; t < t1;) {
          const int64_t r = t / row_tiles, end = std::min({t1, (r + 1) * row_tiles, t + chunk});
          f(r / out_rows, r % out_rows, (t - r * row_tiles) * width,
            std::min(s.OW, (end - r * row_tiles) * width));
          t = end;
        }
      };
      if (group_inner) {
        chunks([&](int64_t n, int64_t oh, int64_t ow0, int64_t ow1) {
          for (int64_t ob = b0; ob < b1; ob += per_group) row(a, n, ob, oh, ow0, ow1);
        });
        return;
      }
      // Group by group, each one's tiles fetching the next one's filters
      // (ResNet-50's layer4 1x1, filters cold: 704 -> 589 us; the whole
      // model -3% at one thread, -2% at two).
      ConvArgs own = a;
      PrefetchStream ahead;
      own.prefetch = &ahead;
      const int64_t steps = (t1 - t0) * a.in_groups * taps;
      for (int64_t ob = b0; ob < b1; ob += per_group) {
        ahead = PrefetchStream{};
        // (Only dense tiles read the stream; depthwise filters are small.)
        if (const int64_t next = ob + per_group; !s.depthwise() && next < b1) {
          const int64_t nb = std::min(per_group, b1 - next);
          ahead = PrefetchStream::over(a.filter_tap(next, 0, 0, 0, 0),
                                       nb * a.in_groups * taps * a.in_per_group * 16 * 4, steps);
        }
        chunks([&](int64_t n, int64_t oh, int64_t ow0, int64_t ow1) {
          row(own, n, ob, oh, ow0, ow1);
        });
      }
    };
    // One static part per thread, not dynamically claimed items: a thread
    // then takes the same pixels in every layer of a chain, so the input it
    // reads is mostly what it wrote itself (in its own L2), not lines held
    // by the other core. Split by pixels (every thread reads all filters)
    // unless the filters outweigh the input, as in late layers with few
    // pixels and wide channels; then by output blocks (every thread reads
    // the whole input). Measured at two threads against dynamically claimed
    // (group, chunk) items: MobileNetV2 -10%, ResNet-50 -5%.
    const int64_t parts = pool ? pool->num_threads() : 1;
    const double input_bytes = double(s.N * a.in_groups * a.in_per_group * s.D * plane) * 4.0;
    const bool by_pixels = filter_bytes <= input_bytes || mb < parts;
    const double total_cost = pixel_cost * double(s.N * out_rows * s.OW) * double(mb);
    for_range(pool, parts, total_cost / double(parts), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        if (by_pixels)
          part(0, mb, tiles * p / parts, tiles * (p + 1) / parts);
        else  // by blocks, not groups: an odd group count still splits evenly
          part(mb * p / parts, mb * (p + 1) / parts, 0, tiles);
      }
    });
    return;
  }
#endif
  for_range(pool, s.N * mb * out_rows, pixel_cost * double(s.OW), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / (mb * out_rows), ob = (r / out_rows) % mb, row = r % out_rows;
      for (int64_t ow = 0; ow < s.OW; ++ow) conv_pixel_generic(a, n, ob, row, ow);
    }
  });
}

// ---- reorders and pools ----

void to_blocked(const float* x, int64_t N, int64_t C, int64_t HW, float* y, ThreadPool* pool) {
  const int64_t cb = blocks(C);
  for_range(pool, N * cb, double(HW * 16), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / cb, blk = r % cb;
      const int64_t c0 = blk * 16, nc = std::min<int64_t>(16, C - c0);
      float* yp = y + r * HW * 16;
      const float* xp = x + (n * C + c0) * HW;
      for (int64_t p = 0; p < HW; ++p) {
        float* d = yp + p * 16;
        for (int64_t l = 0; l < nc; ++l) d[l] = xp[l * HW + p];
        for (int64_t l = nc; l < 16; ++l) d[l] = 0.f;
      }
    }
  });
}

void from_blocked(const float* x, int64_t N, int64_t C, int64_t HW, float* y, ThreadPool* pool) {
  const int64_t cb = blocks(C);
  for_range(pool, N * cb, double(HW * 16), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / cb, blk = r % cb;
      const int64_t c0 = blk * 16, nc = std::min<int64_t>(16, C - c0);
      const float* xp = x + r * HW * 16;
      float* yp = y + (n * C + c0) * HW;
      // A band of pixels at a time, so each channel's pass reads the band's
      // blocks from L1: one pass per channel over the whole plane reads the
      // block (16 floats a pixel) back from memory once per channel when it
      // outgrows the cache.
      constexpr int64_t kBand = 64;
      for (int64_t p0 = 0; p0 < HW; p0 += kBand) {
        const int64_t p1 = std::min(HW, p0 + kBand);
        for (int64_t l = 0; l < nc; ++l)
          for (int64_t p = p0; p < p1; ++p) yp[l * HW + p] = xp[p * 16 + l];
      }
    }
  });
}

namespace {

// Channels-last [N, HW, C] to blocked (to_blocked) or back: each pixel's
// channels of one block are a run of up to 16 floats on either side. Work
// items: (image, band of pixels), every block of the band's pixels.
void channels_last_copy(bool to_blocked, const float* x, int64_t N, int64_t C, int64_t HW, float* y,
                        ThreadPool* pool) {
  const int64_t cb = blocks(C);
  const int64_t band = 64, bands = (HW + band - 1) / band;
  for_range(pool, N * bands, double(band * cb * 16), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / bands, p0 = (r % bands) * band, p1 = std::min(HW, p0 + band);
      for (int64_t blk = 0; blk < cb; ++blk) {
        const int64_t c0 = blk * 16, nc = std::min<int64_t>(16, C - c0);
        for (int64_t p = p0; p < p1; ++p) {
          const int64_t last = (n * HW + p) * C + c0, block = ((n * cb + blk) * HW + p) * 16;
          if (to_blocked) {
            for (int64_t l = 0; l < nc; ++l) y[block + l] = x[last + l];
            for (int64_t l = nc; l < 16; ++l) y[block + l] = 0.f;
          } else {
            for (int64_t l = 0; l < nc; ++l) y[last + l] = x[block + l];
          }
        }
      }
    }
  });
}

}  // namespace

void to_blocked_channels_last(const float* x, int64_t N, int64_t C, int64_t HW, float* y,
                              ThreadPool* pool) {
  channels_last_copy(true, x, N, C, HW, y, pool);
}

void from_blocked_channels_last(const float* x, int64_t N, int64_t C, int64_t HW, float* y,
                                ThreadPool* pool) {
  channels_last_copy(false, x, N, C, HW, y, pool);
}

void max_pool2d(const Pool2dShape& s, const float* x, float* y, ThreadPool* pool) {
  pool2d(s, true, x, y, pool);
}

void avg_pool2d(const Pool2dShape& s, const float* x, float* y, ThreadPool* pool) {
  pool2d(s, false, x, y, pool);
}

void global_avg_pool(int64_t N, int64_t C, int64_t HW, const float* x, float* y, ThreadPool* pool) {
  const int64_t planes = N * blocks(C);
  for_range(pool, planes, double(HW * 16), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
#if defined(__x86_64__)
      if (g_isa == Isa::kAvx512) {
        gap_avx512(HW, x + p * HW * 16, y + p * 16);
        continue;
      }
      if (g_isa == Isa::kAvx2) {
        gap_avx2(HW, x + p * HW * 16, y + p * 16);
        continue;
      }
#endif
      gap_generic(HW, x + p * HW * 16, y + p * 16);
    }
  });
}

}  // namespace tessera::linalg::nchwc
