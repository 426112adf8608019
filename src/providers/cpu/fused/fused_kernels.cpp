// Kernels for Tessera's internal fused ops (domain com.tessera), which only
// the graph optimizer creates. FusedConv is the Conv kernel with an epilogue;
// the others run the ONNX op they stand for with that op's own CPU kernel,
// then apply the fused activation in place while the output is still fresh,
// saving a node, a buffer and a pass over memory.
#include <cmath>

#include "ep/kernel_registry.hpp"
#include "linalg/epilogue.hpp"
#include "providers/cpu/cpu_provider.hpp"
#include "providers/cpu/fused/fused_activation.hpp"
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/nn/nchwc_kernels.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu {

namespace {

struct Delegate {
  const char* op;   // the ONNX op the fused op runs
  int64_t opset;    // the ONNX opset whose semantics it has
  bool activation;  // whether it takes activation / activation_params
};

class FusedKernel : public ep::OpKernel {
 public:
  FusedKernel(const ep::KernelInfo& info, Delegate d) : inner_node_(info.node()) {
    inner_node_.domain = "";
    inner_node_.op_type = d.op;
    if (d.activation) {
      act_ = parse_fused_activation(info);
      std::erase_if(inner_node_.attributes, [](const ir::Attribute& a) {
        return a.name == "activation" || a.name == "activation_params";
      });
    }
    std::vector<ir::TypeInfo> in_types, out_types;
    std::vector<DataType> in_dtypes;
    std::vector<const Tensor*> constants;
    for (size_t i = 0; i < info.num_inputs(); ++i) {
      in_types.push_back(info.input_type_info(i));
      in_dtypes.push_back(info.input_type(i));
      constants.push_back(info.constant_input(i));
    }
    for (size_t i = 0; i < info.num_outputs(); ++i) out_types.push_back(info.output_type_info(i));
    auto match = cpu_kernel_registry().lookup("", d.op, d.opset, in_dtypes);
    if (!match.entry) info.fail_node("no CPU kernel for ", d.op, ": ", match.reason);
    ep::KernelInfo inner_info(inner_node_, d.opset, std::move(in_types), std::move(out_types),
                              std::move(constants));
    inner_ = match.entry->factory(inner_info);
  }

  bool writes_over_input(size_t i) const override { return inner_->writes_over_input(i); }

  void compute(ep::KernelContext& ctx) const override {
    std::vector<const Value*> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input_value(i));
    std::vector<Value> outs(ctx.num_outputs());
    std::vector<Value*> out_ptrs;
    std::vector<DataType> out_types;
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      out_ptrs.push_back(ctx.has_output(i) ? &outs[i] : nullptr);
      out_types.push_back(ctx.output_type(i));
    }
    // The inner kernel sees the same inputs, so it may take over those this
    // node may (an element-wise kernel then writes its output over one).
    ep::KernelContext inner(inner_node_, std::move(inputs), std::move(out_ptrs),
                            std::move(out_types), ctx.allocator(), &ctx.thread_pool(), nullptr,
                            ctx.donatable());
    inner_->compute(inner);
    if (act_.kind != linalg::Activation::kNone && outs[0].is_tensor()) {
      Tensor& y = outs[0].tensor();
      if (y.dtype() == DataType::kFloat)
        apply<float>(ctx, y);
      else if (y.dtype() == DataType::kDouble)
        apply<double>(ctx, y);
      else
        ctx.fail_node("fused activation supports float and double, got ",
                      data_type_name(y.dtype()));
    }
    for (size_t i = 0; i < outs.size(); ++i)
      if (ctx.has_output(i)) ctx.set_output(i, std::move(outs[i]));
  }

 private:
  template <typename T>
  void apply(ep::KernelContext& ctx, Tensor& y) const {
    T* d = y.mutable_data<T>();
    ctx.thread_pool().parallel_for(y.num_elements(), 1.0, [&](int64_t b, int64_t e) {
      if constexpr (std::is_same_v<T, float>) {
        linalg::apply_activation(act_, d + b, e - b);
      } else {
        for (int64_t i = b; i < e; ++i) d[i] = activate(act_, d[i]);
      }
    });
  }

  ir::Node inner_node_;  // the ONNX node the inner kernel was built from (it may keep a reference)
  std::unique_ptr<ep::OpKernel> inner_;
  linalg::ActivationSpec act_;
};

ep::KernelFactory delegate_to(Delegate d) {
  return [d](const ep::KernelInfo& info) { return std::make_unique<FusedKernel>(info, d); };
}

}  // namespace

void register_fused_kernels(ep::KernelRegistry& r) {
  using D = DataType;
  const std::vector<DataType> f2 = {D::kFloat, D::kDouble};
  const std::vector<DataType> f4 = {D::kFloat16, D::kBFloat16, D::kFloat, D::kDouble};
  const std::string dom = "com.tessera";
  // Conv [+ residual Z] followed by an activation (attributes activation,
  // activation_params): the Conv kernel applies both on each output tile
  // (half types computed in float, as Conv's are, and rounded once).
  r.add({dom, "FusedConv", 1, ep::kOpsetMax, {{"T", {0, 1, 2, 3}, f4}}}, nn::make_fused_conv);
  // Gemm followed by an activation.
  r.add({dom, "FusedGemm", 1, ep::kOpsetMax, {{"T", {0, 1, 2}, f2}}},
        delegate_to({"Gemm", 13, true}));
  // MatMul of A (any rank) by a constant [K, N] + bias [N], then an
  // optional activation, all in the GEMM's epilogue (float).
  r.add({dom, "MatMulBias", 1, ep::kOpsetMax, {{"T", {0, 1, 2}, {D::kFloat}}}},
        nn::make_matmul_bias);
  // Gelu (opset-20 semantics) and LayerNormalization (opset-17 semantics) for
  // models whose ai.onnx opset predates them.
  r.add({dom, "Gelu", 1, ep::kOpsetMax, {{"T", {0}, f4}}}, delegate_to({"Gelu", 20, false}));
  r.add({dom, "LayerNormalization", 1, ep::kOpsetMax, {{"T", {0, 1, 2}, f4}}},
        delegate_to({"LayerNormalization", 17, false}));
  // The channel-blocked layout's reorders, convolution and pools.
  nn::register_nchwc_kernels(r);
}

}  // namespace tessera::cpu
