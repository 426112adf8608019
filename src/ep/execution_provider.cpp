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

Capability ExecutionProvider::get_capability(const GraphView& view) const {
  Capability cap;
  for (size_t idx : view.candidates) {
    const ir::Node& node = view.graph->nodes[idx];
    auto m = lookup_kernel(kernel_registry(), view, node);
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
