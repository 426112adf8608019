#include "linalg/nhwc_bytes.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace tessera::linalg {

namespace {

#if defined(__x86_64__)
// 16 pixels x 16 channels: r[c] holds channel c's 16 pixels; out[p] gets
// pixel p's 16 channels. Four rounds of interleaves, each doubling the run
// of one pixel's channels (1 -> 2 -> 4 -> 8 -> 16 bytes).
inline void transpose16(const __m128i (&r)[16], __m128i (&out)[16]) {
  __m128i a[16], b[16], c[16];
  for (int i = 0; i < 8; ++i) {  // channel pairs (2i, 2i+1): pixels 0-7, 8-15
    a[2 * i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
  // a[2i + h]: channels 2i, 2i+1 of pixels 8h .. 8h + 7.
  for (int q = 0; q < 4; ++q)      // channel quads (4q .. 4q + 3)
    for (int h = 0; h < 2; ++h) {  // pixels 8h.. : words of pairs 2q and 2q+1
      b[4 * q + 2 * h] = _mm_unpacklo_epi16(a[4 * q + h], a[4 * q + 2 + h]);
      b[4 * q + 2 * h + 1] = _mm_unpackhi_epi16(a[4 * q + h], a[4 * q + 2 + h]);
    }
  // b[4q + k]: channels 4q .. 4q + 3 of pixels 4k .. 4k + 3.
  for (int o = 0; o < 2; ++o)      // channel octets (8o .. 8o + 7)
    for (int k = 0; k < 4; ++k) {  // pixels 4k..: dwords of quads 2o and 2o+1
      c[8 * o + 2 * k] = _mm_unpacklo_epi32(b[8 * o + k], b[8 * o + 4 + k]);
      c[8 * o + 2 * k + 1] = _mm_unpackhi_epi32(b[8 * o + k], b[8 * o + 4 + k]);
    }
  // c[8o + j]: channels 8o .. 8o + 7 of pixels 2j, 2j + 1.
  for (int j = 0; j < 8; ++j) {
    out[2 * j] = _mm_unpacklo_epi64(c[j], c[8 + j]);
    out[2 * j + 1] = _mm_unpackhi_epi64(c[j], c[8 + j]);
  }
}
#endif

}  // namespace

void to_padded_nhwc(const uint8_t* src, const PaddedPixels& g, uint8_t* dst) {
  const int64_t C = g.C, HW = g.H * g.W;
  // The border: whole rows above and below, the columns beside each row.
  auto fill_pixels = [&](int64_t first, int64_t count) {
    std::memset(dst + first * C, g.fill, size_t(count * C));
  };
  fill_pixels(0, g.top * g.PW);
  for (int64_t y = 0; y < g.H; ++y) {
    const int64_t row = (y + g.top) * g.PW;
    fill_pixels(row, g.left);
    fill_pixels(row + g.left + g.W, g.PW - g.left - g.W);
  }
  fill_pixels((g.top + g.H) * g.PW, (g.PH - g.top - g.H) * g.PW);
  // Pixel i of the image (y = i / W, x = i % W) lands at grid pixel
  // (y + top) * PW + x + left; `at` walks them in order (no division).
  int64_t y = 0, x = 0;
  auto next = [&]() {
    uint8_t* d = dst + ((y + g.top) * g.PW + x + g.left) * C;
    if (++x == g.W) x = 0, ++y;
    return d;
  };
  const int64_t blocked_c = C - C % 16;
  int64_t i = 0;
#if defined(__x86_64__)
  // 16 pixels at a time, all their channels in blocks of 16: the writes
  // fill whole pixel rows, the reads take 16 bytes of each channel plane.
  const __m128i flip = _mm_set1_epi8(char(g.flip));
  for (; blocked_c > 0 && i + 16 <= HW; i += 16) {
    uint8_t* d[16];
    for (int p = 0; p < 16; ++p) d[p] = next();
    for (int64_t c0 = 0; c0 < blocked_c; c0 += 16) {
      __m128i r[16], out[16];
      for (int c = 0; c < 16; ++c)
        r[c] = _mm_xor_si128(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + (c0 + c) * HW + i)), flip);
      transpose16(r, out);
      for (int p = 0; p < 16; ++p) _mm_storeu_si128(reinterpret_cast<__m128i*>(d[p] + c0), out[p]);
    }
    for (int p = 0; p < 16; ++p)
      for (int64_t c = blocked_c; c < C; ++c) d[p][c] = src[c * HW + i + p] ^ g.flip;
  }
#endif
  // The pixels the blocks left, one by one.
  for (; i < HW; ++i) {
    uint8_t* d = next();
    for (int64_t c = 0; c < C; ++c) d[c] = src[c * HW + i] ^ g.flip;
  }
}

}  // namespace tessera::linalg
