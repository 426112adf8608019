#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "linalg/gemm.hpp"
#include "linalg/gemm_microkernel.hpp"
#include "unit/linalg/activation_ref.hpp"

namespace tessera::linalg {
namespace {

template <typename T>
void naive(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const std::vector<T>& A,
           int64_t lda, const std::vector<T>& B, int64_t ldb, T beta, std::vector<T>& C,
           int64_t ldc) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += double(ta ? A[k * lda + i] : A[i * lda + k]) *
             double(tb ? B[j * ldb + k] : B[k * ldb + j]);
      T& c = C[i * ldc + j];
      c = T(double(alpha) * s + (beta == T(0) ? 0.0 : double(beta) * double(c)));
    }
}

std::vector<detail::SgemmKernelInfo> kernels() {
  std::vector<detail::SgemmKernelInfo> ks = {detail::sgemm_kernel_generic()};
  detail::SgemmKernelInfo k;
  if (detail::sgemm_kernel_avx2(&k)) ks.push_back(k);
  if (detail::sgemm_kernel_avx512(&k)) ks.push_back(k);
  return ks;
}

struct Case {
  int64_t M, N, K;
  bool ta, tb;
  float alpha, beta;
};

void check_case(const detail::SgemmKernelInfo& kern, const Case& c, ThreadPool* pool) {
  std::mt19937 rng(uint32_t(c.M * 131 + c.N * 17 + c.K));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  // Leading dims wider than the matrices, to exercise strides.
  const int64_t lda = (c.ta ? c.M : c.K) + 3, ldb = (c.tb ? c.K : c.N) + 5, ldc = c.N + 2;
  std::vector<float> A(size_t((c.ta ? c.K : c.M) * lda)), B(size_t((c.tb ? c.N : c.K) * ldb)),
      C(size_t(c.M * ldc));
  for (auto& v : A) v = u(rng);
  for (auto& v : B) v = u(rng);
  for (auto& v : C) v = c.beta == 0.f ? std::numeric_limits<float>::quiet_NaN() : u(rng);
  std::vector<float> ref = C;
  naive<float>(c.ta, c.tb, c.M, c.N, c.K, c.alpha, A, lda, B, ldb, c.beta, ref, ldc);
  detail::sgemm_with(kern, c.ta, c.tb, c.M, c.N, c.K, c.alpha, A.data(), lda, B.data(), ldb, c.beta,
                     C.data(), ldc, pool);
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = 0; j < c.N; ++j)
      ASSERT_NEAR(C[i * ldc + j], ref[i * ldc + j], 1e-4 * double(c.K + 1))
          << kern.name << " M=" << c.M << " N=" << c.N << " K=" << c.K << " ta=" << c.ta
          << " tb=" << c.tb << " at " << i << "," << j;
}

// The last three span more rows than one MC-row block holds and two K
// slices, the second 18 deep: 300 and 280 rows in several blocks, 150 in
// one block larger than MC (its 18-row remainder joins it).
const std::vector<Case> kCases = {
    {1, 1, 1, false, false, 1.f, 0.f},      {17, 33, 65, false, false, 1.f, 0.f},
    {17, 33, 65, true, false, 0.5f, 1.f},   {17, 33, 65, false, true, 2.f, -0.5f},
    {17, 33, 65, true, true, 1.f, 0.25f},   {6, 64, 512, false, false, 1.f, 0.f},
    {130, 70, 600, false, true, 1.f, 1.f},  {5, 200, 3, true, false, -1.f, 0.f},
    {100, 1, 40, false, false, 1.f, 2.f},   {1, 100, 40, false, true, 1.f, 0.f},
    {1, 37, 70, true, true, 0.5f, 0.5f},    {1, 300, 1283, false, true, 1.f, 0.f},
    {300, 7, 530, false, false, 1.f, 2.f},  {280, 131, 530, true, true, 2.f, 0.f},
    {150, 70, 530, false, true, 1.f, 0.5f},
};

TEST(LinalgGemm, EveryKernelMatchesNaive) {
  for (const auto& k : kernels())
    for (const auto& c : kCases) check_case(k, c, nullptr);
}

TEST(LinalgGemm, MultiThreadedMatchesNaive) {
  ThreadPool pool(4);
  for (const auto& k : kernels()) {
    check_case(k, {257, 129, 300, false, false, 1.f, 0.f}, &pool);
    check_case(k, {31, 700, 100, true, true, 0.5f, 1.f}, &pool);
  }
}

TEST(LinalgGemm, ZeroKAppliesOnlyBeta) {
  std::vector<float> C = {1, 2, 3, 4};
  sgemm(false, false, 2, 2, 0, 1.f, nullptr, 1, nullptr, 2, 3.f, C.data(), 2);
  EXPECT_EQ(C, (std::vector<float>{3, 6, 9, 12}));
  sgemm(false, false, 2, 2, 0, 1.f, nullptr, 1, nullptr, 2, 0.f, C.data(), 2);
  EXPECT_EQ(C, (std::vector<float>{0, 0, 0, 0}));
}

// The epilogue computed after the naive product, in the unfused graph's order.
void naive_epilogue(const Epilogue& e, int64_t M, int64_t N, std::vector<float>& C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float& c = C[size_t(i * ldc + j)];
      if (e.row_bias) c += e.row_bias[i];
      if (e.residual) c += e.residual[i * e.ldr + j];
      c = float(activation_ref(e.act, c));
    }
}

// Prepacked A and the fused epilogue, for every kernel, against the naive
// product: edge tiles in M and N, K across the 512-deep slices and not a
// multiple of the unroll, transposed B, 1 and 2 threads.
TEST(LinalgGemm, PackedAWithEpilogueMatchesNaive) {
  ThreadPool two(2);
  std::vector<ActivationSpec> acts = every_activation();
  acts[2] = {Activation::kClip, -0.3f, 0.4f};
  struct Shape3 {
    int64_t M, N, K;
    bool tb;
  };
  const Shape3 shapes[] = {{1, 1, 1, false},
                           {7, 13, 5, false},
                           {64, 49, 515, false},
                           {13, 200, 27, true},
                           {130, 70, 1030, false},
                           {6, 64, 512, false},
                           {120, 200, 600, false},  // B read in place: full panels + ragged edge
                           // Ragged last panels of 26, 36 and 4 columns (the narrowed tiles),
                           // and of 50 (four vectors, the last nearly empty):
                           {9, 90, 600, false},
                           {9, 114, 520, true},
                           {9, 100, 30, true},
                           {20, 196, 40, false}};
  int seed = 0;
  for (const auto& kern : kernels())
    for (const auto& sh : shapes)
      for (size_t ai = 0; ai < acts.size(); ++ai)
        for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
          std::mt19937 rng(uint32_t(++seed));
          std::uniform_real_distribution<float> u(-1.f, 1.f);
          const int64_t ldc = sh.N + 3, ldb = sh.tb ? sh.K : sh.N;
          std::vector<float> A(size_t(sh.M * sh.K)), B(size_t(sh.K * sh.N)), bias(size_t(sh.M)),
              res(size_t(sh.M * ldc)), C(size_t(sh.M * ldc), std::nanf(""));
          for (auto* v : {&A, &B, &bias, &res})
            for (auto& x : *v) x = u(rng);
          Epilogue e;
          e.row_bias = ai % 2 ? bias.data() : nullptr;
          e.residual = ai >= 2 ? res.data() : nullptr;
          e.ldr = ldc;
          e.act = acts[ai];
          std::vector<float> ref(C.size(), 0.f);
          naive<float>(false, sh.tb, sh.M, sh.N, sh.K, 1.f, A, sh.K, B, ldb, 0.f, ref, ldc);
          naive_epilogue(e, sh.M, sh.N, ref, ldc);
          PackedA pa(kern, false, sh.M, sh.K, A.data(), sh.K);
          sgemm_packed(pa, sh.tb, sh.N, B.data(), ldb, C.data(), ldc, pool, &e);
          // The unpacked path takes the same epilogue.
          std::vector<float> C2(C.size(), std::nanf(""));
          detail::sgemm_with(kern, false, sh.tb, sh.M, sh.N, sh.K, 1.f, A.data(), sh.K, B.data(),
                             ldb, 0.f, C2.data(), ldc, pool, &e);
          for (int64_t i = 0; i < sh.M; ++i)
            for (int64_t j = 0; j < sh.N; ++j) {
              const size_t at = size_t(i * ldc + j);
              ASSERT_NEAR(C[at], ref[at], 1e-4 * double(sh.K + 1))
                  << kern.name << " packed M=" << sh.M << " N=" << sh.N << " K=" << sh.K << " act "
                  << ai << " at " << i << "," << j;
              ASSERT_NEAR(C2[at], ref[at], 1e-4 * double(sh.K + 1))
                  << kern.name << " unpacked M=" << sh.M << " N=" << sh.N << " K=" << sh.K;
            }
        }
}

// Prepacked B for every kernel against the naive product: transposed and
// plain A and B, alpha/beta, edge tiles in M and N (N not a multiple of NR),
// K across the 512-deep slices, M == 1, a batched MatMul's stacked rows,
// epilogues, 1 and 2 threads.
TEST(LinalgGemm, PackedBMatchesNaive) {
  ThreadPool two(2);
  struct PbCase {
    int64_t M, N, K;
    bool ta, tb;
    float alpha, beta;
    int ep;  // 0 none, 1 row bias + Relu, 2 residual + Clip, 3 LeakyRelu
  };
  const PbCase cases[] = {
      {1, 1, 1, false, false, 1.f, 0.f, 0},
      {7, 13, 5, false, true, 1.f, 0.f, 1},
      {1, 200, 70, false, false, 1.f, 0.f, 0},
      {1, 37, 70, true, true, 0.5f, 0.5f, 0},
      {64, 49, 515, false, false, 1.f, 0.f, 2},
      {17, 33, 65, true, false, 0.5f, 1.f, 0},
      {17, 33, 65, false, true, 2.f, -0.5f, 3},
      {130, 70, 1030, true, true, 1.f, 0.25f, 1},
      {384, 129, 96, false, false, 1.f, 0.f, 0},  // [3,128,96] x [96,129] stacked
      {6, 64, 512, false, false, 1.f, 1.f, 2},
      {40, 300, 600, false, true, 1.f, 0.f, 0},
      {150, 129, 600, false, true, 1.f, 0.f, 1},  // one row block above MC, with bias + Relu
      // M == 1 runs the row-vector product over the panels: a classifier
      // (K across slices, ragged last panel, split over threads), transposed
      // A, every epilogue.
      {1, 1000, 1280, false, true, 1.f, 0.f, 1},
      {1, 130, 1030, true, false, 0.5f, 1.f, 2},
      {1, 70, 515, false, false, 2.f, -0.5f, 3},
  };
  int seed = 100;
  for (const auto& kern : kernels())
    for (const auto& c : cases)
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
        std::mt19937 rng(uint32_t(++seed));
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        const int64_t lda = (c.ta ? c.M : c.K) + 3, ldb = (c.tb ? c.K : c.N) + 5, ldc = c.N + 2;
        std::vector<float> A(size_t((c.ta ? c.K : c.M) * lda)), B(size_t((c.tb ? c.N : c.K) * ldb)),
            C(size_t(c.M * ldc)), bias(size_t(c.M)), res(size_t(c.M * ldc));
        for (auto* v : {&A, &B, &C, &bias, &res})
          for (auto& x : *v) x = u(rng);
        if (c.beta == 0.f) std::fill(C.begin(), C.end(), std::nanf(""));
        Epilogue e;
        e.ldr = ldc;
        if (c.ep == 1) e = {bias.data(), nullptr, ldc, {Activation::kRelu, 0, 0}};
        if (c.ep == 2) e = {nullptr, res.data(), ldc, {Activation::kClip, -0.3f, 0.4f}};
        if (c.ep == 3) e = {nullptr, nullptr, ldc, {Activation::kLeakyRelu, 0.1f, 0}};
        std::vector<float> ref = C;
        naive<float>(c.ta, c.tb, c.M, c.N, c.K, c.alpha, A, lda, B, ldb, c.beta, ref, ldc);
        naive_epilogue(e, c.M, c.N, ref, ldc);
        PackedB pb(kern, c.tb, c.K, c.N, B.data(), ldb);
        ASSERT_EQ(pb.depth(), c.K);
        ASSERT_EQ(pb.cols(), c.N);
        sgemm_packed_b(c.ta, c.M, c.alpha, A.data(), lda, pb, c.beta, C.data(), ldc, pool,
                       c.ep ? &e : nullptr);
        for (int64_t i = 0; i < c.M; ++i)
          for (int64_t j = 0; j < c.N; ++j)
            ASSERT_NEAR(C[size_t(i * ldc + j)], ref[size_t(i * ldc + j)], 1e-4 * double(c.K + 1))
                << kern.name << " M=" << c.M << " N=" << c.N << " K=" << c.K << " ta=" << c.ta
                << " tb=" << c.tb << " threads=" << (pool ? 2 : 1) << " at " << i << "," << j;
        // Columns past C's width stay untouched (the padded panel columns are not stored).
        if (c.beta == 0.f) {
          for (int64_t i = 0; i < c.M; ++i) ASSERT_TRUE(std::isnan(C[size_t(i * ldc + c.N)]));
        }
      }
}

// Panels of a prepacked operand start on a cache line, so the kernel's vector
// loads of a B row never straddle two lines.
TEST(LinalgGemm, PackedPanelsAreCacheLineAligned) {
  std::vector<float> X(size_t(700 * 300), 1.f);
  for (const auto& kern : kernels()) {
    PackedB pb(kern, false, 700, 300, X.data(), 300);
    PackedA pa(kern, false, 300, 700, X.data(), 700);
    for (int64_t pc = 0; pc < 700; pc += 512) {
      for (int64_t j = 0; j < 300; j += kern.nr)
        EXPECT_EQ(reinterpret_cast<uintptr_t>(pb.panel(pc, j)) % 64, 0u) << kern.name;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(pa.panel(pc, 0)) % 64, 0u) << kern.name;
    }
  }
}

TEST(LinalgGemm, PackedBRejectsUnpacked) {
  PackedB empty;
  std::vector<float> A(4), C(4);
  EXPECT_THROW(sgemm_packed_b(false, 2, 1.f, A.data(), 2, empty, 0.f, C.data(), 2), Error);
}

TEST(LinalgGemm, EpilogueWithZeroK) {
  std::vector<float> C = {5, 5, 5, 5}, bias = {1, -2};
  Epilogue e;
  e.row_bias = bias.data();
  e.act = {Activation::kRelu, 0, 0};
  sgemm(false, false, 2, 2, 0, 1.f, nullptr, 1, nullptr, 2, 0.f, C.data(), 2, nullptr, &e);
  EXPECT_EQ(C, (std::vector<float>{1, 1, 0, 0}));
}

TEST(LinalgGemm, KernelNameIsReported) { EXPECT_NE(std::string(sgemm_kernel_name()), ""); }

// A kernel's own packers write exactly the panel layout of the contract
// (gemm_microkernel.hpp): every ragged row and column count, k tails around
// the 16-wide vector steps, both transpositions, alpha folded into A, and the
// zero padding (the destination starts as NaN so a skipped slot shows).
TEST(LinalgGemm, KernelPackersWriteThePanelLayout) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (const auto& kern : kernels()) {
    const int64_t mr = kern.mr, nr = kern.nr;
    for (int64_t kc : {1, 5, 15, 16, 17, 33, 48, 70}) {
      for (bool trans : {false, true}) {
        if (kern.pack_a) {
          const int64_t ld = (trans ? mr : kc) + 3;
          std::vector<float> src(size_t((trans ? kc : mr) * ld));
          for (auto& v : src) v = u(rng);
          for (int64_t rows = 1; rows <= mr; ++rows) {
            std::vector<float> dst(size_t(kc * mr), std::nanf(""));
            kern.pack_a(trans, src.data(), ld, rows, kc, -0.5f, dst.data());
            for (int64_t k = 0; k < kc; ++k)
              for (int64_t i = 0; i < mr; ++i) {
                const float want =
                    i < rows ? -0.5f * src[size_t(trans ? k * ld + i : i * ld + k)] : 0.f;
                ASSERT_EQ(dst[size_t(k * mr + i)], want)
                    << kern.name << " pack_a trans=" << trans << " rows=" << rows << " kc=" << kc
                    << " at k=" << k << " i=" << i;
              }
          }
        }
        if (kern.pack_b) {
          const int64_t ld = (trans ? kc : nr) + 5;
          std::vector<float> src(size_t((trans ? nr : kc) * ld));
          for (auto& v : src) v = u(rng);
          for (int64_t cols = 1; cols <= nr; ++cols) {
            std::vector<float> dst(size_t(kc * nr), std::nanf(""));
            kern.pack_b(trans, src.data(), ld, cols, kc, dst.data());
            for (int64_t k = 0; k < kc; ++k)
              for (int64_t j = 0; j < nr; ++j) {
                const float want = j < cols ? src[size_t(trans ? j * ld + k : k * ld + j)] : 0.f;
                ASSERT_EQ(dst[size_t(k * nr + j)], want)
                    << kern.name << " pack_b trans=" << trans << " cols=" << cols << " kc=" << kc
                    << " at k=" << k << " j=" << j;
              }
          }
        }
      }
    }
  }
}

TEST(LinalgGemm, DoubleMatchesNaive) {
  ThreadPool pool(3);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const int64_t M = 19, N = 23, K = 41;
      std::vector<double> A(size_t(M * K)), B(size_t(K * N)), C(size_t(M * N));
      for (auto& v : A) v = u(rng);
      for (auto& v : B) v = u(rng);
      for (auto& v : C) v = u(rng);
      auto ref = C;
      naive<double>(ta, tb, M, N, K, 1.5, A, ta ? M : K, B, tb ? K : N, 0.5, ref, N);
      dgemm(ta, tb, M, N, K, 1.5, A.data(), ta ? M : K, B.data(), tb ? K : N, 0.5, C.data(), N,
            &pool);
      for (size_t i = 0; i < C.size(); ++i) ASSERT_NEAR(C[i], ref[i], 1e-12);
    }
}

}  // namespace
}  // namespace tessera::linalg
