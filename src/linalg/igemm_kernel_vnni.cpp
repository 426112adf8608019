// AVX-512 VNNI tile of igemm: up to 6 rows x 64 columns of int32 sums in 24
// zmm registers; each group of 4 k values loads the panel's four 64-byte
// vectors once and, per row, broadcasts the row's 4 bytes into vpdpbusd
// (uint8 x int8, four products a lane, summed without saturation).
// Compiled for VNNI via the target attribute so the rest of the build stays
// generic.
#include <cstring>

#include "linalg/cpu_isa.hpp"
#include "linalg/igemm_kernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

template <int MR>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void tile(int64_t groups, const uint8_t* a,
                                                                 int64_t lda, const int8_t* b,
                                                                 int32_t* out) {
  __m512i acc[MR][4];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) acc[r][v] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    const int8_t* bg = b + g * 256;
    const __m512i b0 = _mm512_loadu_si512(bg);
    const __m512i b1 = _mm512_loadu_si512(bg + 64);
    const __m512i b2 = _mm512_loadu_si512(bg + 128);
    const __m512i b3 = _mm512_loadu_si512(bg + 192);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      int32_t four;
      std::memcpy(&four, a + r * lda + 4 * g, 4);
      const __m512i ar = _mm512_set1_epi32(four);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], ar, b0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], ar, b1);
      acc[r][2] = _mm512_dpbusd_epi32(acc[r][2], ar, b2);
      acc[r][3] = _mm512_dpbusd_epi32(acc[r][3], ar, b3);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) _mm512_storeu_si512(out + r * 64 + v * 16, acc[r][v]);
}

}  // namespace

void igemm_tile_vnni512(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                        const int8_t* panel, int32_t* out) {
  switch (rows) {
    case 1:
      return tile<1>(groups, a, lda, panel, out);
    case 2:
      return tile<2>(groups, a, lda, panel, out);
    case 3:
      return tile<3>(groups, a, lda, panel, out);
    case 4:
      return tile<4>(groups, a, lda, panel, out);
    case 5:
      return tile<5>(groups, a, lda, panel, out);
    default:
      return tile<6>(groups, a, lda, panel, out);
  }
}

bool igemm_vnni512_available() {
  __builtin_cpu_init();
  static const bool cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vnni");
  return cpu && cpu_isa() == Isa::kAvx512;
}

#else

void igemm_tile_vnni512(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                        const int8_t* panel, int32_t* out) {
  igemm_tile_portable(groups, a, lda, rows, panel, out);
}
bool igemm_vnni512_available() { return false; }

#endif

}  // namespace tessera::linalg::detail
