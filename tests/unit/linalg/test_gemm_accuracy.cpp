// How far float GEMM strays from float64 on a deep K: the register tile sums
// K in runs (gemm.cpp's kRunK), so its rounding grows with the run, not
// with all of K. Non-negative terms are the hard case: every step rounds
// against a partial sum that only grows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "linalg/gemm.hpp"

namespace tessera::linalg {
namespace {

struct Product {
  int64_t M, N, K;
  std::vector<float> A, B;
  std::vector<double> want;
};

Product make_product(int64_t M, int64_t N, int64_t K) {
  Product p{M, N, K, std::vector<float>(size_t(M * K)), std::vector<float>(size_t(K * N)), {}};
  std::mt19937 rng{static_cast<unsigned>(K)};
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : p.A) v = u(rng);
  for (float& v : p.B) v = u(rng);
  p.want.assign(size_t(M * N), 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j)
        p.want[size_t(i * N + j)] +=
            double(p.A[size_t(i * K + k)]) * double(p.B[size_t(k * N + j)]);
  return p;
}

// The largest |C - float64| relative to the entries' size (K / 4 on average).
double relative_deviation(const Product& p, const std::vector<float>& C) {
  double worst = 0;
  for (size_t i = 0; i < C.size(); ++i)
    worst = std::max(worst, std::abs(double(C[i]) - p.want[i]) / p.want[i]);
  return worst;
}

// Chains over slices of 512 measured 3.6-4.2e-7 here (the row-vector
// product over prepacked B, one chain over all of K: 1.8e-6); runs of 128
// 2.4-2.8e-7.
constexpr double kBound = 3e-7;

TEST(GemmAccuracy, DeepKStaysCloseToFloat64) {
  for (int64_t M : {int64_t(1), int64_t(6), int64_t(20)}) {
    const Product p = make_product(M, 96, 4096);
    std::vector<float> C(size_t(M * p.N));
    sgemm(false, false, M, p.N, p.K, 1.f, p.A.data(), p.K, p.B.data(), p.N, 0.f, C.data(), p.N,
          nullptr);
    EXPECT_LT(relative_deviation(p, C), kBound) << "M " << M;
    std::vector<float> bt(p.B.size());  // B transposed: M == 1 takes dot products with its rows
    for (int64_t k = 0; k < p.K; ++k)
      for (int64_t j = 0; j < p.N; ++j) bt[size_t(j * p.K + k)] = p.B[size_t(k * p.N + j)];
    std::fill(C.begin(), C.end(), 0.f);
    sgemm(false, true, M, p.N, p.K, 1.f, p.A.data(), p.K, bt.data(), p.K, 0.f, C.data(), p.N,
          nullptr);
    EXPECT_LT(relative_deviation(p, C), kBound) << "M " << M << ", B transposed";
    const PackedB packed(false, p.K, p.N, p.B.data(), p.N);  // the row-vector path at M == 1
    std::fill(C.begin(), C.end(), 0.f);
    sgemm_packed_b(false, M, 1.f, p.A.data(), p.K, packed, 0.f, C.data(), p.N, nullptr);
    EXPECT_LT(relative_deviation(p, C), kBound) << "M " << M << ", prepacked B";
  }
}

}  // namespace
}  // namespace tessera::linalg
