// Vectorised float loops for the transformer hot path: exp, erf, tanh, log,
// softplus, GELU (both forms), Mish, row softmax, layer norm and element-wise
// arithmetic. Each has a portable version and AVX2+FMA / AVX-512 versions;
// the set is chosen once, at first use, by CPU features (as sgemm picks its
// micro-kernel), and every call goes through that table. All functions
// accept n == 0 and unaligned pointers; `out` may alias an input of the same
// length (in-place use).
#pragma once
#include <cstdint>

namespace tessera::linalg {

// out[i] = exp(x[i]); NaN stays NaN, +inf -> inf, -inf -> 0.
void vec_exp(const float* x, float* out, int64_t n);
// out[i] = erf(x[i]) (absolute error about 1e-7).
void vec_erf(const float* x, float* out, int64_t n);
// out[i] = tanh(x[i]) within a few ulps, relative accuracy kept near 0;
// saturates to +-1, NaN stays NaN.
void vec_tanh(const float* x, float* out, int64_t n);
// out[i] = log(x[i]) within a few ulps; log(+-0) = -inf, negative -> NaN.
void vec_log(const float* x, float* out, int64_t n);
// out[i] = sin(x[i]) and cos(x[i]) within a few ulps; |x| beyond 65536
// (rare in models) goes through libm; infinities and NaN give NaN.
void vec_sin(const float* x, float* out, int64_t n);
void vec_cos(const float* x, float* out, int64_t n);
// out[i] = log(1 + exp(x[i])) without overflow, keeping relative accuracy
// for very negative x (where it is exp(x)).
void vec_softplus(const float* x, float* out, int64_t n);
// out[i] = gelu(x[i] + bias[i % bias_len]) with the exact erf form
// 0.5 * v * (1 + erf(v / sqrt(2))); bias may be null (then bias_len is ignored).
void vec_gelu(const float* x, const float* bias, int64_t bias_len, float* out, int64_t n);
// out[i] = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), GELU's tanh
// form (ONNX Gelu approximate="tanh"), computed as x * sigmoid(2 * that argument).
void vec_gelu_tanh(const float* x, float* out, int64_t n);
// out[i] = x * tanh(softplus(x)) (Mish).
void vec_mish(const float* x, float* out, int64_t n);
// One softmax over a row of n values: out = exp(x - max) / sum. A row with a
// NaN gives NaNs; a row of all -inf gives NaNs (0/0), as the formula does.
// atan(x) and asin(x), within 2 ulps of the correctly rounded result (asin:
// NaN outside [-1, 1], as libm); NaN in gives NaN, atan(+-inf) = +-pi/2.
void vec_atan(const float* x, float* out, int64_t n);
void vec_asin(const float* x, float* out, int64_t n);
void vec_softmax_row(const float* x, float* out, int64_t n);
// One log-softmax row: out = x - max - log(sum(exp(x - max))); NaNs where
// vec_softmax_row gives them.
void vec_log_softmax_row(const float* x, float* out, int64_t n);
// One layer-norm row: v = x (+ skip) (+ bias); out = (v - mean) / sqrt(var + eps)
// * gamma (+ beta). skip, bias and beta may be null. Statistics are
// accumulated in float vector lanes (pairwise across lanes), which is what
// keeps the loop vectorised; the mean is subtracted before squaring.
// When `sum_out` is non-null it receives v (the pre-norm sum, for skip layer
// norm's optional second output).
void vec_layer_norm_row(const float* x, const float* skip, const float* bias, const float* gamma,
                        const float* beta, float eps, float* out, float* sum_out, int64_t n);

enum class BinaryOp { kAdd, kSub, kMul, kDiv };
// out[i] = a[i] op b[i].
void vec_binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n);
// out[i] = a[i] op s (scalar_first: s op a[i]).
void vec_binary_scalar(BinaryOp op, const float* a, float s, bool scalar_first, float* out,
                       int64_t n);
// out[r * n + j] = a[r * n + j] op row[j] for rows r < rows (row_first:
// row[j] op a[r * n + j]): a per-channel operand of a plain or blocked image.
void vec_binary_rows(BinaryOp op, const float* a, const float* row, bool row_first, float* out,
                     int64_t rows, int64_t n);

// Activations that need more than a compare, shared by the unary ops and the
// convolutions' fused epilogues (so fused and unfused give the same bytes):
//   kSigmoid:     1 / (1 + exp(-x))
//   kSwish:       x * sigmoid(p0 x)                (SiLU: p0 = 1)
//   kHardSigmoid: max(0, min(1, p0 x + p1))       (a NaN passes through)
//   kHardSwish:   x * max(0, min(1, p0 x + p1))   (HardSwish: p0 = 1/6, p1 = 1/2)
//   kElu:         x < 0 ? p0 (e^x - 1) : x
//   kSelu:        p1 * (x > 0 ? x : p0 (e^x - 1))  (p0 alpha, p1 gamma)
//   kCelu:        x > 0 ? x : p0 (e^(x / p0) - 1)
//   kLeakyRelu:   x < 0 ? p0 x : x
// (e^x - 1 keeps its relative accuracy near 0; a NaN passes through.)
enum class VecActivation {
  kSigmoid,
  kSwish,
  kHardSigmoid,
  kHardSwish,
  kElu,
  kSelu,
  kCelu,
  kLeakyRelu
};
void vec_activation(VecActivation kind, float p0, float p1, const float* x, float* out, int64_t n);

// Name of the vector kernel set in use, e.g. "avx512_f32" (for reports).
const char* vec_kernel_name();

}  // namespace tessera::linalg

namespace tessera::linalg::detail {

// The table every public function dispatches through. Tests run each table
// the CPU supports against a scalar reference.
struct VecKernels {
  const char* name;
  void (*exp)(const float*, float*, int64_t);
  void (*erf)(const float*, float*, int64_t);
  void (*tanh)(const float*, float*, int64_t);
  void (*log)(const float*, float*, int64_t);
  // These leave x itself in the lanes they do not reduce (|x| > 65536 or
  // infinite) and return the largest |x|; finish_sin_cos completes those.
  float (*sin)(const float*, float*, int64_t);
  float (*cos)(const float*, float*, int64_t);
  void (*atan)(const float*, float*, int64_t);
  void (*asin)(const float*, float*, int64_t);
  void (*softplus)(const float*, float*, int64_t);
  void (*gelu)(const float*, const float*, int64_t, float*, int64_t);
  void (*gelu_tanh)(const float*, float*, int64_t);
  void (*mish)(const float*, float*, int64_t);
  void (*softmax_row)(const float*, float*, int64_t);
  void (*log_softmax_row)(const float*, float*, int64_t);
  void (*layer_norm_row)(const float*, const float*, const float*, const float*, const float*,
                         float, float*, float*, int64_t);
  void (*binary)(BinaryOp, const float*, const float*, float*, int64_t);
  void (*binary_scalar)(BinaryOp, const float*, float, bool, float*, int64_t);
  void (*binary_rows)(int, const float*, const float*, bool, float*, int64_t, int64_t);
  void (*activation)(int, float, float, const float*, float*, int64_t);
};

// The lanes a sin/cos kernel left (|out[i]| > 1: the input itself) through
// libm, where `amax` (the kernel's return) says there may be some.
void finish_sin_cos(bool cos, float amax, float* out, int64_t n);

// Each returns false when this build or CPU cannot run it.
bool vec_kernels_avx512(VecKernels* out);
bool vec_kernels_avx2(VecKernels* out);
VecKernels vec_kernels_generic();

}  // namespace tessera::linalg::detail
