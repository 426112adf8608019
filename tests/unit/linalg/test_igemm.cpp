#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "linalg/igemm.hpp"
#include "linalg/igemm_kernel.hpp"

namespace tessera::linalg {
namespace {

std::vector<IgemmPath> paths() {
  std::vector<IgemmPath> p = {IgemmPath::kPortable};
  if (detail::igemm_avx2_available()) p.push_back(IgemmPath::kAvx2);
  if (igemm_best_path() == IgemmPath::kVnni512) p.push_back(IgemmPath::kVnni512);
  return p;
}

// The definition, in 64 bits, then reduced to 32 as the product wraps.
std::vector<int32_t> reference(int64_t M, int64_t N, int64_t K, const std::vector<uint8_t>& a,
                               bool as, const std::vector<uint8_t>& b, bool bs,
                               const std::vector<int32_t>& za, const std::vector<int32_t>& zb) {
  auto value = [](uint8_t v, bool s) { return s ? int64_t(int8_t(v)) : int64_t(v); };
  auto zp = [](const std::vector<int32_t>& z, int64_t i) {
    return z.empty() ? 0 : z[z.size() == 1 ? 0 : size_t(i)];
  };
  std::vector<int32_t> c(size_t(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      int64_t s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += (value(a[size_t(m * K + k)], as) - zp(za, m)) *
             (value(b[size_t(k * N + n)], bs) - zp(zb, n));
      c[size_t(m * N + n)] = int32_t(uint32_t(uint64_t(s)));
    }
  return c;
}

struct Case {
  int64_t M, N, K;
};

TEST(Igemm, MatchesTheDefinitionForEverySignednessAndZeroPointForm) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  ThreadPool pool(2);
  // Tails of every kind: rows past a tile of 6 (and tiles of every height
  // 1 to 6), columns past a panel of 64, K not a multiple of 4, and K = 0.
  const Case cases[] = {{1, 1, 1},      {6, 64, 4},  {7, 65, 5},   {13, 130, 67}, {2, 63, 3},
                        {12, 128, 256}, {5, 200, 0}, {30, 70, 33}, {3, 72, 21},   {4, 9, 70}};
  for (IgemmPath path : paths())
    for (const Case& cs : cases)
      for (int signs = 0; signs < 4; ++signs)
        for (int zform = 0; zform < 3; ++zform) {
          const bool as = signs & 1, bs = signs & 2;
          std::vector<uint8_t> a(size_t(cs.M * cs.K)), b(size_t(cs.K * cs.N));
          for (auto& v : a) v = uint8_t(byte(rng));
          for (auto& v : b) v = uint8_t(byte(rng));
          std::vector<int32_t> za, zb;
          if (zform == 1) {
            za = {as ? -3 : 131};
            zb = {bs ? 5 : 120};
          } else if (zform == 2) {
            for (int64_t m = 0; m < cs.M; ++m) za.push_back(byte(rng) - (as ? 128 : 0));
            for (int64_t n = 0; n < cs.N; ++n) zb.push_back(byte(rng) - (bs ? 128 : 0));
          }
          const PackedBInt8 packed(cs.K, cs.N, b.data(), cs.N, bs);
          std::vector<int32_t> c(size_t(cs.M * cs.N), -1);
          igemm(cs.M, a.data(), cs.K, as, {za.data(), int64_t(za.size())}, packed,
                {zb.data(), int64_t(zb.size())}, c.data(), cs.N, &pool, path);
          const auto want = reference(cs.M, cs.N, cs.K, a, as, b, bs, za, zb);
          ASSERT_EQ(c, want) << "path " << int(path) << " M " << cs.M << " N " << cs.N << " K "
                             << cs.K << " a " << (as ? "int8" : "uint8") << " b "
                             << (bs ? "int8" : "uint8") << " zero points form " << zform;
        }
}

TEST(Igemm, ExtremeValuesOverALongDepthStayExact) {
  // 255 x -128 in every product, 4000 deep: 1.3e8, inside int32 without
  // saturating (vpdpbusd adds its four products exactly).
  const int64_t M = 3, N = 80, K = 4000;
  std::vector<uint8_t> a(size_t(M * K), 255), b(size_t(K * N), 0x80);
  const PackedBInt8 packed(K, N, b.data(), N, true);
  for (IgemmPath path : paths()) {
    std::vector<int32_t> c(size_t(M * N));
    igemm(M, a.data(), K, false, {}, packed, {}, c.data(), N, nullptr, path);
    for (int32_t v : c) ASSERT_EQ(v, -255 * 128 * K) << int(path);
  }
}

// The AVX2 pair tile (vpmaddubsw) on B shaped like trained weights: small
// values around B's zero with a few large ones, some of them in neighbouring
// pairs beyond 128 in size that prepare_pairs clips and corrects; int8 and
// uint8 B, A at the ends of its range, every zero-point form, tails of rows,
// columns and K.
TEST(Igemm, PairTileOnPreparedWeightsMatchesTheDefinition) {
  if (!detail::igemm_avx2_available()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937 rng(21);
  std::normal_distribution<float> weight(0.f, 18.f);
  std::uniform_int_distribution<int> byte(0, 255);
  const Case cases[] = {{7, 65, 37}, {13, 130, 768}, {1, 64, 4}, {6, 200, 99}};
  for (const Case& cs : cases)
    for (bool bs : {true, false})
      for (int zform = 0; zform < 3; ++zform) {
        std::vector<uint8_t> a(size_t(cs.M * cs.K)), b(size_t(cs.K * cs.N));
        for (auto& v : a) v = uint8_t(rng() % 4 == 0 ? 255 : byte(rng));
        for (size_t i = 0; i < b.size(); ++i) {
          // Every 401st value at the end of the range, so some pairs are too large.
          const int w = i % 401 == 0 ? (i % 2 ? 127 : -128)
                                     : std::clamp(int(std::lround(weight(rng))), -128, 127);
          b[i] = bs ? uint8_t(int8_t(w)) : uint8_t(w + 128);
        }
        std::vector<int32_t> za, zb;
        if (zform == 1) {
          za = {131};
          zb = {bs ? 5 : 120};
        } else if (zform == 2) {
          for (int64_t m = 0; m < cs.M; ++m) za.push_back(byte(rng));
          for (int64_t n = 0; n < cs.N; ++n) zb.push_back(byte(rng) - (bs ? 128 : 0));
        }
        PackedBInt8 packed(cs.K, cs.N, b.data(), cs.N, bs);
        packed.prepare_pairs();
        ASSERT_TRUE(packed.pairs_ready());
        int64_t fixes = 0;
        for (int64_t p = 0; p < packed.panels(); ++p) fixes += packed.pair_fix_count(p);
        if (cs.K >= 37) {
          EXPECT_GT(fixes, 0) << "the case should clip some pairs";
        }
        std::vector<int32_t> c(size_t(cs.M * cs.N), -1);
        igemm(cs.M, a.data(), cs.K, false, {za.data(), int64_t(za.size())}, packed,
              {zb.data(), int64_t(zb.size())}, c.data(), cs.N, nullptr, IgemmPath::kAvx2);
        ASSERT_EQ(c, reference(cs.M, cs.N, cs.K, a, false, b, bs, za, zb))
            << "M " << cs.M << " N " << cs.N << " K " << cs.K << " b " << (bs ? "int8" : "uint8")
            << " zero points form " << zform << ", " << fixes << " corrections";
      }
  // Uniform random bytes break the bound in about half the pairs: not
  // prepared, and the AVX2 path keeps its int16 tile.
  std::vector<uint8_t> b(64 * 64);
  for (auto& v : b) v = uint8_t(byte(rng));
  PackedBInt8 uniform(64, 64, b.data(), 64, true);
  uniform.prepare_pairs();
  EXPECT_FALSE(uniform.pairs_ready());
}

TEST(Igemm, WritesIntoAStridedOutputAndReadsAStridedA) {
  const int64_t M = 4, N = 70, K = 9, lda = 16, ldc = 100;
  std::vector<uint8_t> a(size_t(M * lda), 1), b(size_t(K * N));
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(i % 7);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) a[size_t(m * lda + k)] = uint8_t(m + k);
  const PackedBInt8 packed(K, N, b.data(), N, false);
  std::vector<uint8_t> dense(size_t(M * K));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) dense[size_t(m * K + k)] = a[size_t(m * lda + k)];
  const auto want = reference(M, N, K, dense, false, b, false, {}, {});
  for (IgemmPath path : paths()) {
    std::vector<int32_t> c(size_t(M * ldc), 12345);
    igemm(M, a.data(), lda, false, {}, packed, {}, c.data(), ldc, nullptr, path);
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n)
        ASSERT_EQ(c[size_t(m * ldc + n)], want[size_t(m * N + n)]) << m << "," << n;
      for (int64_t n = N; n < ldc; ++n) ASSERT_EQ(c[size_t(m * ldc + n)], 12345) << "past N";
    }
  }
}

}  // namespace
}  // namespace tessera::linalg

namespace tessera::linalg {
namespace {

TEST(Igemm, VectorPackingMatchesThePortableOne) {
  std::vector<std::pair<const char*, detail::IgemmPackWords>> packers;
  if (detail::igemm_vbmi_available()) packers.push_back({"vbmi", detail::igemm_pack_words_vbmi});
  if (detail::igemm_avx2_available()) packers.push_back({"avx2", detail::igemm_pack_words_avx2});
  if (packers.empty()) GTEST_SKIP() << "no vector packer on this CPU";
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  for (const auto& [name, pack] : packers)
    for (int64_t width = 1; width <= 64; ++width)
      for (uint32_t flip : {0u, 0x80808080u}) {
        std::vector<uint8_t> rows(4 * 64);
        for (auto& v : rows) v = uint8_t(byte(rng));
        const uint8_t* const r[4] = {rows.data(), rows.data() + 64, rows.data() + 128,
                                     rows.data() + 192};
        std::vector<int8_t> want(256, 0), got(256, 0);
        std::vector<int32_t> want_sums(64, 5), got_sums(64, 5);  // sums add to what is there
        detail::igemm_pack_words_portable(r, width, flip, want.data(), want_sums.data());
        pack(r, width, flip, got.data(), got_sums.data());
        ASSERT_TRUE(std::equal(want.begin(), want.begin() + 4 * width, got.begin()))
            << name << " width " << width;
        ASSERT_EQ(want_sums, got_sums) << name << " width " << width;  // past width: untouched
      }
}

}  // namespace
}  // namespace tessera::linalg

#include "linalg/quantize.hpp"

namespace tessera::linalg {
namespace {

// igemm_requantize gives, on every path, the bytes of the exact product
// followed by requantize() row by row (the reference's arithmetic, with
// its division): the VNNI tile's multiply-by-inverse must round every value
// as the division does, including those within an ulp or two of a half.
TEST(Igemm, RequantizedProductMatchesRequantizingTheExactProduct) {
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  ThreadPool pool(2);
  // {13, 60, 40}: four vectors wide but not 64 columns (a tile that stored
  // whole vectors there wrote 4 bytes into the next row).
  const Case cases[] = {{1, 1, 4},     {6, 64, 16},    {7, 65, 36},
                        {13, 130, 64}, {64, 200, 576}, {13, 60, 40}};
  int64_t checked = 0;
  for (IgemmPath path : paths())
    for (const Case& cs : cases)
      for (int form = 0; form < 7; ++form) {
        const bool as = form & 1, out_signed = form >= 3;
        std::vector<uint8_t> a(size_t(cs.M * cs.K)), b(size_t(cs.K * cs.N));
        for (auto& v : a) v = uint8_t(byte(rng));
        for (auto& v : b) v = uint8_t(byte(rng));
        std::vector<int32_t> za(size_t(cs.M)), bias(size_t(cs.M));
        std::vector<float> mult(size_t(cs.M));
        for (int64_t m = 0; m < cs.M; ++m) {
          // forms 0 and 5: one zero point for every row (the folded offsets).
          za[size_t(m)] = form == 0 || form == 5 ? (as ? -3 : 131) : byte(rng) - (as ? 128 : 0);
          bias[size_t(m)] = form == 2 ? (m % 2 ? 1 : -1) * (int32_t(1) << 30) - 7
                                      : int32_t(byte(rng) * 997) - 120000;
          // form 4: a power of two, so that with y_scale 0.25 every
          // quotient with acc % 16 == 8 is exactly a half (ties to even).
          mult[size_t(m)] = form == 4 ? 1.0f / 64.0f : 1e-4f + unit(rng) * 2e-3f;
        }
        const int32_t xzp = 128;
        // Scales that make the quotients land near halves often (an inexact
        // inverse), a power of two (an exact one), and one below 2^-40 (the
        // VNNI tile leaves it to the division).
        for (float ys : {0.1f, 0.0173f, 0.25f, 3.3e-3f, 3e-13f}) {
          // form 6: mult = ys * 2^-k, so that real / ys lands within an ulp
          // or two of a half for one sum in 2^k (where an uncorrected
          // multiplication by 1 / ys may round the other way).
          if (form == 6)
            for (int64_t m = 0; m < cs.M; ++m)
              mult[size_t(m)] = ys * std::ldexp(1.0f, -4 - int(m % 4));
          const PreparedAInt8 prepared(cs.M, cs.K, a.data(), cs.K, as);
          const PackedBInt8 packed(cs.K, cs.N, b.data(), cs.N, false);
          std::vector<int32_t> c(size_t(cs.M * cs.N));
          igemm(cs.M, a.data(), cs.K, as, {za.data(), cs.M}, packed, {&xzp, 1}, c.data(), cs.N,
                nullptr, path);
          const int32_t lo = out_signed ? -128 : 0, hi = out_signed ? 127 : 255;
          const int32_t yz = out_signed ? -5 : 131;
          const int64_t ldy = cs.N + 3;
          std::vector<uint8_t> want(size_t(cs.M * ldy), 0xEE), got(want);
          for (int64_t m = 0; m < cs.M; ++m)
            requantize(c.data() + m * cs.N, cs.N, bias[size_t(m)], mult[size_t(m)], ys, yz, lo, hi,
                       want.data() + m * ldy);
          IgemmRequantize out;
          out.bias = bias.data();
          out.mult = mult.data();
          out.y_scale = ys;
          out.y_zero = yz;
          out.lo = lo;
          out.hi = hi;
          out.y = got.data();
          out.ldy = ldy;
          igemm_requantize(prepared, {za.data(), cs.M}, packed, {&xzp, 1}, out, &pool, path);
          ASSERT_EQ(got, want) << "path " << int(path) << " M " << cs.M << " N " << cs.N << " K "
                               << cs.K << " form " << form << " y_scale " << ys;
          checked += cs.M * cs.N;
        }
      }
  EXPECT_GT(checked, 100000);
}

}  // namespace
}  // namespace tessera::linalg
