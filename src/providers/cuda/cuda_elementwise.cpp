// The activations Relu, Sigmoid, Tanh, Erf, Gelu, LeakyRelu and Clip (with
// constant float bounds; other Clips run cuda_math_ops.cpp's kernel, and
// Add/Sub/Mul/Div, which share elementwise.cu, register in
// cuda_binary_ops.cpp).
#include <algorithm>
#include <limits>

#include "ops/schema.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/cuda_math_ops.hpp"

namespace tessera::cuda {

namespace {

class CudaUnary : public CudaKernel {
 public:
  CudaUnary(const EnvPtr& env, UnaryOp op, float alpha = 0, float beta = 0)
      : CudaKernel(env), op_(op), alpha_(alpha), beta_(beta) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor& y = ctx.output(0, x.shape());
    check_cuda(launch_unary(op_, elem_type(x.dtype()), x.raw_data(), y.mutable_raw_data(),
                            x.num_elements(), alpha_, beta_, stream),
               "launch of the activation kernel");
  }

 private:
  UnaryOp op_;
  float alpha_, beta_;
};

template <UnaryOp Op>
std::unique_ptr<ep::OpKernel> make_unary(const ep::KernelInfo&, const EnvPtr& env) {
  return std::make_unique<CudaUnary>(env, Op);
}

std::unique_ptr<ep::OpKernel> make_leaky_relu(const ep::KernelInfo& info, const EnvPtr& env) {
  return std::make_unique<CudaUnary>(env, UnaryOp::kLeakyRelu, info.attr_float("alpha", 0.01f));
}

std::unique_ptr<ep::OpKernel> make_gelu(const ep::KernelInfo& info, const EnvPtr& env) {
  const std::string approx = info.attr_string("approximate", "none");
  if (approx != "none" && approx != "tanh")
    info.fail_node("approximate='", approx, "' is not one of none, tanh");
  return std::make_unique<CudaUnary>(env, approx == "tanh" ? UnaryOp::kGeluTanh : UnaryOp::kGelu);
}

std::unique_ptr<ep::OpKernel> make_clip(const ep::KernelInfo& info, const EnvPtr& env) {
  float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  if (info.opset() < 11) {  // attributes, with the schema's -/+FLT_MAX defaults
    const ops::OpSchema& schema = ops::schema_of(info.node(), info.opset());
    lo = schema.attr_float(info.node(), "min");
    hi = schema.attr_float(info.node(), "max");
  } else {
    // Bounds that change from run to run, and types the activation kernel
    // does not take, go to the kernel that reads the bounds on the device.
    const DataType t = info.input_type(0);
    const bool floats = std::find(kCudaFloats.begin(), kCudaFloats.end(), t) != kCudaFloats.end();
    const bool constant = (!info.has_input(1) || info.constant_input(1)) &&
                          (!info.has_input(2) || info.constant_input(2));
    if (!floats || !constant) return make_clip_with_input_bounds(info, env);
    if (info.has_input(1)) lo = constant_scalar(info, 1);
    if (info.has_input(2)) hi = constant_scalar(info, 2);
  }
  return std::make_unique<CudaUnary>(env, UnaryOp::kClip, lo, hi);
}

std::string check_gelu(const ep::ClaimQuery& q) {
  const std::string a = q.attr_string("approximate", "none");
  return a == "none" || a == "tanh" ? "" : str_cat("approximate='", a, "' is not none or tanh");
}

ep::KernelDef def(const char* op, int64_t since) {
  return {"", op, since, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}};
}

}  // namespace

void register_cuda_elementwise(CudaOpTable& t) {
  t.add(def("Relu", 6), make_unary<UnaryOp::kRelu>, no_check);
  t.add(def("Sigmoid", 6), make_unary<UnaryOp::kSigmoid>, no_check);
  t.add(def("Tanh", 6), make_unary<UnaryOp::kTanh>, no_check);
  t.add(def("Erf", 9), make_unary<UnaryOp::kErf>, no_check);
  t.add(def("LeakyRelu", 6), make_leaky_relu, no_check);
  t.add(def("Gelu", 20), make_gelu, check_gelu);
  // What the optimizer fuses Erf-based GELU into below opset 20: Gelu-20 in
  // Tessera's domain.
  t.add({"com.tessera", "Gelu", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}}, make_gelu,
        check_gelu);
  // Opsets 6-10: bounds as attributes; 11 on: as inputs, of any numeric type.
  t.add({"", "Clip", 6, 10, {{"T", {0}, kCudaFloats}}}, make_clip, no_check);
  t.add({"",
         "Clip",
         11,
         ep::kOpsetMax,
         {{"T", {0, 1, 2}, ep::types::join({kMathFloats, kMathInts})}}},
        make_clip, no_check);
}

}  // namespace tessera::cuda
