#include "ep/execution_provider.hpp"

#include <algorithm>

namespace tessera::ep {

const ir::TypeInfo* GraphView::type_of(const std::string& value) const {
  if (!value_types) return nullptr;
  auto it = value_types->find(value);
  return it == value_types->end() ? nullptr : &it->second;
}

std::vector<DataType> GraphView::input_types(const ir::Node& node) const {
  std::vector<DataType> types;
  types.reserve(node.inputs.size());
  for (const auto& in : node.inputs) {
    const ir::TypeInfo* t = in.empty() ? nullptr : type_of(in);
    DataType dt = DataType::kUndefined;
    while (t) {
      if (t->kind == ir::TypeInfo::Kind::kTensor || t->kind == ir::TypeInfo::Kind::kSparseTensor) {
        dt = t->elem_type;
        break;
      }
      t = t->inner.get();
    }
    types.push_back(dt);
  }
  return types;
}

KernelRegistry::Match lookup_kernel(const KernelRegistry& registry, const GraphView& view,
                                    const ir::Node& node) {
  return registry.lookup(node.domain, node.op_type, view.opset(node), view.input_types(node));
}

namespace {

bool has_domain(const KernelRegistry* registry, const std::string& domain) {
  if (!registry) return false;
  for (const auto& e : registry->entries())
    if (e.def.domain == domain) return true;
  return false;
}

}  // namespace

KernelRegistry::Match lookup_kernel(const ExecutionProvider& provider, const GraphView& view,
                                    const ir::Node& node) {
  KernelRegistry::Match session;
  if (const KernelRegistry* extra = provider.session_kernels()) {
    session = lookup_kernel(*extra, view, node);
    if (session.entry) return session;
  }
  KernelRegistry::Match own = lookup_kernel(provider.kernel_registry(), view, node);
  if (own.entry) return own;
  const bool op_unknown = own.reason == "no kernel for this op";
  if (!session.reason.empty() && session.reason != "no kernel for this op") return session;
  if (op_unknown && !ir::is_onnx_domain(node.domain) &&
      !has_domain(provider.session_kernels(), node.domain) &&
      !has_domain(&provider.kernel_registry(), node.domain))
    own.reason =
        str_cat("no kernel for this op: domain '", node.domain,
                "' is not known (a custom-op domain must be added to the session options)");
  return own;
}

Capability ExecutionProvider::get_capability(const GraphView& view) const {
  Capability cap;
  for (size_t idx : view.candidates) {
    const ir::Node& node = view.graph->nodes[idx];
    auto m = lookup_kernel(*this, view, node);
    if (m.entry)
      cap.groups.push_back({{idx}, false});
    else
      cap.declined.push_back({idx, m.reason});
  }
  return cap;
}

std::vector<HardwareDevice> ProviderFactory::devices() const {
  if (!is_available(nullptr)) return {};
  try {
    return {device_of(create({})->memory_info())};
  } catch (const Error&) {
    return {};  // needs options to be created: it cannot say which device by default
  }
}

void check_option_keys(const std::string& provider, const ProviderOptions& options,
                       const std::vector<std::string>& valid) {
  for (const auto& [key, value] : options) {
    if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
      std::string list;
      for (const auto& v : valid) list += str_cat(list.empty() ? "" : ", ", v);
      fail(ErrorCode::kInvalidArgument, provider, ": unknown option '", key,
           "'; valid options are: ", list.empty() ? "(none)" : list);
    }
  }
}

}  // namespace tessera::ep
