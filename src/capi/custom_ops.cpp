// Custom-op domains and their registration in session options: each op is
// read once (its callbacks asked, members past its version left alone) and
// becomes an ep::CustomOp of the CPU provider.
#include "capi/custom_ops.hpp"

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/custom_op_libraries.hpp"

namespace tessera::capi {

extern const OrtApi kOrtApi;

namespace {

const char* const kCpuProvider = "CPUExecutionProvider";

// The formal inputs or outputs of `op` (count from the op, each one's type,
// characteristic and, for inputs, memory).
std::vector<CustomOpFormal> read_formals(const OrtCustomOp* op, const std::string& what,
                                         bool inputs) {
  const size_t n = inputs ? op->GetInputTypeCount(op) : op->GetOutputTypeCount(op);
  std::vector<CustomOpFormal> out(n);
  for (size_t i = 0; i < n; ++i) {
    CustomOpFormal& f = out[i];
    f.type = inputs ? op->GetInputType(op, i) : op->GetOutputType(op, i);
    if (f.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) from_ort_type(f.type);  // a known type
    if (op->version >= kOpVersionCharacteristics) {
      auto get = inputs ? op->GetInputCharacteristic : op->GetOutputCharacteristic;
      if (get) f.characteristic = get(op, i);
      check(f.characteristic == INPUT_OUTPUT_REQUIRED ||
                f.characteristic == INPUT_OUTPUT_OPTIONAL ||
                (f.characteristic == INPUT_OUTPUT_VARIADIC && op->version >= kOpVersionVariadic),
            what, ": ", inputs ? "input " : "output ", i, " has characteristic ",
            static_cast<int>(f.characteristic),
            f.characteristic == INPUT_OUTPUT_VARIADIC
                ? " (variadic, which needs OrtCustomOp version 14 or later)"
                : "");
      check(f.characteristic != INPUT_OUTPUT_VARIADIC || i + 1 == n, what, ": ",
            inputs ? "input " : "output ", i, " is variadic but not the last");
    }
    if (inputs && op->version >= kOpVersionMemoryType && op->GetInputMemoryType)
      f.memory = op->GetInputMemoryType(op, i);
  }
  return out;
}

bool variadic_last(const std::vector<CustomOpFormal>& f) {
  return !f.empty() && f.back().characteristic == INPUT_OUTPUT_VARIADIC;
}

DataType tensor_elem(const ir::TypeInfo& t) {
  return t.kind == ir::TypeInfo::Kind::kTensor ? t.elem_type : DataType::kUndefined;
}

// Output k's element type: the declared one, else (any type) the type of the
// first input declared as any type that the node has, as ONNX Runtime does.
DataType output_type(const CustomOpSpec& s, size_t k, const std::vector<DataType>& inputs) {
  if (s.outputs.empty()) return DataType::kUndefined;
  const CustomOpFormal& f = s.outputs[std::min(k, s.outputs.size() - 1)];
  if (f.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) return from_ort_type(f.type);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const CustomOpFormal& in = s.inputs.empty() ? f : s.inputs[std::min(i, s.inputs.size() - 1)];
    if (i < s.inputs.size() || variadic_last(s.inputs))
      if (in.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED && inputs[i] != DataType::kUndefined)
        return inputs[i];
  }
  return DataType::kUndefined;
}

}  // namespace

std::shared_ptr<CustomOpSpec> read_custom_op(const std::string& domain, const OrtCustomOp* op) {
  need(op, "custom op");
  check(op->version >= 1 && op->version <= ORT_API_VERSION, "a custom op of domain '", domain,
        "' has version ", op->version, "; this runtime reads OrtCustomOp versions 1 to ",
        ORT_API_VERSION);
  check(op->GetName != nullptr, "a custom op of domain '", domain, "' has no GetName function");
  const char* name = op->GetName(op);
  check(name != nullptr && *name != '\0', "a custom op of domain '", domain,
        "' has a null or empty name (GetName returned ", name ? "\"\"" : "NULL", ")");
  auto s = std::make_shared<CustomOpSpec>();
  s->op = op;
  s->domain = domain;
  s->name = name;
  const std::string what = str_cat("custom op '", s->name, "' of domain '", domain, "'");
  if (op->GetExecutionProviderType) {
    const char* ep = op->GetExecutionProviderType(op);
    check(ep == nullptr || std::string(ep) == kCpuProvider, what, " is for execution provider '",
          ep ? ep : "", "'; Tessera runs custom ops on ", kCpuProvider,
          " only (GetExecutionProviderType must return NULL or \"", kCpuProvider, "\")");
  }
  check(op->GetInputTypeCount && op->GetInputType && op->GetOutputTypeCount && op->GetOutputType,
        what, " lacks one of GetInputTypeCount, GetInputType, GetOutputTypeCount, GetOutputType");
  s->v2 = op->version >= kOpVersionComputeV2 && op->CreateKernelV2 && op->KernelComputeV2;
  if (!s->v2)
    check(op->CreateKernel && op->KernelCompute, what,
          " has neither CreateKernel and KernelCompute nor (from version 16) CreateKernelV2 and "
          "KernelComputeV2");
  s->inputs = read_formals(op, what, true);
  s->outputs = read_formals(op, what, false);
  if (op->version >= kOpVersionVariadic) {
    if (variadic_last(s->inputs)) {
      check(op->GetVariadicInputMinArity && op->GetVariadicInputHomogeneity, what,
            " has a variadic input but no GetVariadicInputMinArity/Homogeneity");
      s->variadic_input_min = op->GetVariadicInputMinArity(op);
      s->variadic_input_homogeneous = op->GetVariadicInputHomogeneity(op) != 0;
      check(s->variadic_input_min >= 0, what, ": variadic input minimum arity is negative");
    }
    if (variadic_last(s->outputs)) {
      check(op->GetVariadicOutputMinArity && op->GetVariadicOutputHomogeneity, what,
            " has a variadic output but no GetVariadicOutputMinArity/Homogeneity");
      s->variadic_output_min = op->GetVariadicOutputMinArity(op);
      s->variadic_output_homogeneous = op->GetVariadicOutputHomogeneity(op) != 0;
    }
  }
  if (op->version >= kOpVersionStartEnd) {
    if (op->GetStartVersion) s->since = op->GetStartVersion(op);
    if (op->GetEndVersion) s->until = op->GetEndVersion(op);
    check(s->since >= 1 && s->since <= s->until, what, ": its opset versions ", s->since, " to ",
          s->until, " are not a range");
  }
  s->infer = op->version >= kOpVersionStartEnd && op->InferOutputShapeFn;
  s->api = &kOrtApi;
  return s;
}

std::shared_ptr<const ep::CustomOp> make_custom_op(std::shared_ptr<const CustomOpSpec> spec) {
  auto op = std::make_shared<ep::CustomOp>();
  op->provider = kCpuProvider;
  op->def.domain = spec->domain;
  op->def.op_type = spec->name;
  op->def.since = spec->since;
  op->def.until = spec->until;
  for (size_t i = 0; i < spec->inputs.size(); ++i) {
    const CustomOpFormal& f = spec->inputs[i];
    if (f.memory == OrtMemTypeCPUInput) op->def.host_inputs.push_back(int(i));
    if (f.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) continue;
    op->def.constraints.push_back({str_cat("Input", i),
                                   {int(i)},
                                   {from_ort_type(f.type)},
                                   f.characteristic == INPUT_OUTPUT_VARIADIC});
  }
  op->factory = [spec](const ep::KernelInfo& info,
                       const std::map<std::string, std::string>& config) {
    return make_custom_op_kernel(spec, info, config);
  };
  op->output_types = [spec](const ir::Node& node, const std::vector<ir::TypeInfo>& in) {
    std::vector<DataType> types;
    for (const auto& t : in) types.push_back(tensor_elem(t));
    std::vector<ir::TypeInfo> out(node.outputs.size());
    for (size_t k = 0; k < out.size(); ++k)
      if (DataType t = output_type(*spec, k, types); t != DataType::kUndefined)
        out[k] = ir::TypeInfo::tensor(t);
    return spec->infer ? infer_custom_op_shapes(*spec, node, in, std::move(out)) : out;
  };
  return op;
}

DataType custom_op_output_type(const CustomOpSpec& spec, size_t k,
                               const std::vector<DataType>& inputs) {
  return output_type(spec, k, inputs);
}

OrtStatus* ORT_API_CALL CreateCustomOpDomain(const char* domain, OrtCustomOpDomain** out) noexcept {
  return guard("CreateCustomOpDomain", [&] {
    need(domain, "domain");
    need(out, "out");
    *out = new OrtCustomOpDomain{domain, {}};
  });
}

void ORT_API_CALL ReleaseCustomOpDomain(OrtCustomOpDomain* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL CustomOpDomain_Add(OrtCustomOpDomain* custom_op_domain,
                                           const OrtCustomOp* op) noexcept {
  return guard("CustomOpDomain_Add", [&] {
    need(custom_op_domain, "custom op domain");
    read_custom_op(custom_op_domain->domain, op);  // refused here rather than at session creation
    custom_op_domain->ops.push_back(op);
  });
}

OrtStatus* ORT_API_CALL AddCustomOpDomain(OrtSessionOptions* options,
                                          OrtCustomOpDomain* custom_op_domain) noexcept {
  return guard("AddCustomOpDomain", [&] {
    need(options, "session options");
    need(custom_op_domain, "custom op domain");
    ep::CustomOps added;
    for (const OrtCustomOp* op : custom_op_domain->ops) {
      auto spec = read_custom_op(custom_op_domain->domain, op);
      spec->library = library_being_registered();
      added.push_back(make_custom_op(std::move(spec)));
    }
    auto& ops = options->options.custom_ops;
    ops.insert(ops.end(), added.begin(), added.end());
  });
}

}  // namespace tessera::capi
