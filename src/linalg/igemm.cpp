#include "linalg/igemm.hpp"

#include <algorithm>
#include <cstring>

#include "linalg/igemm_kernel.hpp"

namespace tessera::linalg {

namespace detail {

void igemm_tile_portable(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                         const int8_t* panel, int32_t* out) {
  for (int r = 0; r < rows; ++r) {
    int32_t acc[64] = {};
    const uint8_t* ar = a + r * lda;
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t* a4 = ar + 4 * g;
      const int8_t* bg = panel + g * 256;
      for (int j = 0; j < 64; ++j)
        acc[j] += int32_t(a4[0]) * bg[4 * j] + int32_t(a4[1]) * bg[4 * j + 1] +
                  int32_t(a4[2]) * bg[4 * j + 2] + int32_t(a4[3]) * bg[4 * j + 3];
    }
    std::memcpy(out + r * 64, acc, sizeof(acc));
  }
}

}  // namespace detail

IgemmPath igemm_best_path() {
  return detail::igemm_vnni512_available() ? IgemmPath::kVnni512 : IgemmPath::kPortable;
}

PackedBInt8::PackedBInt8(int64_t K, int64_t N, const void* b, int64_t ldb, bool b_signed)
    : K_(K), N_(N), signed_(b_signed) {
  const auto* src = static_cast<const uint8_t*>(b);
  // int8 B is taken as it is; uint8 B as B - 128 (flipping the top bit of
  // each byte: here of four at once).
  const uint32_t flip = b_signed ? 0u : 0x80808080u;
  data_.assign(size_t(panels() * groups() * kPanel * 4), 0);
  sums_.assign(size_t(N), 0);
  const std::vector<uint8_t> zeros(size_t(kPanel), b_signed ? 0 : 0x80);  // rows past K: B' = 0
  for (int64_t p = 0; p < panels(); ++p) {
    const int64_t n0 = p * kPanel, width = std::min(kPanel, N - n0);
    int32_t* sums = sums_.data() + n0;
    for (int64_t g = 0; g < groups(); ++g) {
      // Four rows of B make one group: column j's four bytes are one word.
      const uint8_t* r[4];
      for (int i = 0; i < 4; ++i) {
        const int64_t k = 4 * g + i;
        r[i] = k < K ? src + k * ldb + n0 : zeros.data();
      }
      auto* dst = reinterpret_cast<uint32_t*>(data_.data() + (p * groups() + g) * kPanel * 4);
      for (int64_t j = 0; j < width; ++j) {
        const uint32_t word = (uint32_t(r[0][j]) | uint32_t(r[1][j]) << 8 |
                               uint32_t(r[2][j]) << 16 | uint32_t(r[3][j]) << 24) ^
                              flip;
        std::memcpy(dst + j, &word, 4);
        sums[j] += int8_t(word) + int8_t(word >> 8) + int8_t(word >> 16) + int8_t(word >> 24);
      }
    }
  }
}

namespace {

// The driver of igemm and igemm_to_float: store(m, n0, width, values) gets
// each finished run of a row's exact int32 results.
template <typename Store>
void igemm_rows(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
                const PackedBInt8& b, ZeroPoints zb, ThreadPool* pool, IgemmPath path,
                const Store& store) {
  const int64_t K = b.depth(), N = b.cols();
  if (M <= 0 || N <= 0) return;
  const int64_t K4 = b.groups() * 4;
  const auto* a8 = static_cast<const uint8_t*>(a);
  // A' (uint8: int8 A plus 128, flipping the top bit), rows padded with
  // zeros to whole groups; uint8 A of whole groups is read in place.
  const uint8_t flip = a_signed ? 0x80 : 0;
  const bool in_place = flip == 0 && K == K4;
  HostVector<uint8_t> packed(in_place ? 0 : size_t(M * K4), 0);
  std::vector<uint32_t> row_term(static_cast<size_t>(M));  // rowsum(A')[m] - K * za'[m]
  std::vector<uint32_t> za_p(static_cast<size_t>(M));      // za'[m] = za[m] + 128 for int8 A
  const uint32_t oa = a_signed ? 128u : 0u;
  for (int64_t m = 0; m < M; ++m) {
    const uint8_t* src = a8 + m * lda;
    uint8_t* dst = in_place ? nullptr : packed.data() + m * K4;
    uint32_t sum = 0;
    for (int64_t k = 0; k < K; ++k) {
      const uint8_t v = src[k] ^ flip;
      if (dst) dst[k] = v;
      sum += v;
    }
    za_p[size_t(m)] = uint32_t(za.at(m)) + oa;
    row_term[size_t(m)] = sum - uint32_t(K) * za_p[size_t(m)];
  }
  const uint8_t* ap = in_place ? a8 : packed.data();
  const int64_t ap_ld = in_place ? lda : K4;
  // zb'[n] = zb[n] - 128 for uint8 B.
  const uint32_t ob = b.b_signed() ? 0u : 128u;
  std::vector<uint32_t> zb_p(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) zb_p[size_t(n)] = uint32_t(zb.at(n)) - ob;
  const int32_t* col_sums = b.col_sums();

  const detail::IgemmTile tile =
      path == IgemmPath::kVnni512 ? detail::igemm_tile_vnni512 : detail::igemm_tile_portable;
  constexpr int64_t R = detail::kIgemmRows, W = PackedBInt8::kPanel;
  const int64_t row_blocks = (M + R - 1) / R;
  // Consecutive tasks walk the row blocks of one panel, so a thread's panel
  // stays in its cache.
  auto run = [&](int64_t begin, int64_t end) {
    alignas(64) int32_t raw[R * W];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t p = t / row_blocks, m0 = (t % row_blocks) * R, n0 = p * W;
      const int rows = int(std::min(R, M - m0));
      const int64_t width = std::min(W, N - n0);
      tile(b.groups(), ap + m0 * ap_ld, ap_ld, rows, b.panel(p), raw);
      // C = A'B' - zb'[n] * (rowsum(A')[m] - K za'[m]) - za'[m] colsum(B')[n],
      // in wrapping 32-bit arithmetic.
      for (int r = 0; r < rows; ++r) {
        const uint32_t rt = row_term[size_t(m0 + r)], zam = za_p[size_t(m0 + r)];
        int32_t* rr = raw + r * W;
        const uint32_t* zbr = zb_p.data() + n0;
        const int32_t* cs = col_sums + n0;
        for (int64_t j = 0; j < width; ++j)
          rr[j] = int32_t(uint32_t(rr[j]) - zbr[j] * rt - zam * uint32_t(cs[j]));
        store(m0 + r, n0, width, rr);
      }
    }
  };
  const int64_t tasks = b.panels() * row_blocks;
  if (pool)
    pool->parallel_for(tasks, double(R * W * std::max<int64_t>(K, 1)), run);
  else
    run(0, tasks);
}

}  // namespace

void igemm(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
           const PackedBInt8& b, ZeroPoints zb, int32_t* c, int64_t ldc, ThreadPool* pool,
           IgemmPath path) {
  igemm_rows(M, a, lda, a_signed, za, b, zb, pool, path,
             [&](int64_t m, int64_t n0, int64_t width, const int32_t* v) {
               std::memcpy(c + m * ldc + n0, v, size_t(width) * sizeof(int32_t));
             });
}

void igemm_each(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
                const PackedBInt8& b, ZeroPoints zb, const IgemmStore& store, ThreadPool* pool,
                IgemmPath path) {
  igemm_rows(M, a, lda, a_signed, za, b, zb, pool, path, store);
}

void igemm_to_float(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
                    const PackedBInt8& b, ZeroPoints zb, const IgemmToFloat& out, float* y,
                    int64_t ldy, ThreadPool* pool, IgemmPath path) {
  igemm_rows(M, a, lda, a_signed, za, b, zb, pool, path,
             [&](int64_t m, int64_t n0, int64_t width, const int32_t* v) {
               float* yr = y + m * ldy + n0;
               const float* bias = out.bias ? out.bias + n0 : nullptr;
               if (out.scale_count == 1) {
                 const float s = out.scale[0];
                 for (int64_t j = 0; j < width; ++j) yr[j] = float(v[j]) * s;
               } else {
                 const float* s = out.scale + n0;
                 for (int64_t j = 0; j < width; ++j) yr[j] = float(v[j]) * s[j];
               }
               if (bias)
                 for (int64_t j = 0; j < width; ++j) yr[j] += bias[j];
             });
}

}  // namespace tessera::linalg
