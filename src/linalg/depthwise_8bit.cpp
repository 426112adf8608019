#include "linalg/depthwise_8bit.hpp"

#include <algorithm>
#include <cstring>

#include "core/host_heap.hpp"
#include "linalg/cpu_isa.hpp"
#include "linalg/quantize.hpp"
#include "linalg/strided_bytes.hpp"

namespace tessera::linalg {

namespace {

// Per-thread scratch, grown on demand.
template <typename T>
T* scratch(size_t n) {
  static thread_local HostVector<T> buf;
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

// Writes the plane's rows 0 .. rows of the padded image into p, `width`
// bytes each, with the border bytes set to the zero point (so they
// dequantize to exactly 0).
void padded_bytes(const uint8_t* x, uint8_t zero, const Depthwise3x3Plane& g, int64_t rows,
                  int64_t width, uint8_t* p) {
  std::memset(p, zero, size_t(rows * width));
  const int64_t n = std::min(g.W, width - g.pad_left);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t src = r - g.pad_top;
    if (src >= 0 && src < g.H && n > 0)
      std::memcpy(p + r * width + g.pad_left, x + src * g.W, size_t(n));
  }
}

// Stride 1: rows at the padded width Wp, one flat loop over all output rows
// (the columns past OW are computed and dropped), so short rows still fill
// whole vectors; sums go straight to int32, at the padded width in f.
[[gnu::always_inline]] inline void stride1(const float* p, int64_t Wp, const float* w,
                                           const Depthwise3x3Plane& g, int32_t* f) {
  const int64_t n = g.OH * Wp;
  const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
              w7 = w[7], w8 = w[8];
  const float* r0 = p;
  const float* r1 = p + Wp;
  const float* r2 = p + 2 * Wp;
  for (int64_t t = 0; t < n; ++t)
    f[t] = int32_t(w0 * r0[t] + w1 * r0[t + 1] + w2 * r0[t + 2] + w3 * r1[t] + w4 * r1[t + 1] +
                   w5 * r1[t + 2] + w6 * r2[t] + w7 * r2[t + 1] + w8 * r2[t + 2]);
}

// Stride 2, over the padded image split four ways by row and column parity,
// each part We = OW + 1 columns a row: output (oh, ow) reads rows 2 oh and
// 2 oh + 2 (even rows: part rows oh and oh + 1) and 2 oh + 1 (odd rows: part
// row oh), and columns 2 ow, 2 ow + 1, 2 ow + 2 (even ow, odd ow, even
// ow + 1). So, as at stride 1, one flat loop runs over all output rows at
// the part width (the last column computed and dropped): whole vectors
// where a 56-wide row left 8 to a scalar remainder.
[[gnu::always_inline]] inline void stride2(const float* ee, const float* eo, const float* oe,
                                           const float* oo, int64_t We, const float* w,
                                           const Depthwise3x3Plane& g, int32_t* f) {
  const int64_t n = g.OH * We;
  const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
              w7 = w[7], w8 = w[8];
  const float* ee2 = ee + We;
  const float* eo2 = eo + We;
  for (int64_t t = 0; t < n; ++t)
    f[t] = int32_t(w0 * ee[t] + w1 * eo[t] + w2 * ee[t + 1] + w3 * oe[t] + w4 * oo[t] +
                   w5 * oe[t + 1] + w6 * ee2[t] + w7 * eo2[t] + w8 * ee2[t + 1]);
}

using TapsS1 = void (*)(const float*, int64_t, const float*, const Depthwise3x3Plane&, int32_t*);
using TapsS2 = void (*)(const float*, const float*, const float*, const float*, int64_t,
                        const float*, const Depthwise3x3Plane&, int32_t*);

__attribute__((TESSERA_NO_LIBCALLS)) void s1_generic(const float* p, int64_t Wp, const float* w,
                                                     const Depthwise3x3Plane& g, int32_t* f) {
  stride1(p, Wp, w, g, f);
}
__attribute__((TESSERA_NO_LIBCALLS)) void s2_generic(const float* ee, const float* eo,
                                                     const float* oe, const float* oo, int64_t We,
                                                     const float* w, const Depthwise3x3Plane& g,
                                                     int32_t* f) {
  stride2(ee, eo, oe, oo, We, w, g, f);
}

#if defined(__x86_64__)
__attribute__((target("avx512f,fma"), TESSERA_NO_LIBCALLS)) void s1_avx512(
    const float* p, int64_t Wp, const float* w, const Depthwise3x3Plane& g, int32_t* f) {
  stride1(p, Wp, w, g, f);
}
__attribute__((target("avx512f,fma"), TESSERA_NO_LIBCALLS)) void s2_avx512(
    const float* ee, const float* eo, const float* oe, const float* oo, int64_t We, const float* w,
    const Depthwise3x3Plane& g, int32_t* f) {
  stride2(ee, eo, oe, oo, We, w, g, f);
}
#endif

bool use_avx512() {
#if defined(__x86_64__)
  static const bool on = cpu_isa() >= Isa::kAvx512;
  return on;
#else
  return false;
#endif
}

}  // namespace

bool depthwise3x3_8bit_fits(int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                            int64_t pad_top, int64_t pad_left) {
  return kh == 3 && kw == 3 && dh == 1 && dw == 1 && sh == sw && (sh == 1 || sh == 2) &&
         pad_top >= 0 && pad_left >= 0;
}

void depthwise3x3_8bit(const uint8_t* x, bool is_signed, float x_zero, const float* w,
                       const Depthwise3x3Plane& g, int32_t* out) {
  const uint8_t zero_byte = is_signed ? uint8_t(int8_t(x_zero)) : uint8_t(x_zero);
#if defined(__x86_64__)
  const TapsS1 s1 = use_avx512() ? s1_avx512 : s1_generic;
  const TapsS2 s2 = use_avx512() ? s2_avx512 : s2_generic;
#else
  const TapsS1 s1 = s1_generic;
  const TapsS2 s2 = s2_generic;
#endif
  if (g.stride == 1) {
    // + 2 floats: the flat loop's last (dropped) columns read two past the
    // last row.
    const int64_t Wp = std::max(g.pad_left + g.W, g.OW + 2), rows = g.OH + 2;
    uint8_t* bytes = scratch<uint8_t>(size_t(rows * Wp));
    padded_bytes(x, zero_byte, g, rows, Wp, bytes);
    float* p = scratch<float>(size_t(rows * Wp + 2));
    dequantize_8bit(bytes, is_signed, rows * Wp, 1.0f, x_zero, p);
    p[rows * Wp] = p[rows * Wp + 1] = 0.f;
    int32_t* f = scratch<int32_t>(size_t(g.OH * Wp));
    s1(p, Wp, w, g, f);
    // The kept columns of each row, as bytes (masked vector moves).
    gather_strided_bytes(reinterpret_cast<const uint8_t*>(f), Wp * 4, 1, g.OH, g.OW * 4,
                         reinterpret_cast<uint8_t*>(out));
    return;
  }
  // Padded rows 0 .. 2 OH (+ one, so the odd rows' part has OH + 1 rows
  // too), 2 We bytes each; each part holds OH + 1 rows of We values, plus
  // one value of slack: the flat loop's dropped last column reads one past
  // its part's last row.
  const int64_t We = g.OW + 1, rows = 2 * g.OH + 2, part = (g.OH + 1) * We + 1;
  uint8_t* bytes = scratch<uint8_t>(size_t(rows * 2 * We + 4 * part));
  uint8_t* split = bytes + rows * 2 * We;
  padded_bytes(x, zero_byte, g, rows, 2 * We, bytes);
  for (int k = 0; k < 4; ++k) {  // ee, eo, oe, oo: row parity k / 2, column parity k % 2
    uint8_t* dst = split + k * part;
    gather_strided_bytes(bytes + (k / 2) * 2 * We + k % 2, 4 * We, 2, g.OH + 1, We, dst);
    dst[part - 1] = zero_byte;
  }
  float* f = scratch<float>(size_t(4 * part));
  dequantize_8bit(split, is_signed, 4 * part, 1.0f, x_zero, f);
  int32_t* sums = scratch<int32_t>(size_t(g.OH * We));
  s2(f, f + part, f + 2 * part, f + 3 * part, We, w, g, sums);
  gather_strided_bytes(reinterpret_cast<const uint8_t*>(sums), We * 4, 1, g.OH, g.OW * 4,
                       reinterpret_cast<uint8_t*>(out));
}

}  // namespace tessera::linalg
