// Unary math on the GPU: Abs, Neg, Sign (floats and signed integers), the
// exponential, trigonometric and rounding functions and the parametric
// activations (float, float16, bfloat16, double), IsNaN and IsInf into bools,
// Not, and BitwiseNot (integers).
#include "providers/cuda/cuda_math_ops.hpp"

#include "providers/cuda/cuda_call.hpp"

namespace tessera::cuda {

const std::vector<DataType> kMathFloats = {DataType::kFloat, DataType::kFloat16,
                                           DataType::kBFloat16, DataType::kDouble};
const std::vector<DataType> kMathSignedInts = {DataType::kInt8, DataType::kInt16, DataType::kInt32,
                                               DataType::kInt64};
const std::vector<DataType> kMathInts = {DataType::kInt8,   DataType::kInt16, DataType::kInt32,
                                         DataType::kInt64,  DataType::kUInt8, DataType::kUInt16,
                                         DataType::kUInt32, DataType::kUInt64};

std::optional<MathType> math_type(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return MathType::kF32;
    case DataType::kFloat16:
      return MathType::kF16;
    case DataType::kBFloat16:
      return MathType::kBF16;
    case DataType::kDouble:
      return MathType::kF64;
    case DataType::kInt8:
      return MathType::kI8;
    case DataType::kInt16:
      return MathType::kI16;
    case DataType::kInt32:
      return MathType::kI32;
    case DataType::kInt64:
      return MathType::kI64;
    case DataType::kUInt8:
      return MathType::kU8;
    case DataType::kUInt16:
      return MathType::kU16;
    case DataType::kUInt32:
      return MathType::kU32;
    case DataType::kUInt64:
      return MathType::kU64;
    case DataType::kBool:
      return MathType::kBool;
    default:
      return std::nullopt;
  }
}

MathType math_type_of(const ep::KernelContext& ctx, const Tensor& t, const char* what) {
  const auto m = math_type(t.dtype());
  if (!m) ctx.fail_node(what, " is ", t.description(), ", a type the CUDA kernel does not take");
  return *m;
}

std::string check_math_rank(const ep::ClaimQuery& q) {
  for (size_t i = 0; i < q.node().inputs.size(); ++i)
    if (auto r = q.has_input(i) ? q.rank(i) : std::nullopt; r && *r > size_t(kMaxElementRank))
      return str_cat("input ", i, " has rank ", *r, "; the CUDA kernel takes at most ",
                     kMaxElementRank);
  return "";
}

namespace {

class CudaMathUnary : public CudaKernel {
 public:
  CudaMathUnary(const EnvPtr& env, MathUnary op, float alpha, float beta)
      : CudaKernel(env), op_(op), alpha_(alpha), beta_(beta) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const MathType t = math_type_of(ctx, x, "X");
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    const cudaError_t e = launch_math_unary(op_, t, x.raw_data(), y.mutable_raw_data(),
                                            x.num_elements(), alpha_, beta_, stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("X is ", x.description(), ", a type the CUDA kernel of ", ctx.node().op_type,
                    " does not take");
    check_cuda(e, "launch of the unary math kernel");
  }

 private:
  MathUnary op_;
  float alpha_, beta_;
};

template <MathUnary Op>
std::unique_ptr<ep::OpKernel> make_unary(const ep::KernelInfo&, const EnvPtr& env) {
  return std::make_unique<CudaMathUnary>(env, Op, 0.0f, 0.0f);
}

// A unary op whose parameters are the attributes `a` and `b` (with the
// spec's defaults); b may be null.
template <MathUnary Op>
ep::OpTable<CudaEnv>::Factory with_attrs(const char* a, float a_def, const char* b = nullptr,
                                         float b_def = 0.0f) {
  return [=](const ep::KernelInfo& info, const EnvPtr& env) -> std::unique_ptr<ep::OpKernel> {
    const float alpha = info.attr_float(a, a_def);
    if (Op == MathUnary::kCelu && alpha == 0.0f) info.fail_node("alpha must not be 0");
    return std::make_unique<CudaMathUnary>(env, Op, alpha, b ? info.attr_float(b, b_def) : 0.0f);
  };
}

// IsNaN (kNan) or IsInf into bools.
template <bool kNan>
class CudaFloatClass : public CudaKernel {
 public:
  CudaFloatClass(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        negative_(info.attr_int("detect_negative", 1) != 0),
        positive_(info.attr_int("detect_positive", 1) != 0) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const MathType t = math_type_of(ctx, x, "X");
    Tensor& y = ctx.output(0, x.shape(), DataType::kBool);
    const cudaError_t e =
        launch_float_class(kNan, negative_, positive_, t, x.raw_data(),
                           static_cast<uint8_t*>(y.mutable_raw_data()), x.num_elements(), stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("X is ", x.description(), "; the CUDA kernel takes float types only");
    check_cuda(e, kNan ? "launch of the IsNaN kernel" : "launch of the IsInf kernel");
  }

 private:
  bool negative_, positive_;
};

class CudaNot : public CudaKernel {
 public:
  CudaNot(const ep::KernelInfo&, const EnvPtr& env) : CudaKernel(env) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.dtype() != DataType::kBool) ctx.fail_node("X must be bool, got ", x.description());
    Tensor& y = ctx.output(0, x.shape(), DataType::kBool);
    check_cuda(launch_not(static_cast<const uint8_t*>(x.raw_data()),
                          static_cast<uint8_t*>(y.mutable_raw_data()), x.num_elements(), stream),
               "launch of the Not kernel");
  }
};

class CudaClipBounds : public CudaKernel {
 public:
  CudaClipBounds(const ep::KernelInfo&, const EnvPtr& env) : CudaKernel(env) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const MathType t = math_type_of(ctx, x, "input");
    const void* bounds[2] = {nullptr, nullptr};
    for (size_t i = 1; i <= 2; ++i) {
      const Tensor* b = ctx.input(i);
      if (!b) continue;
      if (b->dtype() != x.dtype() || b->num_elements() != 1)
        ctx.fail_node(i == 1 ? "min" : "max", " must be a scalar of the input's type ",
                      data_type_name(x.dtype()), ", got ", b->description());
      bounds[i - 1] = b->raw_data();
    }
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    const cudaError_t e = launch_clip(t, x.raw_data(), bounds[0], bounds[1], y.mutable_raw_data(),
                                      x.num_elements(), stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("input ", x.description(),
                    " is of a type the CUDA kernel of Clip does not take");
    check_cuda(e, "launch of the Clip kernel");
  }
};

std::string check_celu(const ep::ClaimQuery& q) {
  return q.attr_float("alpha", 1.0f) == 0.0f ? "alpha is 0 (Celu divides by it)" : "";
}

}  // namespace

std::unique_ptr<ep::OpKernel> make_clip_with_input_bounds(const ep::KernelInfo& info,
                                                          const EnvPtr& env) {
  return std::make_unique<CudaClipBounds>(info, env);
}

void register_cuda_math_ops(CudaOpTable& t) {
  using U = MathUnary;
  const auto floats = [](const char* op, int64_t since) {
    return ep::KernelDef{"", op, since, ep::kOpsetMax, {{"T", {0}, kMathFloats}}};
  };
  const std::vector<DataType> signed_numbers = ep::types::join({kMathFloats, kMathSignedInts});
  const auto signed_def = [&](const char* op, int64_t since) {
    return ep::KernelDef{"", op, since, ep::kOpsetMax, {{"T", {0}, signed_numbers}}};
  };
  // Opset 6 on: no `consumed_inputs` attribute.
  t.add(signed_def("Abs", 6), make_unary<U::kAbs>, no_check);
  t.add(signed_def("Neg", 6), make_unary<U::kNeg>, no_check);
  t.add(signed_def("Sign", 9), make_unary<U::kSign>, no_check);
  t.add(floats("Exp", 6), make_unary<U::kExp>, no_check);
  t.add(floats("Log", 6), make_unary<U::kLog>, no_check);
  t.add(floats("Sqrt", 6), make_unary<U::kSqrt>, no_check);
  t.add(floats("Reciprocal", 6), make_unary<U::kReciprocal>, no_check);
  t.add(floats("Floor", 6), make_unary<U::kFloor>, no_check);
  t.add(floats("Ceil", 6), make_unary<U::kCeil>, no_check);
  t.add(floats("Round", 11), make_unary<U::kRound>, no_check);
  t.add(floats("Sin", 7), make_unary<U::kSin>, no_check);
  t.add(floats("Cos", 7), make_unary<U::kCos>, no_check);
  t.add(floats("Tan", 7), make_unary<U::kTan>, no_check);
  t.add(floats("Asin", 7), make_unary<U::kAsin>, no_check);
  t.add(floats("Acos", 7), make_unary<U::kAcos>, no_check);
  t.add(floats("Atan", 7), make_unary<U::kAtan>, no_check);
  t.add(floats("Sinh", 9), make_unary<U::kSinh>, no_check);
  t.add(floats("Cosh", 9), make_unary<U::kCosh>, no_check);
  t.add(floats("Asinh", 9), make_unary<U::kAsinh>, no_check);
  t.add(floats("Acosh", 9), make_unary<U::kAcosh>, no_check);
  t.add(floats("Atanh", 9), make_unary<U::kAtanh>, no_check);
  t.add(floats("Softplus", 1), make_unary<U::kSoftplus>, no_check);
  t.add(floats("Softsign", 1), make_unary<U::kSoftsign>, no_check);
  t.add(floats("Mish", 18), make_unary<U::kMish>, no_check);
  t.add(floats("HardSwish", 14), make_unary<U::kHardSwish>, no_check);
  t.add(floats("HardSigmoid", 6), with_attrs<U::kHardSigmoid>("alpha", 0.2f, "beta", 0.5f),
        no_check);
  t.add(floats("Elu", 6), with_attrs<U::kElu>("alpha", 1.0f), no_check);
  t.add(floats("Selu", 6),
        with_attrs<U::kSelu>("alpha", 1.67326319217681884765625f, "gamma",
                             1.05070102214813232421875f),
        no_check);
  t.add(floats("Celu", 12), with_attrs<U::kCelu>("alpha", 1.0f), check_celu);
  t.add(floats("ThresholdedRelu", 10), with_attrs<U::kThresholdedRelu>("alpha", 1.0f), no_check);
  t.add(floats("Shrink", 9), with_attrs<U::kShrink>("lambd", 0.5f, "bias", 0.0f), no_check);
  t.add(floats("Swish", 24), with_attrs<U::kSwish>("alpha", 1.0f), no_check);
  t.add({"", "BitwiseNot", 18, ep::kOpsetMax, {{"T", {0}, kMathInts}}}, make_unary<U::kBitNot>,
        no_check);
  t.add<CudaFloatClass<true>>({"", "IsNaN", 9, ep::kOpsetMax, {{"T1", {0}, kMathFloats}}},
                              no_check);
  t.add<CudaFloatClass<false>>({"", "IsInf", 10, ep::kOpsetMax, {{"T1", {0}, kMathFloats}}},
                               no_check);
  t.add<CudaNot>({"", "Not", 1, ep::kOpsetMax, {{"T", {0}, {DataType::kBool}}}}, no_check);
}

}  // namespace tessera::cuda
