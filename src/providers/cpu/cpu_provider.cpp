#include "providers/cpu/cpu_provider.hpp"

#include "core/host_heap.hpp"
#include "ep/provider_abilities.hpp"
#include "linalg/cpu_isa.hpp"
#include "linalg/gemm.hpp"
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"

namespace tessera::cpu {

namespace {

const std::string kName = "CPUExecutionProvider";

class CpuProvider : public ep::ExecutionProvider, public ep::GraphTransformer {
 public:
  explicit CpuProvider(const ep::ProviderOptions& options) {
    ep::check_option_keys(kName, options, {kMatMulNBitsFloatWeights});
    auto it = options.find(kMatMulNBitsFloatWeights);
    if (it != options.end() && it->second != "0" && it->second != "1")
      fail(ErrorCode::kInvalidArgument, kName, ": option '", kMatMulNBitsFloatWeights,
           "' must be 0 or 1, got '", it->second, "'");
    options_ = options;
  }
  const std::string& name() const override { return kName; }
  ep::ProviderOptions effective_options() const override {
    ep::ProviderOptions o = options_;
    o.emplace(kMatMulNBitsFloatWeights, "0");
    return o;
  }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return default_cpu_allocator(); }
  const ep::KernelRegistry& kernel_registry() const override { return cpu_kernel_registry(); }
  // The registry's answer, plus the float16/bfloat16 nodes no kernel takes in
  // their own types that the transform computes in float32 (a bfloat16 Conv
  // before opset 22): declined here they would never reach it. With
  // "session.cpu_half_as_float" off the transform leaves them as they are,
  // so they stay declined (the decline says why).
  ep::Capability get_capability(const ep::GraphView& view) const override {
    ep::Capability cap = ep::ExecutionProvider::get_capability(view);
    auto type_of = [&view](const std::string& v) {
      const ir::TypeInfo* t = v.empty() ? nullptr : view.type_of(v);
      return t && t->is_tensor() ? t->elem_type : DataType::kUndefined;
    };
    const bool in_float = !config_off(view.config, "session.cpu_half_as_float");
    std::vector<ep::Decline> still;
    for (ep::Decline& d : cap.declined) {
      if (!computes_half_in_float(*view.model, view.graph->nodes[d.node], type_of)) {
        still.push_back(std::move(d));
      } else if (in_float) {
        cap.groups.push_back({{d.node}, false});
      } else {
        d.reason += " (session.cpu_half_as_float is off, so it is not computed in float32)";
        still.push_back(std::move(d));
      }
    }
    cap.declined = std::move(still);
    return cap;
  }
  size_t transform(ir::Model& part, const ep::TransformOptions& options,
                   std::vector<PhaseTiming>* timings) const override {
    return transform_for_cpu(part, options, timings);
  }

 private:
  MemoryInfo info_ = cpu_memory_info();
};

class CpuProviderFactory : public ep::ProviderFactory, public ep::FactoryDiagnostics {
 public:
  const std::string& name() const override { return kName; }
  bool is_available(std::string*) const override { return true; }
  std::shared_ptr<ep::ExecutionProvider> create(const ep::ProviderOptions& o) const override {
    return std::make_shared<CpuProvider>(o);
  }
  std::vector<std::string> diagnostics() const override {
    using linalg::Isa;
    const Isa cpu = linalg::cpu_isa_supported(), used = linalg::cpu_isa();
    std::string isa = std::string("vector kernels: ") + linalg::isa_name(used);
    if (used != cpu)
      isa += std::string(" (the CPU has ") + linalg::isa_name(cpu) + "; TESSERA_CPU_ISA caps it)";
    return {"built in: needs no library (always available, the fallback for every node)", isa,
            std::string("SGEMM kernel: ") + linalg::sgemm_kernel_name(),
            std::string("host heap for large blocks: ") + host_heap_status()};
  }
  std::vector<HardwareDevice> devices() const override { return {HardwareDevice{}}; }
};

}  // namespace

const ep::KernelRegistry& cpu_kernel_registry() {
  static const ep::KernelRegistry registry = [] {
    ep::KernelRegistry r;
    register_math_kernels(r);
    register_nn_kernels(r);
    register_tensor_kernels(r);
    register_reduce_kernels(r);
    register_control_flow_kernels(r);
    register_sequence_kernels(r);
    register_string_kernels(r);
    register_random_kernels(r);
    register_signal_kernels(r);
    register_quant_kernels(r);
    register_vision_kernels(r);
    register_transformer_kernels(r);
    register_training_kernels(r);
    register_ml_kernels(r);
    register_recurrent_kernels(r);
    register_loss_kernels(r);
    register_text_kernels(r);
    register_extras_kernels(r);
    register_preview_kernels(r);
    register_image_kernels(r);
    register_fused_kernels(r);
    return r;
  }();
  return registry;
}

std::shared_ptr<ep::ProviderFactory> make_cpu_provider_factory() {
  return std::make_shared<CpuProviderFactory>();
}

}  // namespace tessera::cpu
