// Dispatch for vec_math.hpp: the best kernel set this CPU runs, chosen once.
#include "linalg/vec_math.hpp"

#include <cmath>
#include <cstdint>

#include "linalg/vec_impl.hpp"

namespace tessera::linalg {

namespace {

const detail::VecKernels& best() {
  static const detail::VecKernels k = [] {
    detail::VecKernels v;
    if (detail::vec_kernels_avx512(&v)) return v;
    if (detail::vec_kernels_avx2(&v)) return v;
    return detail::vec_kernels_generic();
  }();
  return k;
}

}  // namespace

void vec_exp(const float* x, float* out, int64_t n) { best().exp(x, out, n); }
void vec_erf(const float* x, float* out, int64_t n) { best().erf(x, out, n); }
void vec_tanh(const float* x, float* out, int64_t n) { best().tanh(x, out, n); }
void vec_log(const float* x, float* out, int64_t n) { best().log(x, out, n); }
void vec_sin(const float* x, float* out, int64_t n) {
  detail::finish_sin_cos(false, best().sin(x, out, n), out, n);
}
void vec_cos(const float* x, float* out, int64_t n) {
  detail::finish_sin_cos(true, best().cos(x, out, n), out, n);
}
void vec_atan(const float* x, float* out, int64_t n) { best().atan(x, out, n); }
void vec_asin(const float* x, float* out, int64_t n) { best().asin(x, out, n); }
void vec_softplus(const float* x, float* out, int64_t n) { best().softplus(x, out, n); }
void vec_gelu(const float* x, const float* bias, int64_t bias_len, float* out, int64_t n) {
  best().gelu(x, bias, bias_len, out, n);
}
void vec_gelu_tanh(const float* x, float* out, int64_t n) { best().gelu_tanh(x, out, n); }
void vec_mish(const float* x, float* out, int64_t n) { best().mish(x, out, n); }
void vec_softmax_row(const float* x, float* out, int64_t n) { best().softmax_row(x, out, n); }
void vec_log_softmax_row(const float* x, float* out, int64_t n) {
  best().log_softmax_row(x, out, n);
}
void vec_layer_norm_row(const float* x, const float* skip, const float* bias, const float* gamma,
                        const float* beta, float eps, float* out, float* sum_out, int64_t n) {
  best().layer_norm_row(x, skip, bias, gamma, beta, eps, out, sum_out, n);
}
void vec_binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  best().binary(op, a, b, out, n);
}
void vec_binary_scalar(BinaryOp op, const float* a, float s, bool scalar_first, float* out,
                       int64_t n) {
  best().binary_scalar(op, a, s, scalar_first, out, n);
}
void vec_binary_rows(BinaryOp op, const float* a, const float* row, bool row_first, float* out,
                     int64_t rows, int64_t n) {
  best().binary_rows(int(op), a, row, row_first, out, rows, n);
}
void vec_activation(VecActivation kind, float p0, float p1, const float* x, float* out, int64_t n) {
  best().activation(int(kind), p0, p1, x, out, n);
}
const char* vec_kernel_name() { return best().name; }

}  // namespace tessera::linalg

namespace tessera::linalg::detail {

void finish_sin_cos(bool cos, float amax, float* out, int64_t n) {
  if (!(amax > vec_impl::kTrigMax)) return;
  for (int64_t i = 0; i < n; ++i)
    if (!(std::fabs(out[i]) <= 1.0f)) out[i] = cos ? std::cos(out[i]) : std::sin(out[i]);
}

}  // namespace tessera::linalg::detail
