// The portable vector kernels: one lane of plain float, same algorithms as
// the SIMD sets so results agree across machines up to rounding.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "linalg/vec_impl.hpp"
#include "linalg/vec_math.hpp"

namespace tessera::linalg::detail {

namespace {

struct Scalar {
  using R = float;
  static constexpr int64_t W = 1;
  static R load(const float* p) { return *p; }
  static void store(float* p, R r) { *p = r; }
  static R load_tail(const float*, int64_t, float fill) { return fill; }  // never called: W == 1
  static void store_tail(float*, int64_t, R) {}
  static R set1(float v) { return v; }
  static constexpr bool kScalef = false;
  static R scalef(R p, R) { return p; }  // unused
  static R add(R a, R b) { return a + b; }
  static R sub(R a, R b) { return a - b; }
  static R mul(R a, R b) { return a * b; }
  static R div(R a, R b) { return a / b; }
  static R fmadd(R a, R b, R c) { return a * b + c; }
  // Rounded once, as the reductions that call it need; libm picks the
  // FMA instruction where the CPU has one.
  static R fma(R a, R b, R c) { return std::fma(a, b, c); }
  static R max(R a, R b) { return a > b ? a : b; }
  static R min(R a, R b) { return a < b ? a : b; }
  static R sqrt(R a) { return std::sqrt(a); }
  static R abs(R a) { return std::fabs(a); }
  static R round(R a) { return std::nearbyint(a); }
  static R trunc(R a) { return std::trunc(a); }
  static R pow2i(R n) {
    const uint32_t bits = uint32_t(int32_t(n) + 127) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  static R exponent(R x) {
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return float(int32_t(bits >> 23) - 127);
  }
  static R mantissa(R x) {
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits = (bits & 0x007fffffu) | 0x3f800000u;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  static float hsum(R a) { return a; }
  static float hmax(R a) { return a; }
  static bool gt(R a, R b) { return a > b; }
  static bool isnan(R a) { return a != a; }
  static R select(bool m, R a, R b) { return m ? a : b; }
  static R copysign(R mag, R sign) { return std::copysign(mag, sign); }
};

void binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  vec_impl::binary<Scalar>(int(op), a, b, out, n);
}
void binary_scalar(BinaryOp op, const float* a, float s, bool first, float* out, int64_t n) {
  vec_impl::binary_scalar<Scalar>(int(op), a, s, first, out, n);
}

}  // namespace

VecKernels vec_kernels_generic() {
  return {"generic_f32",
          vec_impl::exp_loop<Scalar>,
          vec_impl::erf_loop<Scalar>,
          vec_impl::tanh_loop<Scalar>,
          vec_impl::log_loop<Scalar>,
          vec_impl::sin_loop<Scalar>,
          vec_impl::cos_loop<Scalar>,
          vec_impl::atan_loop<Scalar>,
          vec_impl::asin_loop<Scalar>,
          vec_impl::softplus_loop<Scalar>,
          vec_impl::gelu_loop<Scalar>,
          vec_impl::gelu_tanh_loop<Scalar>,
          vec_impl::mish_loop<Scalar>,
          vec_impl::softmax_row<Scalar>,
          vec_impl::log_softmax_row<Scalar>,
          vec_impl::layer_norm_row<Scalar>,
          binary,
          binary_scalar,
          vec_impl::binary_rows<Scalar>,
          vec_impl::activation<Scalar>};
}

}  // namespace tessera::linalg::detail
