// com.tessera MatMulIntegerToFloat (optimizer/matmul_integer_fusion.cpp):
// inputs A, B, a_zero_point, b_zero_point (as MatMulInteger's), scale (one
// float, or one per column) and an optional bias (one per column); output
// float(MatMulInteger(A, B, ...)) * scale (+ bias), the Cast, Mul and Add it
// replaces, in the packed integer GEMM's tiles.
#include "providers/cpu/quant/igemm_matmul.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {

class MatMulIntegerToFloatKernel : public ep::OpKernel {
 public:
  explicit MatMulIntegerToFloatKernel(const ep::KernelInfo& info)
      : packed_b_(pack_constant_int8_b(info, 1)) {}
  bool reads_constant_data(size_t i) const override { return i != 1 || !packed_b_; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    const Tensor& scale = ctx.required_input(4);
    const Tensor* bias = ctx.input(5);
    const MatMulPlan p = plan_matmul(ctx, a.shape(), b.shape());
    const bool per_column = scale.num_elements() == p.N && scale.rank() == 1;
    if (scale.num_elements() != 1 && !per_column)
      ctx.fail_node("scale ", scale.description(), " must be one value or one per column (", p.N,
                    ")");
    if (bias && (bias->rank() != 1 || bias->num_elements() != p.N))
      ctx.fail_node("bias ", bias->description(), " must be one value per column (", p.N, ")");
    linalg::IgemmToFloat out;
    out.scale = scale.data<float>();
    out.scale_count = per_column ? p.N : 1;
    out.bias = bias ? bias->data<float>() : nullptr;
    if (!igemm_matmul(ctx, p, a, b, ctx.input(2), ctx.input(3), packed_b_.get(), &out))
      ctx.fail_node("the zero points must be scalars or one per row of A / column of B, got ",
                    ctx.input(2) ? ctx.input(2)->description() : "none", " and ",
                    ctx.input(3) ? ctx.input(3)->description() : "none");
  }

 private:
  std::shared_ptr<const linalg::PackedBInt8> packed_b_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_matmul_integer_to_float(const ep::KernelInfo& info) {
  return std::make_unique<MatMulIntegerToFloatKernel>(info);
}

}  // namespace tessera::cpu
