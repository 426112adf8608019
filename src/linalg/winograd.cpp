// The Winograd F(4x4, 3x3) convolution (see winograd.hpp). The input and
// output transforms are written once on 16-lane GCC vectors and compiled for
// AVX-512, AVX2 and the portable baseline (the epilogue.cpp scheme); the 36
// matrix products of a batch of tiles run on the blocked 1x1 kernel.
#include "linalg/winograd.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/error.hpp"
#include "core/host_heap.hpp"
#include "linalg/nchwc_kernel.hpp"

// The 16-lane vector helpers are always inlined into the per-ISA entry
// points, so no vector crosses a call; GCC's note that a 64-byte vector
// argument's ABI depends on AVX-512 concerns calls only.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tessera::linalg::nchwc {

namespace {

// Input pixels per tile side for R output pixels (a 3-tap filter), and the
// points of the tile's transform.
constexpr int64_t in_side(int64_t r) { return r + 2; }
constexpr int64_t points(int64_t r) { return in_side(r) * in_side(r); }

typedef float v16 __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
// The AVX2 build runs each 16-channel block as two 8-lane halves: a tile's
// column of six 16-lane values and its six results would be 24 ymm
// registers, more than AVX2's 16, and spilling them costs the AVX2 input
// transform several times the AVX-512 one's time instead of about twice.
typedef float v8 __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

// The integer vector of a float vector's width.
template <typename V>
using IntVec = std::conditional_t<sizeof(V) == 64, v16i, v8i>;
template <typename V>
constexpr int64_t kLanes = int64_t(sizeof(V) / sizeof(float));

template <typename V = v16>
[[gnu::always_inline]] inline V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename V>
[[gnu::always_inline]] inline void store(float* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

// r = B^T d for one column or row d of an input tile. F(4, 3) takes the
// interpolation points 0, 1, -1, 2, -1/2 and infinity: against the common
// 0, +-1, +-2 they shrink the transformed values (|B| at most 2.5 instead of
// 5, A's largest product 8 x 1/8 instead of 8 x 8 for the point pair 2 and
// -1/2), and the output of a 64-channel layer deviates from a float64
// convolution about 1.6x less (tests/unit/linalg/test_winograd_accuracy.cpp).
// F(2, 3) takes 0, 1, -1 and infinity.
template <int64_t R, typename V>
[[gnu::always_inline]] inline void input_1d(const V* d, V* r) {
  if constexpr (R == 4) {
    r[0] = d[0] - d[3] * 1.5f + (d[1] * 1.5f + (d[4] - d[2] * 2.f));
    r[1] = (d[4] - d[1]) - d[2] * 2.5f - d[3] * .5f;
    r[2] = (d[4] + d[1]) + d[2] * .5f - d[3] * 2.5f;
    r[3] = (d[4] - d[2]) + (d[3] - d[1]) * .5f;
    r[4] = (d[4] - d[2]) + (d[1] - d[3]) * 2.f;
    r[5] = d[5] - d[4] * 1.5f + (d[2] * 1.5f + (d[1] - d[3] * 2.f));
  } else {
    r[0] = d[0] - d[2];
    r[1] = d[1] + d[2];
    r[2] = d[2] - d[1];
    r[3] = d[1] - d[3];
  }
}

// o = A^T m: one column or row of the products back to R outputs.
template <int64_t R, typename V>
[[gnu::always_inline]] inline void output_1d(const V* m, V* o) {
  if constexpr (R == 4) {
    const V a = m[1] + m[2], b = m[1] - m[2];
    o[0] = m[0] + a + (m[3] + m[4]);
    o[1] = b + (m[3] * 2.f - m[4] * .5f);
    o[2] = a + (m[3] * 4.f + m[4] * .25f);
    o[3] = b + (m[3] * 8.f - m[4] * .125f) + m[5];
  } else {
    o[0] = m[0] + m[1] + m[2];
    o[1] = m[1] - m[2] - m[3];
  }
}

// The input and output planes' geometry, in tiles.
struct Geometry {
  int64_t CB, MB, H, W, OH, OW, ph, pw;
  int64_t TH, TW;  // tile rows and columns of one image
};

// Tiles [t0, t1) (in (image, tile row, tile column) order) of every input
// block: tile t's block cb goes to v + cb * vgs + (t - t0) * 16, its points
// vps apart. Pixels outside the input count as zero.
template <int64_t R, typename V>
[[gnu::always_inline]] inline void input_tiles_as(const Geometry& g, const float* x, int64_t t0,
                                                  int64_t t1, float* v, int64_t vgs, int64_t vps) {
  constexpr int64_t kIn = in_side(R), L = kLanes<V>;
  for (int64_t cb = 0; cb < g.CB; ++cb)
    for (int64_t t = t0; t < t1; ++t)
      for (int64_t h = 0; h < 16; h += L) {
        const int64_t n = t / (g.TH * g.TW), th = t / g.TW % g.TH, tw = t % g.TW;
        const float* xp = x + (n * g.CB + cb) * g.H * g.W * 16 + h;
        const int64_t ih0 = th * R - g.ph, iw0 = tw * R - g.pw;
        const bool inside = ih0 >= 0 && iw0 >= 0 && ih0 + kIn <= g.H && iw0 + kIn <= g.W;
        V tmp[kIn * kIn];
        for (int64_t j = 0; j < kIn; ++j) {
          V d[kIn], r[kIn];
          const int64_t iw = iw0 + j;
          for (int64_t i = 0; i < kIn; ++i) {
            const int64_t ih = ih0 + i;
            const bool in = inside || (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W);
            d[i] = in ? load<V>(xp + (ih * g.W + iw) * 16) : V{};
          }
          input_1d<R>(d, r);
          for (int64_t i = 0; i < kIn; ++i) tmp[i * kIn + j] = r[i];
        }
        float* vp = v + cb * vgs + (t - t0) * 16 + h;
        for (int64_t i = 0; i < kIn; ++i) {
          V r[kIn];
          input_1d<R>(tmp + i * kIn, r);
          for (int64_t j = 0; j < kIn; ++j) store(vp + (i * kIn + j) * vps, r[j]);
        }
      }
}

template <typename V>
[[gnu::always_inline]] inline void input_tiles_body(int64_t r, const Geometry& g, const float* x,
                                                    int64_t t0, int64_t t1, float* v, int64_t vgs,
                                                    int64_t vps) {
  if (r == 4) return input_tiles_as<4, V>(g, x, t0, t1, v, vgs, vps);
  input_tiles_as<2, V>(g, x, t0, t1, v, vgs, vps);
}

// What follows the output transform for one output block.
struct Epilogue {
  v16 bias;   // zero where absent and in padded lanes
  v16i keep;  // all ones in the lanes of real channels
  ActivationSpec act;
  int64_t valid;  // channels of the block (for a pass activation's padded lanes)
};

template <Activation K, typename V>
[[gnu::always_inline]] inline V activate(V x, V p0, V p1) {
  const V zero{};
  if constexpr (K == Activation::kRelu) return x < zero ? zero : x;  // NaN passes, as in Relu
  if constexpr (K == Activation::kClip) {
    x = x < p0 ? p0 : x;
    return x > p1 ? p1 : x;
  }
  if constexpr (K == Activation::kLeakyRelu) return x < zero ? x * p0 : x;
  return x;
}

// Output block ob of tiles [t0, t1): point k of tile t at m + k * ms + (t -
// t0) * 16. Writes the pixels inside the output plane (y and residual are
// the whole blocked tensors; y may be the residual).
template <int64_t R, Activation K, typename V>
[[gnu::always_inline]] inline void output_tiles_as(const Geometry& g, const float* m, int64_t ms,
                                                   int64_t t0, int64_t t1, int64_t ob,
                                                   const Epilogue& e, const float* residual,
                                                   float* y) {
  using VI = IntVec<V>;
  constexpr int64_t kIn = in_side(R), L = kLanes<V>;
  const V p0 = V{} + e.act.p0, p1 = V{} + e.act.p1;
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t n = t / (g.TH * g.TW), th = t / g.TW % g.TH, tw = t % g.TW;
    const int64_t oh0 = th * R, ow0 = tw * R;
    const int64_t nr = std::min(R, g.OH - oh0), nc = std::min(R, g.OW - ow0);
    const int64_t plane = (n * g.MB + ob) * g.OH * g.OW * 16;
    for (int64_t h = 0; h < 16; h += L) {
      const float* mt = m + (t - t0) * 16 + h;
      V bias, keep_bits;
      std::memcpy(&bias, reinterpret_cast<const float*>(&e.bias) + h, sizeof bias);
      std::memcpy(&keep_bits, reinterpret_cast<const float*>(&e.keep) + h, sizeof keep_bits);
      const VI keep = (VI)keep_bits;
      V rows[R * kIn];
      for (int64_t j = 0; j < kIn; ++j) {
        V col[kIn], o[R];
        for (int64_t i = 0; i < kIn; ++i) col[i] = load<V>(mt + (i * kIn + j) * ms);
        output_1d<R>(col, o);
        for (int64_t r = 0; r < R; ++r) rows[r * kIn + j] = o[r];
      }
      for (int64_t r = 0; r < nr; ++r) {
        V o[R];
        output_1d<R>(rows + r * kIn, o);
        for (int64_t c = 0; c < nc; ++c) {
          const int64_t at = plane + ((oh0 + r) * g.OW + ow0 + c) * 16 + h;
          V val = o[c] + bias;
          if (residual) val += load<V>(residual + at);
          store(y + at, (V)((VI)activate<K>(val, p0, p1) & keep));
        }
      }
    }
    // A pass activation (Sigmoid, ...) over the rows' pixels just stored.
    if (is_pass_activation(e.act.kind))
      for (int64_t r = 0; r < nr; ++r)
        apply_activation_blocked(e.act, y + plane + ((oh0 + r) * g.OW + ow0) * 16, nc, e.valid);
  }
}

template <int64_t R, typename V>
[[gnu::always_inline]] inline void output_tiles_in(const Geometry& g, const float* m, int64_t ms,
                                                   int64_t t0, int64_t t1, int64_t ob,
                                                   const Epilogue& e, const float* residual,
                                                   float* y) {
  switch (e.act.kind) {
    case Activation::kNone:
      return output_tiles_as<R, Activation::kNone, V>(g, m, ms, t0, t1, ob, e, residual, y);
    case Activation::kRelu:
      return output_tiles_as<R, Activation::kRelu, V>(g, m, ms, t0, t1, ob, e, residual, y);
    case Activation::kClip:
      return output_tiles_as<R, Activation::kClip, V>(g, m, ms, t0, t1, ob, e, residual, y);
    case Activation::kLeakyRelu:
      return output_tiles_as<R, Activation::kLeakyRelu, V>(g, m, ms, t0, t1, ob, e, residual, y);
    default:  // pass activations: stored as they are, then a pass per row
      return output_tiles_as<R, Activation::kNone, V>(g, m, ms, t0, t1, ob, e, residual, y);
  }
}

template <typename V>
[[gnu::always_inline]] inline void output_tiles_body(int64_t r, const Geometry& g, const float* m,
                                                     int64_t ms, int64_t t0, int64_t t1, int64_t ob,
                                                     const Epilogue& e, const float* residual,
                                                     float* y) {
  if (r == 4) return output_tiles_in<4, V>(g, m, ms, t0, t1, ob, e, residual, y);
  output_tiles_in<2, V>(g, m, ms, t0, t1, ob, e, residual, y);
}

// Each body compiled three times; input_tiles / output_tiles pick by the
// kernels in use (conv_kernel_isa).
#define TESSERA_WINOGRAD_ENTRIES(suffix, attrs, V)                                           \
  attrs void input_tiles_##suffix(int64_t r, const Geometry& g, const float* x, int64_t t0,  \
                                  int64_t t1, float* v, int64_t vgs, int64_t vps) {          \
    input_tiles_body<V>(r, g, x, t0, t1, v, vgs, vps);                                       \
  }                                                                                          \
  attrs void output_tiles_##suffix(int64_t r, const Geometry& g, const float* m, int64_t ms, \
                                   int64_t t0, int64_t t1, int64_t ob, const Epilogue& e,    \
                                   const float* residual, float* y) {                        \
    output_tiles_body<V>(r, g, m, ms, t0, t1, ob, e, residual, y);                           \
  }

TESSERA_WINOGRAD_ENTRIES(generic, , v16)
#if defined(__x86_64__)
TESSERA_WINOGRAD_ENTRIES(avx512, __attribute__((target("avx512f,fma"))), v16)
TESSERA_WINOGRAD_ENTRIES(avx2, __attribute__((target("avx2,fma"))), v8)
#endif
#undef TESSERA_WINOGRAD_ENTRIES

void input_tiles(int64_t r, const Geometry& g, const float* x, int64_t t0, int64_t t1, float* v,
                 int64_t vgs, int64_t vps) {
#if defined(__x86_64__)
  const Isa isa = conv_kernel_isa();
  if (isa == Isa::kAvx512) return input_tiles_avx512(r, g, x, t0, t1, v, vgs, vps);
  if (isa == Isa::kAvx2) return input_tiles_avx2(r, g, x, t0, t1, v, vgs, vps);
#endif
  input_tiles_generic(r, g, x, t0, t1, v, vgs, vps);
}

void output_tiles(int64_t r, const Geometry& g, const float* m, int64_t ms, int64_t t0, int64_t t1,
                  int64_t ob, const Epilogue& e, const float* residual, float* y) {
#if defined(__x86_64__)
  const Isa isa = conv_kernel_isa();
  if (isa == Isa::kAvx512) return output_tiles_avx512(r, g, m, ms, t0, t1, ob, e, residual, y);
  if (isa == Isa::kAvx2) return output_tiles_avx2(r, g, m, ms, t0, t1, ob, e, residual, y);
#endif
  output_tiles_generic(r, g, m, ms, t0, t1, ob, e, residual, y);
}

// Input blocks per run of the products' register tile. Each point's sum over
// the input channels is cut into runs of this many blocks, each accumulated
// in registers and added to the sum of the runs before it: the rounding of
// one long float chain grows with the channels, and the products are the
// error Winograd's output transform magnifies most. Two blocks (32
// channels) cost one load of the partial sums per 32 x 28 FMAs.
constexpr int64_t kRunBlocks = 2;

// Input blocks [first, end) of run q of a C-block sum.
int64_t run_begin(int64_t q) { return q * kRunBlocks; }
int64_t run_end(int64_t q, int64_t CB) { return std::min(CB, (q + 1) * kRunBlocks); }
int64_t runs(int64_t CB) { return (CB + kRunBlocks - 1) / kRunBlocks; }

// Tiles per batch: as many as keep buffers of `bytes_per_tile` within L2
// beside the filters streaming through, split evenly: the filters are read
// once per batch, and a small last batch would read them for a few tiles.
int64_t batch_tiles(int64_t tiles, int64_t bytes_per_tile, int64_t budget = 640 * 1024) {
  const int64_t most = std::max<int64_t>(1, budget / bytes_per_tile);
  const int64_t batches = std::max<int64_t>(1, (tiles + most - 1) / most);
  return (tiles + batches - 1) / batches;
}

// The roles of a thread's scratch buffers.
enum Scratch { kTransformedInput, kProducts, kSharedInput, kScratchRoles };

// A buffer of at least `n` floats for `role` that the calling thread keeps
// for its next convolution. (Declared here, not in the caller, so a pool
// worker that asks passes through the declaration: a block-scope
// thread_local named from a lambda on another thread is never constructed
// there, and its memory was never freed.)
float* scratch(Scratch role, int64_t n) {
  static thread_local HostVector<float> bufs[kScratchRoles];
  HostVector<float>& buf = bufs[role];
  if (buf.size() < size_t(n)) buf.resize(size_t(n));
  return buf.data();
}

}  // namespace

bool winograd_supported(const Conv2dShape& s) {
  return s.group == 1 && s.input_blocked && s.KH == 3 && s.KW == 3 && s.sh == 1 && s.sw == 1 &&
         s.dh == 1 && s.dw == 1;
}

int64_t winograd_tile(int64_t C, int64_t M, bool allow_4x4) {
  // Fewer input channels, or one output block: the transforms outweigh the
  // products saved. Between 16 and 32 outputs (the DB text detector's
  // 96 -> 24 layers on 160 x 160) the AVX-512 products still gain, 1.2-1.3x
  // by CPU time (BM_ConvWinograd/96/160/24/1/0/2 against
  // BM_ConvBlocked/96/160/24/3/1/1/0/0); the AVX2 ones measured even with
  // the direct kernel, so those layers stay direct there.
  if (C < 32 || M <= 16) return 0;
  if (M < 32 && conv_kernel_isa() != Isa::kAvx512) return 0;
  // The transformed filters are read once per batch of tiles: F(4, 3)'s
  // (36 points) where they are small enough to stay cached, F(2, 3)'s (16)
  // up to 256 x 256 channels, whose planes (14 x 14 in ResNet-50) hold too
  // few 4x4 tiles to pay for 36 points of filters from memory.
  if (allow_4x4 && C * M <= 128 * 128) return 4;
  if (C * M <= 256 * 256) return 2;
  return 0;
}

WinogradFilter::WinogradFilter(const float* w, int64_t M, int64_t C, int64_t tile)
    : M_(M), C_(C), tile_(tile) {
  check(M > 0 && C > 0, "winograd conv: empty filter (M ", M, ", C ", C, ")");
  check(tile == 2 || tile == 4, "winograd conv: tile must be 2 or 4, got ", tile);
  // G, the filter transform of each tile's interpolation points (input_1d).
  static constexpr double kG4[6][3] = {{1, 0, 0},
                                       {-1 / 3., -1 / 3., -1 / 3.},
                                       {1 / 3., -1 / 3., 1 / 3.},
                                       {1 / 15., 2 / 15., 4 / 15.},
                                       {-16 / 15., 8 / 15., -4 / 15.},
                                       {0, 0, 1}};
  static constexpr double kG2[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
  const auto G = tile == 4 ? kG4 : kG2;
  const int64_t side = in_side(tile), MB = blocks(M), CB = blocks(C);
  point_size_ = MB * CB * 16 * 16;
  data_.assign(size_t(points(tile) * point_size_), 0.f);
  // Each point holds its runs of input blocks one after another, each run
  // [MB][its blocks][16 in][16 out]: a packed 1x1 filter over those input
  // channels. Written in the order of a run (output channel innermost).
  for (int64_t mb = 0; mb < MB; ++mb)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t m = mb * 16; m < std::min(M, mb * 16 + 16); ++m) {
        const float* g = w + (m * C + c) * 9;
        double gg[6][3];  // G g
        for (int64_t i = 0; i < side; ++i)
          for (int64_t j = 0; j < 3; ++j)
            gg[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
        const int64_t cb = c / 16, q = cb / kRunBlocks, nb = run_end(q, CB) - run_begin(q);
        const int64_t at = MB * run_begin(q) * 256 +
                           ((m / 16 * nb + cb - run_begin(q)) * 16 + c % 16) * 16 + m % 16;
        for (int64_t i = 0; i < side; ++i)
          for (int64_t j = 0; j < side; ++j)
            data_[size_t((i * side + j) * point_size_ + at)] =
                float(gg[i][0] * G[j][0] + gg[i][1] * G[j][1] + gg[i][2] * G[j][2]);
      }
}

void winograd_conv2d(const Conv2dShape& s, const WinogradFilter& w, const float* x,
                     const float* bias, const float* residual, const ActivationSpec& act, float* y,
                     ThreadPool* pool) {
  check(winograd_supported(s), "winograd conv: not a dense 3x3 stride-1 blocked convolution");
  check(w.M() == s.M && w.C() == s.C, "winograd conv: filter made for M ", w.M(), ", C ", w.C(),
        ", convolution has M ", s.M, ", C ", s.C);
  const int64_t R = w.tile(), kPoints = points(R);
  Geometry g{blocks(s.C),        blocks(s.M),       s.H, s.W, s.OH, s.OW, s.ph, s.pw,
             (s.OH + R - 1) / R, (s.OW + R - 1) / R};
  const int64_t T = s.N * g.TH * g.TW, CB = g.CB, MB = g.MB;
  // The products: a 1x1 blocked convolution per point over a row of tiles.
  Conv2dShape product;
  product.C = s.C;
  product.M = s.M;  // (C is set per run of input blocks)
  const int64_t per_group = conv_out_blocks_per_group(product, conv_kernel_isa());

  // Products and output transform of tiles [t0, t0 + nt), output blocks
  // [b0, b1). Their transformed inputs are at v (block stride vgs, point
  // stride vps, tile t0 first); m is room for [points][MB][nt][16].
  auto finish = [&](const float* v, int64_t vgs, int64_t vps, int64_t t0, int64_t nt, int64_t b0,
                    int64_t b1, float* m) {
    // Register tiles of equal width (16 tiles: 8 + 8, not 14 + 2), each
    // group's filters reused from L1 by every chunk; the next run's filters
    // are fetched while this run's products go.
    const int64_t chunks = (nt + kTileWidth - 1) / kTileWidth;
    const int64_t groups = (b1 - b0 + per_group - 1) / per_group;
    PrefetchStream ahead;
    for (int64_t k = 0; k < kPoints; ++k)
      for (int64_t q = 0; q < runs(CB); ++q) {
        const int64_t c0 = run_begin(q), nb = run_end(q, CB) - c0;
        Conv2dShape sb = product;
        sb.C = nb * 16;  // the run's channels (zero-padded lanes add nothing)
        ConvArgs a = pointwise_row_args(sb, nt, vgs);
        a.prefetch = &ahead;
        a.w = w.point(k) + MB * c0 * 256;
        a.x = v + k * vps + c0 * vgs;
        a.y = m + k * MB * nt * 16;
        a.residual = q > 0 ? a.y : nullptr;  // the runs before, in place
        // The run after this one: the next of this point, or the next point's first.
        const int64_t nk = q + 1 < runs(CB) ? k : k + 1, nq = q + 1 < runs(CB) ? q + 1 : 0;
        const int64_t nc0 = run_begin(nq), nnb = run_end(nq, CB) - nc0;
        ahead = nk < kPoints ? PrefetchStream::over(w.point(nk) + MB * nc0 * 256 + b0 * nnb * 256,
                                                    (b1 - b0) * nnb * 256 * 4, chunks * groups * nb)
                             : PrefetchStream{};
        for (int64_t ob = b0; ob < b1; ob += per_group)
          for (int64_t c = 0; c < chunks; ++c)
            conv_row(a, 0, ob, std::min(per_group, b1 - ob), 0, nt * c / chunks,
                     nt * (c + 1) / chunks);
      }
    for (int64_t ob = b0; ob < b1; ++ob) {
      Epilogue e;
      for (int l = 0; l < 16; ++l) {
        const int64_t c = ob * 16 + l;
        e.bias[l] = bias && c < s.M ? bias[c] : 0.f;
        e.keep[l] = c < s.M ? -1 : 0;
      }
      e.act = act;
      e.valid = s.M - ob * 16;
      output_tiles(R, g, m + ob * nt * 16, MB * nt * 16, t0, t0 + nt, ob, e, residual, y);
    }
  };

  const int64_t parts = pool ? pool->num_threads() : 1;
  const double cost = 2.0 * double(kPoints) * double(T) * double(s.C) * double(s.M);
  // As in conv2d: each thread takes a range of tiles (and reads every
  // filter) unless the filters outweigh the transformed input; then each
  // takes a range of output blocks of every tile.
  const double filter_bytes = double(kPoints * CB * MB * 256) * 4.0;
  const double input_bytes = double(kPoints * CB * T * 16) * 4.0;
  if (filter_bytes <= input_bytes || MB < parts) {
    for_range(pool, parts, cost / double(parts), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const int64_t t1 = T * (p + 1) / parts;
        const int64_t batch = batch_tiles(t1 - T * p / parts, (CB + MB) * kPoints * 16 * 4);
        float* v = scratch(kTransformedInput, kPoints * CB * batch * 16);
        float* m = scratch(kProducts, kPoints * MB * batch * 16);
        for (int64_t t0 = T * p / parts; t0 < t1; t0 += batch) {
          const int64_t nt = std::min(batch, t1 - t0);
          input_tiles(R, g, x, t0, t0 + nt, v, nt * 16, CB * nt * 16);
          finish(v, nt * 16, CB * nt * 16, t0, nt, 0, MB, m);
        }
      }
    });
    return;
  }
  // Every thread reads all transformed tiles: transform them once, shared.
  float* v = scratch(kSharedInput, kPoints * CB * T * 16);
  for_range(pool, T, double(CB * kPoints * 16 * 12), [&](int64_t b, int64_t e) {
    input_tiles(R, g, x, b, e, v + b * 16, T * 16, CB * T * 16);
  });
  for_range(pool, parts, cost / double(parts), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t b0 = MB * p / parts, b1 = MB * (p + 1) / parts;
      // Up to 1 MiB of products (only this part's blocks are touched): each
      // batch reads all of this part's filters again, from memory. One
      // batch for ResNet-50's 256 x 256 layers at one thread (49 tiles)
      // made them 5% faster than two batches within 640 KiB.
      const int64_t batch = batch_tiles(T, (b1 - b0) * kPoints * 16 * 4, 1024 * 1024);
      float* m = scratch(kProducts, kPoints * MB * batch * 16);
      for (int64_t t0 = 0; t0 < T; t0 += batch) {
        const int64_t nt = std::min(batch, T - t0);
        finish(v + t0 * 16, T * 16, CB * T * 16, t0, nt, b0, b1, m);
      }
    }
  });
}

}  // namespace tessera::linalg::nchwc
