#include "linalg/strided_bytes.hpp"

#include <cstring>

#include "linalg/cpu_isa.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg {

namespace {

void gather_portable(const uint8_t* src, int64_t pitch, int64_t step, int64_t rows, int64_t width,
                     uint8_t* dst) {
  for (int64_t r = 0; r < rows; ++r, dst += width) {
    const uint8_t* s = src + r * pitch;
    if (step == 1)
      std::memcpy(dst, s, size_t(width));
    else
      for (int64_t i = 0; i < width; ++i) dst[i] = s[i * step];
  }
}

#if defined(__x86_64__)
inline __mmask64 first_bytes(int64_t n) {
  return n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1;
}

// Masked loads never touch the bytes they leave out, so no run reads past
// its last pixel. Stride 2 keeps the low byte of each 16-bit word (vpmovwb).
__attribute__((target("avx512f,avx512bw"))) void gather_avx512(const uint8_t* src, int64_t pitch,
                                                               int64_t step, int64_t rows,
                                                               int64_t width, uint8_t* dst) {
  for (int64_t r = 0; r < rows; ++r, dst += width) {
    const uint8_t* s = src + r * pitch;
    if (step == 1) {
      for (int64_t i = 0; i < width; i += 64) {
        const __mmask64 m = first_bytes(width - i);
        _mm512_mask_storeu_epi8(dst + i, m, _mm512_maskz_loadu_epi8(m, s + i));
      }
    } else {
      for (int64_t i = 0; i < width; i += 32) {
        const int64_t n = width - i < 32 ? width - i : 32;
        const __m512i pairs = _mm512_maskz_loadu_epi8(first_bytes(2 * n - 1), s + 2 * i);
        _mm512_mask_cvtepi16_storeu_epi8(dst + i, __mmask32(first_bytes(n)), pairs);
      }
    }
  }
}
#endif

}  // namespace

void gather_strided_bytes(const uint8_t* src, int64_t pitch, int64_t step, int64_t rows,
                          int64_t width, uint8_t* dst) {
#if defined(__x86_64__)
  static const bool avx512 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bw") && cpu_isa() == Isa::kAvx512;
  }();
  if (avx512 && (step == 1 || step == 2)) return gather_avx512(src, pitch, step, rows, width, dst);
#endif
  gather_portable(src, pitch, step, rows, width, dst);
}

}  // namespace tessera::linalg
