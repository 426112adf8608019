// AVX-512 vector kernels: 16 float lanes, masked loads/stores for the tails.
// The target pragma covers only vec_impl.hpp's loops and the lane type below;
// everything from the standard library is included before it.
#include <cstdint>

#include "linalg/cpu_isa.hpp"
#include "linalg/vec_math.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target("avx512f,fma")
// GCC 12 flags the deliberately undefined pass-through operand inside its own
// AVX-512 intrinsics (_mm512_undefined_ps, and _mm512_reduce_max_ps's
// _mm512_extractf64x4_pd) once they are inlined: a false positive.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "linalg/vec_impl.hpp"

namespace tessera::linalg::detail {

namespace {

struct Avx512 {
  using R = __m512;
  static constexpr int64_t W = 16;
  static __mmask16 tail(int64_t n) { return __mmask16((1u << n) - 1); }
  static R load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, R r) { _mm512_storeu_ps(p, r); }
  static R load_tail(const float* p, int64_t n, float fill) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), tail(n), p);
  }
  static void store_tail(float* p, int64_t n, R r) { _mm512_mask_storeu_ps(p, tail(n), r); }
  static R set1(float v) { return _mm512_set1_ps(v); }
  static constexpr bool kScalef = true;
  static R scalef(R p, R n) { return _mm512_scalef_ps(p, n); }
  static R add(R a, R b) { return _mm512_add_ps(a, b); }
  static R sub(R a, R b) { return _mm512_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm512_mul_ps(a, b); }
  static R div(R a, R b) { return _mm512_div_ps(a, b); }
  static R fmadd(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static R max(R a, R b) { return _mm512_max_ps(a, b); }
  static R min(R a, R b) { return _mm512_min_ps(a, b); }
  static R sqrt(R a) { return _mm512_sqrt_ps(a); }
  static R abs(R a) { return _mm512_abs_ps(a); }
  static R round(R a) {
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static R trunc(R a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static R pow2i(R n) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
  }
  static R exponent(R x) { return _mm512_getexp_ps(x); }
  static R mantissa(R x) { return _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero); }
  static float hsum(R a) { return _mm512_reduce_add_ps(a); }
  static float hmax(R a) { return _mm512_reduce_max_ps(a); }
  static __mmask16 gt(R a, R b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static __mmask16 isnan(R a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  static R select(__mmask16 m, R a, R b) { return _mm512_mask_blend_ps(m, b, a); }
  static R copysign(R mag, R sign) {
    const __m512i s =
        _mm512_and_si512(_mm512_castps_si512(sign), _mm512_set1_epi32(int(0x80000000u)));
    const __m512i m = _mm512_and_si512(_mm512_castps_si512(mag), _mm512_set1_epi32(0x7fffffff));
    return _mm512_castsi512_ps(_mm512_or_si512(m, s));
  }
};

void binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  vec_impl::binary<Avx512>(int(op), a, b, out, n);
}
void binary_scalar(BinaryOp op, const float* a, float s, bool first, float* out, int64_t n) {
  vec_impl::binary_scalar<Avx512>(int(op), a, s, first, out, n);
}

}  // namespace

}  // namespace tessera::linalg::detail
#pragma GCC diagnostic pop
#pragma GCC pop_options

namespace tessera::linalg::detail {

bool vec_kernels_avx512(VecKernels* out) {
  if (cpu_isa() < Isa::kAvx512) return false;
  *out = {"avx512_f32",
          vec_impl::exp_loop<Avx512>,
          vec_impl::erf_loop<Avx512>,
          vec_impl::tanh_loop<Avx512>,
          vec_impl::log_loop<Avx512>,
          vec_impl::sin_loop<Avx512>,
          vec_impl::cos_loop<Avx512>,
          vec_impl::atan_loop<Avx512>,
          vec_impl::asin_loop<Avx512>,
          vec_impl::softplus_loop<Avx512>,
          vec_impl::gelu_loop<Avx512>,
          vec_impl::gelu_tanh_loop<Avx512>,
          vec_impl::mish_loop<Avx512>,
          vec_impl::softmax_row<Avx512>,
          vec_impl::log_softmax_row<Avx512>,
          vec_impl::layer_norm_row<Avx512>,
          binary,
          binary_scalar,
          vec_impl::binary_rows<Avx512>,
          vec_impl::activation<Avx512>};
  return true;
}

}  // namespace tessera::linalg::detail

#else
namespace tessera::linalg::detail {
bool vec_kernels_avx512(VecKernels*) { return false; }
}  // namespace tessera::linalg::detail
#endif
