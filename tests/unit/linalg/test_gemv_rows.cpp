// The row-vector kernels for an unpacked B (M == 1), each ISA's against a
// float64 reference, and sgemm's M == 1 path around them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "linalg/cpu_isa.hpp"
#include "linalg/gemm.hpp"
#include "linalg/gemm_microkernel.hpp"

namespace tessera::linalg {
namespace {

using RowKernel = bool (*)(int64_t, const float*, const float*, int64_t, int64_t, float*);

struct IsaKernels {
  const char* name;
  Isa needs;
  RowKernel dot_rows, times_cols;
};

const IsaKernels kIsas[] = {
    {"avx512", Isa::kAvx512, detail::row_dot_rows_avx512, detail::row_times_cols_avx512},
    {"avx2", Isa::kAvx2, detail::row_dot_rows_avx2, detail::row_times_cols_avx2},
};

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Depths below, at and between the kernels' vector widths and their two-step
// unrolls; widths with remainders of every row and column block.
const int64_t kDepths[] = {1, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100, 128};
const int64_t kWidths[] = {1, 3, 4, 5, 8, 13, 31, 32, 33, 63, 64, 65, 130, 256};

TEST(GemvRows, EachIsaMatchesFloat64) {
  for (const auto& isa : kIsas) {
    const bool runs = cpu_isa() >= isa.needs;
    for (int64_t kc : kDepths)
      for (int64_t n : kWidths) {
        const int64_t ldb_t = kc + 3, ldb = n + 5;  // rows wider than used
        const auto a = random_values(size_t(kc), uint32_t(kc));
        const auto bt = random_values(size_t(n * ldb_t), uint32_t(n * 7 + kc));
        const auto b = random_values(size_t(kc * ldb), uint32_t(n * 11 + kc));
        std::vector<float> dot(size_t(n), std::numeric_limits<float>::quiet_NaN()), cols = dot;
        ASSERT_EQ(isa.dot_rows(kc, a.data(), bt.data(), ldb_t, n, dot.data()), runs) << isa.name;
        ASSERT_EQ(isa.times_cols(kc, a.data(), b.data(), ldb, n, cols.data()), runs) << isa.name;
        if (!runs) continue;
        for (int64_t j = 0; j < n; ++j) {
          double sd = 0, sc = 0;
          for (int64_t k = 0; k < kc; ++k) {
            sd += double(a[size_t(k)]) * double(bt[size_t(j * ldb_t + k)]);
            sc += double(a[size_t(k)]) * double(b[size_t(k * ldb + j)]);
          }
          ASSERT_NEAR(dot[size_t(j)], sd, 1e-5 * double(kc))
              << isa.name << " dot_rows kc=" << kc << " n=" << n << " j=" << j;
          ASSERT_NEAR(cols[size_t(j)], sc, 1e-5 * double(kc))
              << isa.name << " times_cols kc=" << kc << " n=" << n << " j=" << j;
        }
      }
  }
}

// sgemm with M == 1 and a plain B: blocks of columns, K in runs, op(A)
// transposed or not, alpha and beta, with and without a pool.
TEST(GemvRows, SgemmRowVectorMatchesFloat64) {
  ThreadPool pool(2);
  struct Case {
    int64_t N, K;
    bool ta, tb;
    float alpha, beta;
  };
  const Case cases[] = {{768, 256, false, true, 1.f, 0.f},  {768, 64, false, false, 1.f, 0.f},
                        {300, 1283, true, true, 0.5f, 1.f}, {513, 130, true, false, 2.f, -1.f},
                        {7, 5, false, true, 1.f, 0.5f},     {1000, 300, false, false, -1.f, 0.f}};
  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool})
    for (const auto& c : cases) {
      const int64_t lda = c.ta ? 3 : 1, ldb = (c.tb ? c.K : c.N) + 2;
      const auto A = random_values(size_t(c.K * lda), uint32_t(c.K));
      const auto B = random_values(size_t((c.tb ? c.N : c.K) * ldb), uint32_t(c.N));
      auto C = random_values(size_t(c.N), 5u);
      if (c.beta == 0.f) std::fill(C.begin(), C.end(), std::numeric_limits<float>::quiet_NaN());
      std::vector<double> ref(size_t(c.N));
      for (int64_t j = 0; j < c.N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < c.K; ++k)
          s += double(A[size_t(c.ta ? k * lda : k)]) *
               double(c.tb ? B[size_t(j * ldb + k)] : B[size_t(k * ldb + j)]);
        ref[size_t(j)] =
            double(c.alpha) * s + (c.beta == 0.f ? 0.0 : double(c.beta) * double(C[size_t(j)]));
      }
      sgemm(c.ta, c.tb, 1, c.N, c.K, c.alpha, A.data(), lda, B.data(), ldb, c.beta, C.data(), c.N,
            p);
      for (int64_t j = 0; j < c.N; ++j)
        ASSERT_NEAR(C[size_t(j)], ref[size_t(j)], 1e-5 * double(c.K + 1))
            << isa_name(cpu_isa()) << " N=" << c.N << " K=" << c.K << " ta=" << c.ta
            << " tb=" << c.tb << " j=" << j;
    }
}

}  // namespace
}  // namespace tessera::linalg
