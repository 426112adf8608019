// The float GEMM driver (Goto/BLIS loop order): for each NC-wide column
// block and KC-deep slice, B is packed into NR-wide panels; for each MC-tall
// block of A, packed into MR-tall panels that stay in L2, each B panel (512 x
// 64 floats, 128 KB: in L2, not L1) is reused across all of the block's A
// panels by the micro-kernel. alpha is folded into the A packing; beta is
// applied to C once before accumulation (or not at all: with beta == 0 the
// first K slice stores). A may come prepacked (PackedA); for products with
// few rows a non-transposed B is read in place instead of packed.
#include "linalg/gemm.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"
#include "linalg/gemm_microkernel.hpp"

namespace tessera::linalg {

namespace detail {
namespace {

constexpr int kGenericMR = 4;
constexpr int kGenericNR = 16;

void kernel_generic(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                    int64_t m, int64_t n, bool accumulate, const TileEpilogue* te) {
  float acc[kGenericMR][kGenericNR] = {};
  for (int64_t k = 0; k < kc; ++k) {
    for (int i = 0; i < kGenericMR; ++i) {
      const float av = a[i];
      for (int j = 0; j < kGenericNR; ++j) acc[i][j] += av * b[j];
    }
    a += kGenericMR;
    b += ldb;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.f) + acc[i][j];
  if (te) apply_tile_epilogue(*te, c, ldc, m, n);
}

}  // namespace

void apply_tile_epilogue(const TileEpilogue& te, float* c, int64_t ldc, int64_t m, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    const float b = te.bias ? te.bias[i] : 0.f;
    for (int64_t j = 0; j < n; ++j) {
      float v = row[j] + b;
      if (te.residual) v += te.residual[i * te.ldr + j];
      v = v < te.lo ? te.lo : v;
      row[j] = v > te.hi ? te.hi : v;
    }
  }
}

SgemmKernelInfo sgemm_kernel_generic() {
  return {"generic_f32_4x16", kGenericMR, kGenericNR, kernel_generic, nullptr, nullptr};
}

}  // namespace detail

namespace {

using detail::SgemmKernelInfo;

// Tuned on Zen 4 and Zen 5 (1 MB L2) with the 6x64 AVX-512 kernel: a 132x512
// A block (264 KB) and a 512x64 B panel (128 KB) share L2. MC = 132 covers a
// transformer's 128 rows (BERT at sequence 128) in one block, so each B
// panel, prepacked weights included, streams from memory once per K slice
// rather than twice (BERT's 128x3072x768 prepacked: 158 -> 175 GFLOP/s).
constexpr int64_t kKC = 512;
// Within a K slice, the register tile sums runs of this many k at a time,
// each added to C (or to the row vector's sums) before the next: one float
// chain over all of K rounds each step against the whole partial sum, and
// its error grows with K (a 768-deep transformer projection drifted 1.6x
// further from float64 than ONNX Runtime's). A run costs one load and store
// of the tile per 128 x 24 FMAs.
constexpr int64_t kRunK = 128;
constexpr int64_t kMCPanels = 22;  // MC = 22 * MR
constexpr int64_t kNC = 4096;

const SgemmKernelInfo& best_kernel() {
  static const SgemmKernelInfo info = [] {
    SgemmKernelInfo k;
    if (detail::sgemm_kernel_avx512(&k)) return k;
    if (detail::sgemm_kernel_avx2(&k)) return k;
    return detail::sgemm_kernel_generic();
  }();
  return info;
}

// Per-thread packing buffers, 64-byte aligned, grown on demand and kept, so
// steady-state calls do not allocate.
class PackBuffer {
 public:
  ~PackBuffer() { std::free(p_); }
  float* get(size_t n) {
    if (n > cap_) {
      std::free(p_);
      cap_ = 0;  // a failed allocation below must not leave a stale capacity
      size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
      p_ = static_cast<float*>(std::aligned_alloc(64, bytes));
      check_code(p_ != nullptr, ErrorCode::kOutOfMemory, "sgemm: cannot allocate ", bytes,
                 " bytes of packing buffer");
      cap_ = n;
    }
    return p_;
  }

 private:
  float* p_ = nullptr;
  size_t cap_ = 0;
};

// Packs rows [i0, i0+mc) x cols [p0, p0+kc) of op(A), times alpha, into
// MR-tall k-major panels, zero-padding the last panel (with the kernel's own
// packer when it has one).
void pack_a(const SgemmKernelInfo& kern, bool trans, const float* A, int64_t lda, int64_t i0,
            int64_t p0, int64_t mc, int64_t kc, float alpha, float* dst) {
  const int mr = kern.mr;
  for (int64_t ip = 0; ip < mc; ip += mr) {
    const int64_t rows = std::min<int64_t>(mr, mc - ip);
    if (kern.pack_a) {
      const float* src = trans ? A + p0 * lda + i0 + ip : A + (i0 + ip) * lda + p0;
      kern.pack_a(trans, src, lda, rows, kc, alpha, dst);
    } else if (!trans) {
      for (int64_t i = 0; i < rows; ++i) {
        const float* src = A + (i0 + ip + i) * lda + p0;
        for (int64_t k = 0; k < kc; ++k) dst[k * mr + i] = alpha * src[k];
      }
      for (int64_t i = rows; i < mr; ++i)
        for (int64_t k = 0; k < kc; ++k) dst[k * mr + i] = 0.f;
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        const float* src = A + (p0 + k) * lda + i0 + ip;
        float* d = dst + k * mr;
        int64_t i = 0;
        for (; i < rows; ++i) d[i] = alpha * src[i];
        for (; i < mr; ++i) d[i] = 0.f;
      }
    }
    dst += kc * mr;
  }
}

// Packs rows [p0, p0+kc) x cols [j0, j0+nc) of op(B) into NR-wide k-major
// panels (with the kernel's own packer when it has one).
void pack_b(const SgemmKernelInfo& kern, bool trans, const float* B, int64_t ldb, int64_t p0,
            int64_t j0, int64_t kc, int64_t nc, float* dst) {
  const int nr = kern.nr;
  for (int64_t jp = 0; jp < nc; jp += nr) {
    const int64_t cols = std::min<int64_t>(nr, nc - jp);
    if (kern.pack_b) {
      const float* src = trans ? B + (j0 + jp) * ldb + p0 : B + p0 * ldb + j0 + jp;
      kern.pack_b(trans, src, ldb, cols, kc, dst);
    } else if (!trans) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* src = B + (p0 + k) * ldb + j0 + jp;
        float* d = dst + k * nr;
        int64_t j = 0;
        for (; j < cols; ++j) d[j] = src[j];
        for (; j < nr; ++j) d[j] = 0.f;
      }
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        const float* src = B + (j0 + jp + j) * ldb + p0;
        for (int64_t k = 0; k < kc; ++k) dst[k * nr + j] = src[k];
      }
      for (int64_t j = cols; j < nr; ++j)
        for (int64_t k = 0; k < kc; ++k) dst[k * nr + j] = 0.f;
    }
    dst += kc * nr;
  }
}

void scale_c(int64_t m, int64_t n, float beta, float* C, int64_t ldc) {
  if (beta == 1.f) return;
  for (int64_t i = 0; i < m; ++i) {
    float* row = C + i * ldc;
    if (beta == 0.f)
      std::fill(row, row + n, 0.f);
    else
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
  }
}

// One product's operands; A is either packed here per block or prepacked.
struct Operands {
  bool ta, tb;
  float alpha;
  const float* A;
  int64_t lda;
  const PackedA* packed;  // when set, A/lda/ta/alpha are unused
  const float* B;
  const PackedB* packed_b;  // when set, B/ldb/tb are unused
  int64_t ldb;
  float* C;
  int64_t ldc;
  const Epilogue* ep;  // null: none
  // Full-width B panels read in place instead of packed (set by run_sgemm).
  bool direct_b = false;
};

// Up to this many rows of C, a non-transposed B is read in place: each B panel
// would serve too few A panels to repay copying it (a 1x1 convolution with
// few output channels reads as much as it computes).
constexpr int64_t kDirectBMaxRows = 128;

// Rows per block of A: kMCPanels panels, in blocks of equal size, and a
// remainder of at most a quarter block joins the others. Each row block
// streams every K slice of B once more, which a block of a few rows does
// for little work: fasterrcnn's box head (150 x 12544 times 12544 x 1024)
// made a second pass over its 2 MB slices for 18 rows.
int64_t row_block(int64_t m, int64_t mr) {
  const int64_t base = kMCPanels * mr;
  if (m <= base) return base;
  int64_t blocks = (m + base - 1) / base;
  if (4 * (m - (blocks - 1) * base) <= base) --blocks;
  const int64_t rows = (m + blocks - 1) / blocks;
  return (rows + mr - 1) / mr * mr;
}

// Single-threaded C[i0:i0+m, j0:j0+n] (+)= alpha * op(A) op(B); `accumulate`
// says whether C already holds beta * C (else the first K slice stores). The
// epilogue runs on each micro-tile right after its last K slice.
void gemm_block(const SgemmKernelInfo& kern, const Operands& o, int64_t i0, int64_t m, int64_t j0,
                int64_t n, int64_t K, bool accumulate) {
  static thread_local PackBuffer abuf, bbuf;
  const int mr = kern.mr, nr = kern.nr;
  const int64_t mc_max = row_block(m, mr);
  const int64_t nc_max = kNC;
  float* ap = o.packed ? nullptr : abuf.get(size_t(mc_max * kKC));
  float* bp = o.packed_b ? nullptr : bbuf.get(size_t((nc_max + nr) * kKC));
  const int64_t ldc = o.ldc;
  // Bias, residual and Relu/Clip go to the kernel, applied in registers;
  // LeakyRelu and the pass activations (Sigmoid, ...) run as a pass over the stored tile.
  const bool in_kernel_ep =
      o.ep && o.ep->act.kind != Activation::kLeakyRelu && !is_pass_activation(o.ep->act.kind);
  detail::TileEpilogue tile_epilogue{};
  if (in_kernel_ep) {
    const ActivationSpec& a = o.ep->act;
    const float inf = __builtin_inff();
    tile_epilogue = {o.ep->row_bias, o.ep->residual, o.ep->ldr,
                     a.kind == Activation::kClip   ? a.p0
                     : a.kind == Activation::kRelu ? 0.f
                                                   : -inf,
                     a.kind == Activation::kClip ? a.p1 : inf};
  }
  for (int64_t jc = 0; jc < n; jc += nc_max) {
    const int64_t nc = std::min(nc_max, n - jc);
    for (int64_t pc = 0; pc < K; pc += kKC) {
      const int64_t kc = std::min(kKC, K - pc);
      const bool add = accumulate || pc > 0, last = pc + kc >= K;
      const int64_t full = nc / nr * nr;  // columns in whole panels
      // A prepacked B needs no packing here: its panels are read below.
      if (!o.packed_b && !o.direct_b)
        pack_b(kern, o.tb, o.B, o.ldb, pc, j0 + jc, kc, nc, bp);
      else if (!o.packed_b && full < nc)  // only the ragged last panel, which must be zero-padded
        pack_b(kern, o.tb, o.B, o.ldb, pc, j0 + jc + full, kc, nc - full, bp);
      for (int64_t ic = 0; ic < m; ic += mc_max) {
        const int64_t mc = std::min(mc_max, m - ic);
        if (!o.packed) pack_a(kern, o.ta, o.A, o.lda, i0 + ic, pc, mc, kc, o.alpha, ap);
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const float* bpanel = bp + (jr / nr) * kc * nr;
          int64_t bstride = nr;
          if (o.packed_b) {
            bpanel = o.packed_b->panel(pc, j0 + jc + jr);
          } else if (o.direct_b) {
            bpanel = jr < full ? o.B + pc * o.ldb + j0 + jc + jr : bp;
            bstride = jr < full ? o.ldb : nr;
          }
          float* cblock = o.C + (i0 + ic) * ldc + j0 + jc + jr;
          const int64_t ncols = std::min<int64_t>(nr, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const float* apanel =
                o.packed ? o.packed->panel(pc, i0 + ic + ir) : ap + (ir / mr) * kc * mr;
            const int64_t mrows = std::min<int64_t>(mr, mc - ir);
            const int64_t row = i0 + ic + ir, col = j0 + jc + jr;
            const detail::TileEpilogue* te = nullptr;
            detail::TileEpilogue tile_ep;
            if (last && in_kernel_ep) {
              tile_ep = tile_epilogue;
              if (tile_ep.bias) tile_ep.bias += row;
              if (tile_ep.residual) tile_ep.residual += row * tile_ep.ldr + col;
              te = &tile_ep;
            }
            for (int64_t k0 = 0; k0 < kc; k0 += kRunK) {
              const int64_t kr = std::min(kRunK, kc - k0);
              kern.fn(kr, apanel + k0 * mr, bpanel + k0 * bstride, bstride, cblock + ir * ldc, ldc,
                      mrows, ncols, add || k0 > 0, k0 + kr >= kc ? te : nullptr);
            }
            if (last && o.ep && !in_kernel_ep)
              apply_epilogue(*o.ep, row, mrows, col, ncols, o.C, ldc);
          }
        }
      }
    }
  }
}

// M == 1 (a row vector times a matrix, common in decoding): packing B would
// copy as many values as the product reads, so stream B's rows directly.
// Blocks of kRowCols columns, K in runs of kRunK as in gemm_block, each run's
// sums made by the ISA's row-vector kernel (gemm_microkernel.hpp).
constexpr int64_t kRowCols = 256;

void row_run_portable(bool tb, int64_t kr, const float* a, const float* b, int64_t ldb, int64_t n,
                      float* run) {
  if (!tb) {
    for (int64_t j = 0; j < n; ++j) run[j] = 0.f;
    for (int64_t k = 0; k < kr; ++k)
      for (int64_t j = 0; j < n; ++j) run[j] += a[k] * b[k * ldb + j];
    return;
  }
  // kLanes independent partial sums let the compiler vectorise without
  // reassociating a sum.
  constexpr int64_t kLanes = 16;
  const int64_t kv = kr / kLanes * kLanes;
  for (int64_t j = 0; j < n; ++j) {
    const float* r = b + j * ldb;
    float part[kLanes] = {};
    for (int64_t k = 0; k < kv; k += kLanes)
      for (int64_t l = 0; l < kLanes; ++l) part[l] += a[k + l] * r[k + l];
    float s = 0.f;
    for (int64_t l = 0; l < kLanes; ++l) s += part[l];
    for (int64_t k = kv; k < kr; ++k) s += a[k] * r[k];
    run[j] = s;
  }
}

void gemv_row(bool ta, bool tb, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
              int64_t ldb, float beta, float* C, int64_t j0, int64_t j1) {
  scale_c(1, j1 - j0, beta, C + j0, j1 - j0);
  if (K == 0 || alpha == 0.f) return;
  const float* a = A;
  static thread_local HostVector<float> strided;  // op(A) as a contiguous row when A is transposed
  if (ta) {
    strided.resize(size_t(K));
    for (int64_t k = 0; k < K; ++k) strided[size_t(k)] = A[k * lda];
    a = strided.data();
  }
  for (int64_t jb = j0; jb < j1; jb += kRowCols) {
    const int64_t n = std::min(kRowCols, j1 - jb);
    float* c = C + jb;
    for (int64_t k0 = 0; k0 < K; k0 += kRunK) {
      const int64_t kr = std::min(kRunK, K - k0);
      const float* b = tb ? B + jb * ldb + k0 : B + k0 * ldb + jb;
      float run[kRowCols];
      const bool vector = tb ? detail::row_dot_rows_avx512(kr, a + k0, b, ldb, n, run) ||
                                   detail::row_dot_rows_avx2(kr, a + k0, b, ldb, n, run)
                             : detail::row_times_cols_avx512(kr, a + k0, b, ldb, n, run) ||
                                   detail::row_times_cols_avx2(kr, a + k0, b, ldb, n, run);
      if (!vector) row_run_portable(tb, kr, a + k0, b, ldb, n, run);
      for (int64_t j = 0; j < n; ++j) c[j] += alpha * run[j];
    }
  }
}

// M == 1 with a prepacked B: each NR-wide panel is one pass of a row vector
// over kc x NR values (the register tile would compute MR - 1 rows of
// padding). Columns [j0, j1) start on a panel.
void gemv_packed_b(const Operands& o, int64_t K, float beta, int64_t j0, int64_t j1) {
  const PackedB& B = *o.packed_b;
  const int64_t nr = B.kernel().nr;
  check(nr <= 128, "sgemm: panel width ", nr, " exceeds the row-vector product's buffer");
  const float* a = o.A;
  static thread_local HostVector<float> strided;  // op(A) as a contiguous row when A is transposed
  if (o.ta) {
    strided.resize(size_t(K));
    for (int64_t k = 0; k < K; ++k) strided[size_t(k)] = o.A[k * o.lda];
    a = strided.data();
  }
  float* c = o.C + j0;
  scale_c(1, j1 - j0, beta, c, j1 - j0);
  for (int64_t j = j0; j < j1; j += nr) {
    float acc[128] = {};
    for (int64_t pc = 0; pc < K; pc += kKC) {
      const int64_t kc = std::min(kKC, K - pc);
      const float* panel = B.panel(pc, j);
      for (int64_t k0 = 0; k0 < kc; k0 += kRunK) {  // runs, as in gemm_block
        const int64_t kr = std::min(kRunK, kc - k0);
        const float* b = panel + k0 * nr;
        float run[128] = {};
        const bool vector = (nr == 64 && detail::panel_gemv64_avx512(kr, a + pc + k0, b, run)) ||
                            (nr == 16 && detail::panel_gemv16_avx2(kr, a + pc + k0, b, run));
        if (!vector)
          for (int64_t k = 0; k < kr; ++k)
            for (int64_t l = 0; l < nr; ++l) run[l] += a[pc + k0 + k] * b[k * nr + l];
        for (int64_t l = 0; l < nr; ++l) acc[l] += run[l];
      }
    }
    const int64_t n = std::min(nr, j1 - j);
    for (int64_t l = 0; l < n; ++l) o.C[j + l] += o.alpha * acc[l];
    if (o.ep) apply_epilogue(*o.ep, 0, 1, j, n, o.C, o.ldc);
  }
}

// Splits C over threads in MR x NR-aligned blocks and runs gemm_block on each.
void run_sgemm(const SgemmKernelInfo& kern, Operands o, int64_t M, int64_t N, int64_t K, float beta,
               ThreadPool* pool) {
  o.direct_b = !o.packed_b && !o.tb && M <= kDirectBMaxRows;
  if (M == 0 || N == 0) return;
  const bool no_product = K == 0 || o.alpha == 0.f;
  int threads = pool ? pool->num_threads() : 1;
  const double flops = 2.0 * double(M) * double(N) * double(K);
  if (M == 1 && !o.packed && !o.packed_b) {
    auto cols = [&](int64_t b, int64_t e) {
      const int64_t j0 = b * kRowCols, j1 = std::min(N, e * kRowCols);
      gemv_row(o.ta, o.tb, K, o.alpha, o.A, o.lda, o.B, o.ldb, beta, o.C, j0, j1);
      if (o.ep) apply_epilogue(*o.ep, 0, 1, j0, j1 - j0, o.C, o.ldc);
    };
    const int64_t chunks = (N + kRowCols - 1) / kRowCols;
    if (pool && threads > 1 && flops >= 2.0e6)
      pool->parallel_for(chunks, 2.0 * double(kRowCols) * double(K), cols);
    else
      cols(0, chunks);
    return;
  }
  if (M == 1 && o.packed_b && !no_product) {
    const int64_t nr = kern.nr, panels = (N + nr - 1) / nr;
    auto cols = [&](int64_t b, int64_t e) {
      gemv_packed_b(o, K, beta, b * nr, std::min(N, e * nr));
    };
    if (pool && threads > 1 && flops >= 2.0e6)
      pool->parallel_for(panels, 2.0 * double(nr) * double(K), cols);
    else
      cols(0, panels);
    return;
  }
  if (flops < 2.0e6) threads = 1;
  // Split the larger dimension first: every task packs its own slice of the
  // other operand, so splitting M re-packs B per task and vice versa.
  const int64_t mblocks = (M + kern.mr - 1) / kern.mr;
  const int64_t nblocks = (N + kern.nr - 1) / kern.nr;
  int64_t mt = 1, nt = 1;
  if (threads > 1) {
    if (M >= N) {
      mt = std::min<int64_t>(threads, mblocks);
      nt = std::min<int64_t>((threads + mt - 1) / mt, nblocks);
    } else {
      nt = std::min<int64_t>(threads, nblocks);
      mt = std::min<int64_t>((threads + nt - 1) / nt, mblocks);
    }
  }
  auto task = [&](int64_t t) {
    const int64_t ti = t / nt, tj = t % nt;
    const int64_t mb0 = mblocks * ti / mt, mb1 = mblocks * (ti + 1) / mt;
    const int64_t nb0 = nblocks * tj / nt, nb1 = nblocks * (tj + 1) / nt;
    const int64_t i0 = mb0 * kern.mr, i1 = std::min(M, mb1 * kern.mr);
    const int64_t j0 = nb0 * kern.nr, j1 = std::min(N, nb1 * kern.nr);
    if (i1 <= i0 || j1 <= j0) return;
    if (no_product || beta != 0.f) scale_c(i1 - i0, j1 - j0, beta, o.C + i0 * o.ldc + j0, o.ldc);
    if (!no_product)
      gemm_block(kern, o, i0, i1 - i0, j0, j1 - j0, K, beta != 0.f);
    else if (o.ep)
      apply_epilogue(*o.ep, i0, i1 - i0, j0, j1 - j0, o.C, o.ldc);
  };
  if (mt * nt == 1) {
    task(0);
    return;
  }
  pool->parallel_for(mt * nt, flops / double(mt * nt), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) task(t);
  });
}

}  // namespace

namespace detail {

void sgemm_with(const SgemmKernelInfo& kern, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
                float alpha, const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                float* C, int64_t ldc, ThreadPool* pool, const Epilogue* epilogue) {
  check(M >= 0 && N >= 0 && K >= 0, "sgemm: negative size M=", M, " N=", N, " K=", K);
  const Operands o{ta, tb, alpha, A, lda, nullptr, B, nullptr, ldb, C, ldc, epilogue};
  run_sgemm(kern, o, M, N, K, beta, pool);
}

const SgemmKernelInfo& sgemm_best_kernel() { return best_kernel(); }

}  // namespace detail

PackedA::PackedA(bool trans, int64_t M, int64_t K, const float* A, int64_t lda)
    : PackedA(best_kernel(), trans, M, K, A, lda) {}

PackedA::PackedA(const SgemmKernelInfo& kern, bool trans, int64_t M, int64_t K, const float* A,
                 int64_t lda)
    : kern_(&kern), M_(M), K_(K) {
  check(M >= 0 && K >= 0, "PackedA: negative size M=", M, " K=", K);
  const int mr = kern.mr;
  mpad_ = (M + mr - 1) / mr * mr;
  data_.resize(size_t(mpad_ * K));
  // Slice pc (kc deep) starts at pc * mpad_ and holds mpad_/MR panels of kc x MR.
  for (int64_t pc = 0; pc < K; pc += kKC) {
    const int64_t kc = std::min(kKC, K - pc);
    if (M > 0) pack_a(kern, trans, A, lda, 0, pc, M, kc, 1.f, data_.data() + pc * mpad_);
  }
}

const float* PackedA::panel(int64_t pc, int64_t i) const {
  const int64_t kc = std::min(kKC, K_ - pc);
  return data_.data() + pc * mpad_ + (i / kern_->mr) * kc * kern_->mr;
}

void sgemm_packed(const PackedA& A, bool trans_b, int64_t N, const float* B, int64_t ldb, float* C,
                  int64_t ldc, ThreadPool* pool, const Epilogue* epilogue) {
  check(!A.empty(), "sgemm_packed: A was not packed");
  check(N >= 0, "sgemm_packed: negative N=", N);
  const Operands o{false, trans_b, 1.f, nullptr, 0, &A, B, nullptr, ldb, C, ldc, epilogue};
  run_sgemm(A.kernel(), o, A.rows(), N, A.depth(), 0.f, pool);
}

PackedB::PackedB(bool trans, int64_t K, int64_t N, const float* B, int64_t ldb)
    : PackedB(best_kernel(), trans, K, N, B, ldb) {}

PackedB::PackedB(const SgemmKernelInfo& kern, bool trans, int64_t K, int64_t N, const float* B,
                 int64_t ldb)
    : kern_(&kern), K_(K), N_(N) {
  check(K >= 0 && N >= 0, "PackedB: negative size K=", K, " N=", N);
  const int nr = kern.nr;
  npad_ = (N + nr - 1) / nr * nr;
  data_.resize(size_t(npad_ * K));
  // Slice pc (kc deep) starts at pc * npad_ and holds npad_/NR panels of kc x NR,
  // the layout gemm_block packs per call.
  for (int64_t pc = 0; pc < K; pc += kKC) {
    const int64_t kc = std::min(kKC, K - pc);
    if (N > 0) pack_b(kern, trans, B, ldb, pc, 0, kc, N, data_.data() + pc * npad_);
  }
}

const float* PackedB::panel(int64_t pc, int64_t j) const {
  const int64_t kc = std::min(kKC, K_ - pc);
  return data_.data() + pc * npad_ + (j / kern_->nr) * kc * kern_->nr;
}

void sgemm_packed_b(bool trans_a, int64_t M, float alpha, const float* A, int64_t lda,
                    const PackedB& B, float beta, float* C, int64_t ldc, ThreadPool* pool,
                    const Epilogue* epilogue) {
  check(!B.empty(), "sgemm_packed_b: B was not packed");
  check(M >= 0, "sgemm_packed_b: negative M=", M);
  const Operands o{trans_a, false, alpha, A, lda, nullptr, nullptr, &B, 0, C, ldc, epilogue};
  run_sgemm(B.kernel(), o, M, B.cols(), B.depth(), beta, pool);
}

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
           ThreadPool* pool, const Epilogue* epilogue) {
  detail::sgemm_with(best_kernel(), trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                     pool, epilogue);
}

const char* sgemm_kernel_name() { return best_kernel().name; }

void dgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
           const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
           int64_t ldc, ThreadPool* pool) {
  check(M >= 0 && N >= 0 && K >= 0, "dgemm: negative size M=", M, " N=", N, " K=", K);
  if (M == 0 || N == 0) return;
  auto a_at = [&](int64_t i, int64_t k) { return trans_a ? A[k * lda + i] : A[i * lda + k]; };
  // Rows of C are independent; within a row, the non-transposed B case is a
  // sequence of contiguous axpys (vectorizes), the transposed one a set of dots.
  auto rows = [&](int64_t r0, int64_t r1) {
    constexpr int64_t kBlock = 256;
    for (int64_t i = r0; i < r1; ++i) {
      double* c = C + i * ldc;
      if (beta == 0.0)
        std::fill(c, c + N, 0.0);
      else if (beta != 1.0)
        for (int64_t j = 0; j < N; ++j) c[j] *= beta;
      if (K == 0 || alpha == 0.0) continue;
      if (!trans_b) {
        for (int64_t j0 = 0; j0 < N; j0 += kBlock) {
          const int64_t j1 = std::min(N, j0 + kBlock);
          for (int64_t k = 0; k < K; ++k) {
            const double a = alpha * a_at(i, k);
            const double* b = B + k * ldb;
            for (int64_t j = j0; j < j1; ++j) c[j] += a * b[j];
          }
        }
      } else {
        for (int64_t j = 0; j < N; ++j) {
          const double* b = B + j * ldb;
          double s = 0.0;
          for (int64_t k = 0; k < K; ++k) s += a_at(i, k) * b[k];
          c[j] += alpha * s;
        }
      }
    }
  };
  const double cost = 2.0 * double(N) * double(K) + double(N);
  if (pool)
    pool->parallel_for(M, cost, rows);
  else
    rows(0, M);
}

}  // namespace tessera::linalg
