// Broadcasting binary ops on the GPU: Add, Sub, Mul, Div (float16, bfloat16
// and float through cuda_elementwise's kernel; double and integers here),
// Mod, Pow, PRelu, BitShift, BitwiseAnd/Or/Xor, the comparisons (bool out),
// And/Or/Xor, and the variadic Sum, Mean, Max and Min. Integer division or modulo by zero fails
// the node, as on the CPU: the kernel sets a flag that is read when the run
// next waits for its stream.
#include "ep/op_shape.hpp"
#include "ops/broadcast.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_math_ops.hpp"

namespace tessera::cuda {

namespace {

bool is_cuda_float(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

bool compares(MathBinary op) {
  return op == MathBinary::kEqual || op == MathBinary::kLess || op == MathBinary::kGreater ||
         op == MathBinary::kLessOrEqual || op == MathBinary::kGreaterOrEqual;
}

// Add, Sub, Mul, Div as cuda_elementwise's kernel knows them.
std::optional<BinaryOp> float_kernel_op(MathBinary op) {
  switch (op) {
    case MathBinary::kAdd:
      return BinaryOp::kAdd;
    case MathBinary::kSub:
      return BinaryOp::kSub;
    case MathBinary::kMul:
      return BinaryOp::kMul;
    case MathBinary::kDiv:
      return BinaryOp::kDiv;
    default:
      return std::nullopt;
  }
}

// Reserves a zeroed device flag for an integer Div or Mod and checks it once
// the queued work is done; null for every other op and type.
int32_t* zero_divisor_flag(ep::KernelContext& ctx, MathBinary op, DataType t, const Tensor& b,
                           cudaStream_t stream, Scratch& scratch) {
  const bool divides = op == MathBinary::kDiv || op == MathBinary::kMod || op == MathBinary::kFmod;
  if (!divides || is_float_type(t)) return nullptr;
  auto* flag = static_cast<int32_t*>(scratch.lasting_bytes(sizeof(int32_t)));
  check_cuda(cudaMemsetAsync(flag, 0, sizeof(int32_t), stream),
             "cudaMemsetAsync (the zero divisor flag)");
  scratch.defer_check([flag, node = ctx.node().describe(), divisor = b.description()] {
    int32_t found = 0;
    check_cuda(cudaMemcpy(&found, flag, sizeof(found), cudaMemcpyDeviceToHost),
               "cudaMemcpy (reading the zero divisor flag)");
    if (found != 0)
      fail(ErrorCode::kInvalidArgument, node, ": integer division by zero (divisor ", divisor,
           " has a zero)");
  });
  return flag;
}

class CudaMathBinary : public CudaKernel {
 public:
  CudaMathBinary(const ep::KernelInfo& info, const EnvPtr& env, MathBinary op)
      : CudaKernel(env), op_(op), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    if (a.dtype() != b.dtype())
      ctx.fail_node("A is ", a.description(), " but B is ", b.description(),
                    "; they must have one type");
    const MathType t = math_type_of(ctx, a, "A");
    const Shape out = shape_.output(ctx, {&a, &b});
    Tensor& y = ctx.output(0, out, compares(op_) ? DataType::kBool : a.dtype());
    if (y.num_elements() == 0) return;
    if (const auto fop = float_kernel_op(op_); fop && is_cuda_float(a.dtype())) {
      check_cuda(launch_binary(*fop, elem_type(a.dtype()), a.raw_data(), b.raw_data(),
                               y.mutable_raw_data(), y.num_elements(),
                               plan_broadcast(a.shape(), b.shape(), out), stream),
                 "launch of the element-wise kernel");
      return;
    }
    const ElementPlan plan = plan_elements({a.shape().dims(), b.shape().dims()}, out.dims());
    int32_t* flag = zero_divisor_flag(ctx, op_, a.dtype(), b, stream, scratch);
    const cudaError_t e =
        launch_math_binary(op_, t, a.raw_data(), b.raw_data(), y.mutable_raw_data(),
                           y.num_elements(), plan, flag, stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("A is ", a.description(), ", a type the CUDA kernel of ", ctx.node().op_type,
                    " does not take");
    check_cuda(e, "launch of the binary math kernel");
  }

 private:
  MathBinary op_;
  ep::OpShape shape_;
};

template <MathBinary Op>
std::unique_ptr<ep::OpKernel> make_binary(const ep::KernelInfo& info, const EnvPtr& env) {
  return std::make_unique<CudaMathBinary>(info, env, Op);
}

std::unique_ptr<ep::OpKernel> make_mod(const ep::KernelInfo& info, const EnvPtr& env) {
  return std::make_unique<CudaMathBinary>(
      info, env, info.attr_int("fmod", 0) != 0 ? MathBinary::kFmod : MathBinary::kMod);
}

std::unique_ptr<ep::OpKernel> make_bit_shift(const ep::KernelInfo& info, const EnvPtr& env) {
  const std::string d = info.attr_string("direction", "");
  if (d != "LEFT" && d != "RIGHT")
    info.fail_node("direction must be \"LEFT\" or \"RIGHT\", got \"", d, "\"");
  return std::make_unique<CudaMathBinary>(
      info, env, d == "LEFT" ? MathBinary::kShiftLeft : MathBinary::kShiftRight);
}

// PRelu broadcasts the slope to X (ops::prelu_slope_shape lines up the
// per-channel slope of opsets before 7).
class CudaPRelu : public CudaKernel {
 public:
  CudaPRelu(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& slope = ctx.required_input(1);
    if (x.dtype() != slope.dtype())
      ctx.fail_node("X is ", x.description(), " but slope is ", slope.description(),
                    "; they must have one type");
    const MathType t = math_type_of(ctx, x, "X");
    const Shape out = shape_.output(ctx, {&x, &slope});
    const Shape s = ops::prelu_slope_shape(x.shape(), slope.shape(), shape_.opset());
    Tensor& y = ctx.output(0, out, x.dtype());
    if (y.num_elements() == 0) return;
    const ElementPlan plan = plan_elements({x.shape().dims(), s.dims()}, out.dims());
    const cudaError_t e =
        launch_math_binary(MathBinary::kPRelu, t, x.raw_data(), slope.raw_data(),
                           y.mutable_raw_data(), y.num_elements(), plan, nullptr, stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("X is ", x.description(), "; the CUDA kernel takes float types only");
    check_cuda(e, "launch of the PRelu kernel");
  }

 private:
  ep::OpShape shape_;
};

// Pow's base and exponent may have different types (opset 12 on).
class CudaPow : public CudaKernel {
 public:
  CudaPow(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& p = ctx.required_input(1);
    const MathType base = math_type_of(ctx, x, "X");
    const MathType exponent = math_type_of(ctx, p, "Y");
    const Shape out = shape_.output(ctx, {&x, &p});
    Tensor& y = ctx.output(0, out, x.dtype());
    if (y.num_elements() == 0) return;
    const ElementPlan plan = plan_elements({x.shape().dims(), p.shape().dims()}, out.dims());
    const cudaError_t e = launch_pow(base, exponent, x.raw_data(), p.raw_data(),
                                     y.mutable_raw_data(), y.num_elements(), plan, stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("X is ", x.description(), " and Y is ", p.description(),
                    "; the CUDA kernel takes a float, int32 or int64 base and a float or integer "
                    "exponent");
    check_cuda(e, "launch of the Pow kernel");
  }

 private:
  ep::OpShape shape_;
};

class CudaFold : public CudaKernel {
 public:
  CudaFold(const ep::KernelInfo& info, const EnvPtr& env, MathFold op)
      : CudaKernel(env), op_(op), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    std::vector<const Tensor*> ins;
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (const Tensor* t = ctx.input(i)) {
        if (!ins.empty() && t->dtype() != ins[0]->dtype())
          ctx.fail_node("input ", i, " is ", t->description(), " but input 0 is ",
                        ins[0]->description(), "; they must have one type");
        ins.push_back(t);
      }
    if (ins.empty()) ctx.fail_node("needs at least one input");
    if (ins.size() > size_t(kMaxElementOperands))
      ctx.fail_node(ins.size(), " inputs; the CUDA kernel takes at most ", kMaxElementOperands);
    const MathType t = math_type_of(ctx, *ins[0], "input 0");
    const Shape out = shape_.output(ctx, ins);
    Tensor& y = ctx.output(0, out, ins[0]->dtype());
    if (y.num_elements() == 0) return;
    std::vector<std::vector<int64_t>> dims;
    FoldInputs in{};
    for (size_t i = 0; i < ins.size(); ++i) {
      dims.push_back(ins[i]->shape().dims());
      in.p[i] = ins[i]->raw_data();
    }
    const cudaError_t e = launch_fold(op_, t, in, y.mutable_raw_data(), y.num_elements(),
                                      plan_elements(dims, out.dims()), stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("input 0 is ", ins[0]->description(), ", a type the CUDA kernel of ",
                    ctx.node().op_type, " does not take");
    check_cuda(e, "launch of the variadic math kernel");
  }

 private:
  MathFold op_;
  ep::OpShape shape_;
};

template <MathFold Op>
std::unique_ptr<ep::OpKernel> make_fold(const ep::KernelInfo& info, const EnvPtr& env) {
  return std::make_unique<CudaFold>(info, env, Op);
}

std::string check_fold(const ep::ClaimQuery& q) {
  if (q.node().inputs.size() > size_t(kMaxElementOperands))
    return str_cat(q.node().inputs.size(), " inputs; the CUDA kernel takes at most ",
                   kMaxElementOperands);
  return check_math_rank(q);
}

std::string check_bit_shift(const ep::ClaimQuery& q) {
  const std::string d = q.attr_string("direction", "");
  if (d != "LEFT" && d != "RIGHT") return str_cat("direction '", d, "' is not LEFT or RIGHT");
  return check_math_rank(q);
}

}  // namespace

void register_cuda_binary_ops(CudaOpTable& t) {
  using B = MathBinary;
  const std::vector<DataType> numbers = ep::types::join({kMathFloats, kMathInts});
  const std::vector<DataType> equal_types = ep::types::join({numbers, {DataType::kBool}});
  const std::vector<DataType> unsigned_ints = {DataType::kUInt8, DataType::kUInt16,
                                               DataType::kUInt32, DataType::kUInt64};
  const auto both = [](const char* op, int64_t since, const std::vector<DataType>& types) {
    return ep::KernelDef{"", op, since, ep::kOpsetMax, {{"T", {0, 1}, types}}};
  };
  // Opset 7 on: numpy broadcasting (older ones had a `broadcast` attribute).
  t.add(both("Add", 7, numbers), make_binary<B::kAdd>, check_math_rank);
  t.add(both("Sub", 7, numbers), make_binary<B::kSub>, check_math_rank);
  t.add(both("Mul", 7, numbers), make_binary<B::kMul>, check_math_rank);
  t.add(both("Div", 7, numbers), make_binary<B::kDiv>, check_math_rank);
  t.add(both("Mod", 10, numbers), make_mod, check_math_rank);
  t.add(both("BitShift", 11, unsigned_ints), make_bit_shift, check_bit_shift);
  t.add<CudaPRelu>(both("PRelu", 7, kMathFloats), check_math_rank);
  t.add<CudaPow>(both("Pow", 7, kMathFloats), check_math_rank);
  const std::vector<DataType> pow_bases =
      ep::types::join({kMathFloats, {DataType::kInt32, DataType::kInt64}});
  t.add<CudaPow>({"", "Pow", 12, ep::kOpsetMax, {{"T", {0}, pow_bases}, {"T1", {1}, numbers}}},
                 check_math_rank);
  t.add(both("Equal", 7, equal_types), make_binary<B::kEqual>, check_math_rank);
  t.add(both("Less", 7, numbers), make_binary<B::kLess>, check_math_rank);
  t.add(both("Greater", 7, numbers), make_binary<B::kGreater>, check_math_rank);
  t.add(both("LessOrEqual", 12, numbers), make_binary<B::kLessOrEqual>, check_math_rank);
  t.add(both("GreaterOrEqual", 12, numbers), make_binary<B::kGreaterOrEqual>, check_math_rank);
  const std::vector<DataType> bools = {DataType::kBool};
  t.add(both("And", 7, bools), make_binary<B::kAnd>, check_math_rank);
  t.add(both("Or", 7, bools), make_binary<B::kOr>, check_math_rank);
  t.add(both("Xor", 7, bools), make_binary<B::kXor>, check_math_rank);
  t.add(both("BitwiseAnd", 18, kMathInts), make_binary<B::kBitAnd>, check_math_rank);
  t.add(both("BitwiseOr", 18, kMathInts), make_binary<B::kBitOr>, check_math_rank);
  t.add(both("BitwiseXor", 18, kMathInts), make_binary<B::kBitXor>, check_math_rank);
  // Opset 8 on: the inputs broadcast.
  const auto variadic = [](const char* op, const std::vector<DataType>& types) {
    return ep::KernelDef{"", op, 8, ep::kOpsetMax, {{"T", {0}, types, true}}};
  };
  t.add(variadic("Sum", kMathFloats), make_fold<MathFold::kSum>, check_fold);
  t.add(variadic("Mean", kMathFloats), make_fold<MathFold::kMean>, check_fold);
  t.add(variadic("Max", numbers), make_fold<MathFold::kMax>, check_fold);
  t.add(variadic("Min", numbers), make_fold<MathFold::kMin>, check_fold);
}

}  // namespace tessera::cuda
