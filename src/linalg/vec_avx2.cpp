// AVX2+FMA vector kernels: 8 float lanes; tails go through maskload /
// maskstore with a lane mask built from the remaining count.
#include <cstdint>

#include "linalg/cpu_isa.hpp"
#include "linalg/vec_math.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "linalg/vec_impl.hpp"

namespace tessera::linalg::detail {

namespace {

struct Avx2 {
  using R = __m256;
  static constexpr int64_t W = 8;
  static __m256i tail(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static R load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, R r) { _mm256_storeu_ps(p, r); }
  static R load_tail(const float* p, int64_t n, float fill) {
    const __m256i m = tail(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
  }
  static void store_tail(float* p, int64_t n, R r) { _mm256_maskstore_ps(p, tail(n), r); }
  static R set1(float v) { return _mm256_set1_ps(v); }
  static constexpr bool kScalef = false;
  static R scalef(R p, R) { return p; }  // unused
  static R add(R a, R b) { return _mm256_add_ps(a, b); }
  static R sub(R a, R b) { return _mm256_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm256_mul_ps(a, b); }
  static R div(R a, R b) { return _mm256_div_ps(a, b); }
  static R fmadd(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
  static R fma(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
  static R max(R a, R b) { return _mm256_max_ps(a, b); }
  static R min(R a, R b) { return _mm256_min_ps(a, b); }
  static R sqrt(R a) { return _mm256_sqrt_ps(a); }
  static R abs(R a) { return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
  static R round(R a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static R trunc(R a) { return _mm256_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static R pow2i(R n) {
    const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
  }
  static R exponent(R x) {
    const __m256i b = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(b, _mm256_set1_epi32(127)));
  }
  static R mantissa(R x) {
    const __m256i b = _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x007fffff));
    return _mm256_castsi256_ps(_mm256_or_si256(b, _mm256_set1_epi32(0x3f800000)));
  }
  static float hsum(R a) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static float hmax(R a) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static R gt(R a, R b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static R isnan(R a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  static R select(R m, R a, R b) { return _mm256_blendv_ps(b, a, m); }
  static R copysign(R mag, R sign) {
    const R s = _mm256_castsi256_ps(_mm256_set1_epi32(int(0x80000000u)));
    return _mm256_or_ps(_mm256_andnot_ps(s, mag), _mm256_and_ps(s, sign));
  }
};

void binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  vec_impl::binary<Avx2>(int(op), a, b, out, n);
}
void binary_scalar(BinaryOp op, const float* a, float s, bool first, float* out, int64_t n) {
  vec_impl::binary_scalar<Avx2>(int(op), a, s, first, out, n);
}

}  // namespace

}  // namespace tessera::linalg::detail
#pragma GCC pop_options

namespace tessera::linalg::detail {

bool vec_kernels_avx2(VecKernels* out) {
  if (cpu_isa() < Isa::kAvx2) return false;
  *out = {"avx2_f32",
          vec_impl::exp_loop<Avx2>,
          vec_impl::erf_loop<Avx2>,
          vec_impl::tanh_loop<Avx2>,
          vec_impl::log_loop<Avx2>,
          vec_impl::sin_loop<Avx2>,
          vec_impl::cos_loop<Avx2>,
          vec_impl::atan_loop<Avx2>,
          vec_impl::asin_loop<Avx2>,
          vec_impl::softplus_loop<Avx2>,
          vec_impl::gelu_loop<Avx2>,
          vec_impl::gelu_tanh_loop<Avx2>,
          vec_impl::mish_loop<Avx2>,
          vec_impl::softmax_row<Avx2>,
          vec_impl::log_softmax_row<Avx2>,
          vec_impl::layer_norm_row<Avx2>,
          binary,
          binary_scalar,
          vec_impl::binary_rows<Avx2>,
          vec_impl::activation<Avx2>};
  return true;
}

}  // namespace tessera::linalg::detail

#else
namespace tessera::linalg::detail {
bool vec_kernels_avx2(VecKernels*) { return false; }
}  // namespace tessera::linalg::detail
#endif
