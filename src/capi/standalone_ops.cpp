// Operators run one at a time from a custom op's compute (CreateOp, InvokeOp):
// a node outside any graph, with the attributes and type constraints given,
// gets the CPU provider's kernel once; each InvokeOp runs it on the caller's
// values with the calling kernel's allocator and thread pool, and writes the
// results into the caller's output values.
#include <algorithm>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "ep/provider_registry.hpp"
#include "ops/type_inference.hpp"
#include "runtime/copy_tensors.hpp"

namespace tessera::capi {
namespace {

std::shared_ptr<ep::ExecutionProvider> cpu_provider() {
  static const std::shared_ptr<ep::ExecutionProvider> cpu = [] {
    const ep::ProviderFactory* f = ep::ProviderRegistry::instance().find("CPUExecutionProvider");
    check(f != nullptr, "the CPU provider is not registered");
    return f->create({});
  }();
  return cpu;
}

// Each input's element type from the named type constraints, as the CPU
// provider's kernel definitions of the op bind names to input positions.
std::vector<DataType> input_types_of(const ep::KernelRegistry& registry, const ir::Node& node,
                                     int64_t version, const std::vector<std::string>& names,
                                     const std::vector<DataType>& types) {
  std::vector<DataType> out(node.inputs.size(), DataType::kUndefined);
  for (const auto& e : registry.entries()) {
    if (e.def.op_type != node.op_type ||
        !(e.def.domain == node.domain ||
          (ir::is_onnx_domain(e.def.domain) && ir::is_onnx_domain(node.domain))))
      continue;
    if (version < e.def.since || version > e.def.until) continue;
    for (size_t k = 0; k < names.size(); ++k)
      for (const auto& c : e.def.constraints) {
        if (c.name != names[k] || c.inputs.empty()) continue;
        for (int idx : c.inputs) {
          const size_t last = c.variadic && idx == c.inputs.back() ? out.size() : size_t(idx) + 1;
          for (size_t p = size_t(idx); p < last && p < out.size(); ++p) out[p] = types[k];
        }
      }
    break;  // the first definition serving the version names the positions
  }
  return out;
}

}  // namespace

OrtStatus* ORT_API_CALL CreateOp(const OrtKernelInfo* info, const char* op_name, const char* domain,
                                 int version, const char** type_constraint_names,
                                 const ONNXTensorElementDataType* type_constraint_values,
                                 int type_constraint_count, const OrtOpAttr* const* attr_values,
                                 int attr_count, int input_count, int output_count,
                                 OrtOp** ort_op) noexcept {
  return guard("CreateOp", [&] {
    need(info, "info");
    need(op_name, "op_name");
    need(domain, "domain");
    need(ort_op, "ort_op");
    check(version > 0, op_name, ": version ", version, " is not an opset version");
    check(type_constraint_count >= 0 && attr_count >= 0 && input_count >= 0 && output_count >= 0,
          op_name, ": a count is negative");
    const auto names = string_list(
        type_constraint_names, static_cast<size_t>(type_constraint_count), "type_constraint_names");
    std::vector<DataType> types;
    if (type_constraint_count > 0) need(type_constraint_values, "type_constraint_values");
    for (int i = 0; i < type_constraint_count; ++i)
      types.push_back(from_ort_type(raw_enum(type_constraint_values[i])));
    auto op = std::make_unique<OrtOp>();
    op->node = std::make_unique<ir::Node>();
    ir::Node& node = *op->node;
    node.op_type = op_name;
    node.domain = ir::is_onnx_domain(domain) ? "" : domain;
    node.name = std::string("standalone_") + op_name;
    for (int i = 0; i < input_count; ++i) node.inputs.push_back(std::to_string(i));
    for (int i = 0; i < output_count; ++i) node.outputs.push_back("out" + std::to_string(i));
    if (attr_count > 0) need(attr_values, "attr_values");
    for (int i = 0; i < attr_count; ++i) {
      check(attr_values[i] != nullptr, "attr_values[", i, "] is null");
      node.attributes.push_back(attr_values[i]->attr);
    }
    op->provider = cpu_provider();
    const ep::KernelRegistry& registry = op->provider->kernel_registry();
    op->input_types = input_types_of(registry, node, version, names, types);
    const auto match = registry.lookup(node.domain, node.op_type, version, op->input_types);
    check(match.entry != nullptr, node.describe(), " (opset ", version,
          "): the CPU provider has no kernel for it: ", match.reason);
    std::vector<ir::TypeInfo> in_types;
    for (DataType t : op->input_types) in_types.push_back(ir::TypeInfo::tensor(t));
    std::vector<ir::TypeInfo> out_types = ops::infer_output_types(node, version, in_types);
    out_types.resize(node.outputs.size());
    for (const auto& t : out_types) op->output_types.push_back(t.elem_type);
    op->info = std::make_unique<ep::KernelInfo>(node, version, in_types, out_types,
                                                std::vector<const Tensor*>(node.inputs.size()));
    op->kernel = match.entry->factory(*op->info);
    *ort_op = op.release();
  });
}

OrtStatus* ORT_API_CALL InvokeOp(const OrtKernelContext* context, const OrtOp* ort_op,
                                 const OrtValue* const* input_values, int input_count,
                                 OrtValue* const* output_values, int output_count) noexcept {
  return guard("InvokeOp", [&] {
    need(context, "context");
    need(context->ctx, "context");
    need(ort_op, "ort_op");
    const OrtOp& op = *ort_op;
    const ir::Node& node = *op.node;
    check(input_count == static_cast<int>(node.inputs.size()), node.describe(), ": ", input_count,
          " inputs given, CreateOp made it with ", node.inputs.size());
    check(output_count == static_cast<int>(node.outputs.size()), node.describe(), ": ",
          output_count, " outputs given, CreateOp made it with ", node.outputs.size());
    if (input_count > 0) need(input_values, "input_values");
    if (output_count > 0) need(output_values, "output_values");
    std::vector<const Value*> inputs;
    for (int i = 0; i < input_count; ++i) {
      const OrtValue* v = input_values[i];
      inputs.push_back(v != nullptr ? &v->value : nullptr);  // null: an omitted optional input
      const DataType want = op.input_types[i];
      if (v != nullptr && v->value.is_tensor() && want != DataType::kUndefined)
        check(v->value.tensor().dtype() == want, node.describe(), ": input ", i, " is ",
              data_type_name(v->value.tensor().dtype()), " but the op was made for ",
              data_type_name(want));
    }
    std::vector<Value> results(node.outputs.size());
    std::vector<Value*> outputs;
    for (auto& r : results) outputs.push_back(&r);
    const ep::KernelContext& caller = *context->ctx;
    ep::KernelContext ctx(node, inputs, outputs, op.output_types, caller.allocator(),
                          &caller.thread_pool());
    op.kernel->compute(ctx);
    for (int i = 0; i < output_count; ++i) {
      OrtValue* dst = output_values[i];
      check(dst != nullptr, node.describe(), ": output_values[", i, "] is null");
      Value& r = results[i];
      // A preallocated tensor (KernelContext_GetOutput's) gets the result
      // copied in; any other value is replaced by the result.
      if (dst->value.is_tensor() && dst->value.tensor().has_data() && r.is_tensor() &&
          dst->value.tensor().num_elements() > 0) {
        const Tensor& src = r.tensor();
        Tensor& out = dst->value.tensor();
        check(src.dtype() == out.dtype() && src.shape() == out.shape(), node.describe(),
              ": output ", i, " is ", data_type_name(src.dtype()), src.shape().to_string(),
              " but output_values[", i, "] is ", data_type_name(out.dtype()),
              out.shape().to_string());
        copy_tensors({&src}, {&out});
      } else {
        dst->value = std::move(r);
        dst->memory.reset();
      }
    }
  });
}

void ORT_API_CALL ReleaseOp(OrtOp* input) noexcept { delete input; }

}  // namespace tessera::capi
