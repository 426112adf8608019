#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/thread_pool.hpp"
#include "linalg/q4_gemv.hpp"

namespace tessera::linalg {
namespace {

// Random 4-bit weights in MatMulNBits' layout, packed, and their float values.
struct Case {
  Q4Weights w;
  std::vector<double> dense;  // [N, K]
};

Case make_case(int64_t N, int64_t K, int64_t block, std::mt19937& rng) {
  const int64_t k_blocks = (K + block - 1) / block, blob = block / 2;
  std::vector<uint8_t> q(size_t(N * k_blocks * blob)), zp(size_t(N * k_blocks));
  std::vector<float> scales(zp.size());
  std::uniform_int_distribution<int> byte(0, 255), nibble(0, 15);
  std::uniform_real_distribution<float> scale(0.01f, 0.1f);
  for (auto& b : q) b = uint8_t(byte(rng));
  for (auto& s : scales) s = scale(rng);
  for (auto& z : zp) z = uint8_t(nibble(rng));
  Case c;
  c.w = pack_q4(N, K, block, q.data(), scales.data(), zp.data());
  c.dense.resize(size_t(N * K));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      const int64_t b = k / block, j = k % block;
      const uint8_t v = q[size_t((n * k_blocks + b) * blob + j / 2)];
      const int qv = j % 2 ? v >> 4 : v & 15;
      const size_t sb = size_t(n * k_blocks + b);
      c.dense[size_t(n * K + k)] = (qv - zp[sb]) * double(scales[sb]);
    }
  return c;
}

// Both entry points against a double product: rows below, at and above the
// kernel's group of four (q4_gemm takes more in groups), outputs around the
// 64-wide panels, K with a part block at its end, a strided A and Y.
TEST(Q4Gemm, MatchesTheDequantizedProduct) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> val(-1.0f, 1.0f);
  ThreadPool pool(2);
  for (int64_t block : {16, 32, 64})
    for (int64_t K : {32, 40, 600})
      for (int64_t N : {1, 31, 65, 130})
        for (int64_t M : {1, 3, 4, 5, 9, 70}) {
          Case c = make_case(N, K, block, rng);
          const int64_t lda = K + 3, ldy = N + 2;
          std::vector<float> a(size_t(M * lda));
          for (auto& v : a) v = val(rng);
          for (int path = 0; path < 2; ++path) {
            std::vector<float> y(size_t(M * ldy), -7.0f);
            if (path == 0)
              q4_gemm(c.w, M, a.data(), lda, y.data(), ldy, &pool);
            else
              q4_gemm_dequantized(c.w, M, a.data(), lda, y.data(), ldy, &pool);
            for (int64_t m = 0; m < M; ++m) {
              for (int64_t n = 0; n < N; ++n) {
                double want = 0.0, mag = 0.0;
                for (int64_t k = 0; k < K; ++k) {
                  const double t = a[size_t(m * lda + k)] * c.dense[size_t(n * K + k)];
                  want += t, mag += std::abs(t);
                }
                ASSERT_NEAR(y[size_t(m * ldy + n)], want, 1e-5 * mag + 1e-6)
                    << (path ? "dequantized" : "q4_gemm") << " block " << block << " K " << K
                    << " N " << N << " M " << M << " at " << m << ", " << n;
              }
              for (int64_t n = N; n < ldy; ++n)  // the row's padding stays untouched
                ASSERT_EQ(y[size_t(m * ldy + n)], -7.0f) << "wrote past N, M " << M;
            }
          }
        }
}

}  // namespace
}  // namespace tessera::linalg
