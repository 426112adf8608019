// The normalization statistics (run_moments, merge_moments) and the affine
// pass (normalize_run) against a double-precision reference, with the
// kernels of every instruction set the CPU runs: lengths around the vector
// widths and the chunk size, a run far longer than a chunk, values with a
// mean far from zero (where a one-pass sum of squares would lose the
// variance), and pieces of one run merged in different splits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "linalg/moments.hpp"

namespace tessera::linalg {
namespace {

std::vector<Isa> kernel_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable})
    if (isa <= cpu_isa_supported()) out.push_back(isa);
  return out;
}

std::vector<float> random_run(int64_t n, float offset, float spread, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-spread, spread);
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = offset + u(gen);
  return x;
}

void reference(const std::vector<float>& x, double& mean, double& var) {
  double s = 0;
  for (float v : x) s += v;
  mean = x.empty() ? 0 : s / double(x.size());
  double q = 0;
  for (float v : x) q += (double(v) - mean) * (double(v) - mean);
  var = x.empty() ? 0 : q / double(x.size());
}

TEST(Moments, MatchTheReferenceOnEveryLength) {
  const int64_t lengths[] = {0, 1, 7, 8, 15, 16, 17, 63, 64, 65, 2047, 2048, 2049, 6000, 256256};
  for (Isa isa : kernel_isas()) {
    detail::MomentKernels k{};
    ASSERT_TRUE(detail::moment_kernels(isa, &k));
    for (int64_t n : lengths)
      for (float offset : {0.0f, 1000.0f}) {
        const std::vector<float> x = random_run(n, offset, 3.0f, uint32_t(n) + 7);
        double mean, var;
        reference(x, mean, var);
        const Moments m = n > 0 ? k.run(x.data(), n) : run_moments(x.data(), 0);
        SCOPED_TRACE(std::string(isa_name(isa)) + " n=" + std::to_string(n) +
                     " offset=" + std::to_string(offset));
        EXPECT_EQ(m.count, n);
        EXPECT_NEAR(m.mean, mean, 1e-6 * (std::abs(mean) + 1));
        EXPECT_NEAR(m.variance(), var, 1e-5 * var + 1e-12);
      }
  }
}

TEST(Moments, MergedPiecesEqualTheWhole) {
  const std::vector<float> x = random_run(100003, -5.0f, 2.0f, 42);
  double mean, var;
  reference(x, mean, var);
  for (int64_t piece : {int64_t(1), int64_t(1000), int64_t(32768), int64_t(99999)}) {
    Moments m;
    for (int64_t i = 0; i < int64_t(x.size()); i += piece)
      merge_moments(m, run_moments(x.data() + i, std::min<int64_t>(piece, int64_t(x.size()) - i)));
    SCOPED_TRACE("piece " + std::to_string(piece));
    EXPECT_EQ(m.count, int64_t(x.size()));
    EXPECT_NEAR(m.mean, mean, 1e-6 * std::abs(mean));
    EXPECT_NEAR(m.variance(), var, 1e-5 * var);
  }
}

TEST(Moments, NormalizeRunMatchesTheFormula) {
  for (Isa isa : kernel_isas()) {
    detail::MomentKernels k{};
    ASSERT_TRUE(detail::moment_kernels(isa, &k));
    for (int64_t n : {int64_t(1), int64_t(13), int64_t(16), int64_t(33), int64_t(1000)}) {
      const std::vector<float> x = random_run(n, 2.0f, 4.0f, uint32_t(n));
      std::vector<float> y(x.size()), in_place = x;
      k.normalize(x.data(), 1.5f, 0.25f, -3.0f, y.data(), n);
      k.normalize(in_place.data(), 1.5f, 0.25f, -3.0f, in_place.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const double want = (double(x[size_t(i)]) - 1.5) * 0.25 - 3.0;
        EXPECT_NEAR(y[size_t(i)], want, 1e-6) << isa_name(isa) << " n=" << n << " i=" << i;
        EXPECT_EQ(in_place[size_t(i)], y[size_t(i)]);
      }
    }
  }
}

}  // namespace
}  // namespace tessera::linalg
