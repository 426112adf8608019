#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "linalg/gemm.hpp"
#include "linalg/gemm_microkernel.hpp"

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
        s += double(ta ? A[k * lda + i] : A[i * lda + k]) * double(tb ? B[j * ldb + k] : B[k * ldb + j]);
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
  detail::sgemm_with(kern, c.ta, c.tb, c.M, c.N, c.K, c.alpha, A.data(), lda, B.data(), ldb,
                     c.beta, C.data(), ldc, pool);
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = 0; j < c.N; ++j)
      ASSERT_NEAR(C[i * ldc + j], ref[i * ldc + j], 1e-4 * double(c.K + 1))
          << kern.name << " M=" << c.M << " N=" << c.N << " K=" << c.K << " ta=" << c.ta
          << " tb=" << c.tb << " at " << i << "," << j;
}

const std::vector<Case> kCases = {
    {1, 1, 1, false, false, 1.f, 0.f},      {17, 33, 65, false, false, 1.f, 0.f},
    {17, 33, 65, true, false, 0.5f, 1.f},   {17, 33, 65, false, true, 2.f, -0.5f},
    {17, 33, 65, true, true, 1.f, 0.25f},   {6, 64, 512, false, false, 1.f, 0.f},
    {130, 70, 600, false, true, 1.f, 1.f},  {5, 200, 3, true, false, -1.f, 0.f},
    {100, 1, 40, false, false, 1.f, 2.f},   {1, 100, 40, false, true, 1.f, 0.f},
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

TEST(LinalgGemm, KernelNameIsReported) { EXPECT_NE(std::string(sgemm_kernel_name()), ""); }

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
