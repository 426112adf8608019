#include "linalg/depthwise_vnni.hpp"

#include <algorithm>
#include <cstring>

#include "core/host_heap.hpp"
#include "linalg/igemm_kernel.hpp"
#include "linalg/igemm_tiles.hpp"
#include "linalg/requant_vnni.hpp"

namespace tessera::linalg {

namespace {

bool vbmi_vnni() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  static const bool cpu = __builtin_cpu_supports("avx512vbmi");
  return cpu && detail::igemm_vnni512_available();
#else
  return false;
#endif
}

#if defined(__x86_64__)
// dst[i] = src[i] ^ flip for i < n.
void copy_row(const uint8_t* __restrict src, int64_t n, uint8_t flip, uint8_t* __restrict dst) {
  if (flip == 0) {
    std::memcpy(dst, src, size_t(n));
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] ^ flip;
}

// GCC 12's false positive on the AVX-512 intrinsics' undefined operands (see
// requant_vnni.hpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
// The plane at p (rows PW bytes apart, bordered, 64 bytes of slack past the
// last row). Lane j of the permuted vector holds bytes j s .. j s + 3 of the
// row from output position ox0 on: position ox0 + j's taps (the fourth
// byte, past kw = 3, meets a zero weight).
template <int S>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi,fma"))) void rows(
    const uint8_t* p, int64_t PW, int64_t stride, const DepthwiseVnniFilter& f,
    const DepthwiseVnniShape& s, int32_t offset, float mult, const detail::RequantConsts& k,
    uint8_t* y) {
  alignas(64) uint8_t pick[64];
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 4; ++i) pick[4 * j + i] = uint8_t(j * stride + i);
  const __m512i idx = _mm512_load_si512(pick);
  // (Locals: the byte stores may alias the shape, which the compiler would
  // reload after each.)
  const int64_t kh = s.kh, OH = s.OH, OW = s.OW;
  __m512i w[8];
  for (int64_t ky = 0; ky < kh; ++ky) w[ky] = _mm512_set1_epi32(f.rows[ky]);
  const __m512i start = _mm512_set1_epi32(offset);
  const __m512 m = _mm512_set1_ps(mult);
  for (int64_t oy = 0; oy < OH; ++oy) {
    const uint8_t* top = p + oy * stride * PW;
    uint8_t* out = y + oy * OW;
    for (int64_t ox0 = 0; ox0 < OW; ox0 += 16) {
      __m512i acc = start;
      const uint8_t* at = top + ox0 * stride;
      for (int64_t ky = 0; ky < kh; ++ky) {
        const __m512i bytes = _mm512_loadu_si512(at + ky * PW);
        acc = _mm512_dpbusd_epi32(acc, _mm512_permutexvar_epi8(idx, bytes), w[ky]);
      }
      const int64_t left = OW - ox0;
      const __mmask16 keep = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
      _mm_mask_storeu_epi8(out + ox0, keep, detail::requant16<S>(acc, m, k));
    }
  }
}
#pragma GCC diagnostic pop
#endif

}  // namespace

bool depthwise_vnni_fits(const DepthwiseVnniShape& s) {
  return vbmi_vnni() && s.kh >= 1 && s.kh <= 8 && s.kw >= 1 && s.kw <= 4 &&
         (s.stride == 1 || s.stride == 2) && s.pad_top >= 0 && s.pad_left >= 0;
}

bool depthwise_vnni_requant_fits(int64_t taps, float y_scale, const float* mult,
                                 const int32_t* bias, int64_t count) {
  return detail::requant_in_registers_fits(taps, y_scale, mult, bias, count);
}

bool prepare_depthwise_vnni(const int32_t* taps, int64_t kh, int64_t kw, DepthwiseVnniFilter* out) {
  *out = {};
  if (kh > 8 || kw > 4) return false;
  for (int64_t ky = 0; ky < kh; ++ky) {
    uint32_t word = 0;
    for (int64_t kx = 0; kx < kw; ++kx) {
      const int32_t v = taps[ky * kw + kx];
      if (v < -128 || v > 127) return false;
      word |= uint32_t(uint8_t(int8_t(v))) << (8 * kx);
      out->sum += v;
    }
    out->rows[ky] = int32_t(word);
  }
  return true;
}

void depthwise_vnni_requant(const uint8_t* x, bool x_signed, int32_t x_zero,
                            const DepthwiseVnniFilter& f, const DepthwiseVnniShape& s,
                            const DepthwiseVnniRequant& q, uint8_t* y) {
#if defined(__x86_64__)
  if (s.OH <= 0 || s.OW <= 0) return;
  // The plane as A' (uint8: int8 flipped by 0x80, its zero point by +128),
  // bordered with the zero point (which adds nothing); rows wide enough
  // for every window, and slack for the last vector's 64-byte read.
  const uint8_t flip = x_signed ? 0x80 : 0;
  const int32_t za = x_zero + (x_signed ? 128 : 0);
  const int64_t PH = std::max(s.pad_top + s.H, (s.OH - 1) * s.stride + s.kh);
  const int64_t PW = std::max(s.pad_left + s.W, (s.OW - 1) * s.stride + s.kw);
  static thread_local HostVector<uint8_t> buf;
  const size_t bytes = size_t(PH * PW + 64);
  if (buf.size() < bytes) buf.resize(bytes);
  uint8_t* p = buf.data();
  std::memset(p, za, bytes);
  const int64_t W = s.W;  // (a local: byte stores may alias the shape)
  for (int64_t h = 0; h < s.H; ++h)
    copy_row(x + h * W, W, flip, p + (s.pad_top + h) * PW + s.pad_left);
  // sum = sum(A' w) - za' sum(w) + bias, started in the accumulators.
  const int32_t offset = int32_t(uint32_t(q.bias) - uint32_t(za) * uint32_t(f.sum));
  const detail::IgemmSaturate saturate =
      detail::igemm_saturate_for(q.lo, q.hi, q.y_scale, &q.mult, 1);
  const detail::RequantConsts k =
      detail::requant_consts(q.y_scale, 1.0f / q.y_scale, q.y_zero, q.lo, q.hi, saturate);
  switch (saturate) {
    case detail::IgemmSaturate::kUnsigned8:
      return rows<int(detail::IgemmSaturate::kUnsigned8)>(p, PW, s.stride, f, s, offset, q.mult, k,
                                                          y);
    case detail::IgemmSaturate::kSigned8:
      return rows<int(detail::IgemmSaturate::kSigned8)>(p, PW, s.stride, f, s, offset, q.mult, k,
                                                        y);
    default:
      return rows<int(detail::IgemmSaturate::kNone)>(p, PW, s.stride, f, s, offset, q.mult, k, y);
  }
#else
  (void)x, (void)x_signed, (void)x_zero, (void)f, (void)s, (void)q, (void)y;
#endif
}

}  // namespace tessera::linalg
