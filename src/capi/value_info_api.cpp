// The ValueInfo_* entries and GetValueInfoName/TypeInfo: a value's name and
// type, who makes it and who reads it in its graph, and what kind of graph
// value it is (input, output, initializer, outer-scope value); and external
// initializer descriptions.
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/graph_views.hpp"

namespace tessera::capi {
namespace {

const OrtGraph& graph_with(const OrtValueInfo& v) {
  check(v.graph != nullptr, "value '", v.name,
        "' was made by CreateValueInfo and is in no graph yet");
  return *v.graph;
}

bool is_input(const OrtGraph& g, const std::string& name) {
  return g.graph->find_input(name) != nullptr;
}

bool is_initializer(const OrtGraph& g, const std::string& name) {
  return g.graph->initializers.count(name) != 0;
}

// The graph (this one or an enclosing one) whose initializer `name` is
// constant for a run: an initializer that is not also a graph input.
const OrtGraph* constant_owner(const OrtGraph& g, const std::string& name) {
  if (is_initializer(g, name)) return is_input(g, name) ? nullptr : &g;
  if (defines(*g.graph, name) || g.outer == nullptr) return nullptr;
  return constant_owner(*g.outer, name);
}

}  // namespace

void ORT_API_CALL ReleaseValueInfo(OrtValueInfo* input) noexcept {
  if (input != nullptr && input->graph == nullptr) delete input;  // else its graph's
}

OrtStatus* ORT_API_CALL GetValueInfoName(const OrtValueInfo* value_info,
                                         const char** name) noexcept {
  return guard("GetValueInfoName", [&] {
    need(name, "name");
    *name = value_info_of(value_info).name.c_str();
  });
}

OrtStatus* ORT_API_CALL GetValueInfoTypeInfo(const OrtValueInfo* value_info,
                                             const OrtTypeInfo** type_info) noexcept {
  return guard("GetValueInfoTypeInfo", [&] {
    const OrtValueInfo& v = value_info_of(value_info);
    need(type_info, "type_info");
    std::mutex fallback;
    std::lock_guard<std::mutex> lock(v.graph ? v.graph->mu : fallback);
    if (!v.type_info) v.type_info = make_type_info(v.type);
    *type_info = v.type_info.get();
  });
}

OrtStatus* ORT_API_CALL ValueInfo_GetValueProducer(const OrtValueInfo* value_info,
                                                   const OrtNode** producer_node,
                                                   size_t* producer_output_index) noexcept {
  return guard("ValueInfo_GetValueProducer", [&] {
    const OrtValueInfo& v = value_info_of(value_info);
    need(producer_node, "producer_node");
    const OrtGraph& g = graph_with(v);
    *producer_node = nullptr;
    if (producer_output_index != nullptr) *producer_output_index = 0;
    const auto& nodes = graph_nodes(g);
    for (const auto& n : nodes) {
      const auto& outs = n->node().outputs;
      for (size_t k = 0; k < outs.size(); ++k)
        if (outs[k] == v.name) {
          *producer_node = n.get();
          if (producer_output_index != nullptr) *producer_output_index = k;
          return;
        }
    }
  });
}

namespace {

// The nodes of the value's graph reading it, with the input position; -1
// for a node whose subgraph reads it (an implicit input).
std::vector<std::pair<const OrtNode*, int64_t>> consumers(const OrtValueInfo& v) {
  std::vector<std::pair<const OrtNode*, int64_t>> out;
  for (const auto& n : graph_nodes(graph_with(v))) {
    const ir::Node& node = n->node();
    for (size_t k = 0; k < node.inputs.size(); ++k)
      if (node.inputs[k] == v.name) out.emplace_back(n.get(), static_cast<int64_t>(k));
    for (const auto& name : implicit_inputs(node))
      if (name == v.name) out.emplace_back(n.get(), -1);
  }
  return out;
}

}  // namespace

OrtStatus* ORT_API_CALL ValueInfo_GetValueNumConsumers(const OrtValueInfo* value_info,
                                                       size_t* num_consumers) noexcept {
  return guard("ValueInfo_GetValueNumConsumers", [&] {
    need(num_consumers, "num_consumers");
    *num_consumers = consumers(value_info_of(value_info)).size();
  });
}

OrtStatus* ORT_API_CALL ValueInfo_GetValueConsumers(const OrtValueInfo* value_info,
                                                    const OrtNode** nodes, int64_t* input_indices,
                                                    size_t num_consumers) noexcept {
  return guard("ValueInfo_GetValueConsumers", [&] {
    std::vector<const OrtNode*> list;
    std::vector<int64_t> positions;
    for (const auto& [n, k] : consumers(value_info_of(value_info))) {
      list.push_back(n);
      positions.push_back(k);
    }
    copy_out(list, nodes, num_consumers, "nodes");
    copy_out(positions, input_indices, num_consumers, "input_indices");
  });
}

OrtStatus* ORT_API_CALL ValueInfo_GetInitializerValue(const OrtValueInfo* value_info,
                                                      const OrtValue** initializer_value) noexcept {
  return guard("ValueInfo_GetInitializerValue", [&] {
    const OrtValueInfo& v = value_info_of(value_info);
    need(initializer_value, "initializer_value");
    const OrtGraph& g = graph_with(v);
    // The value's own graph's initializer, or a constant one of an enclosing
    // graph; anything else has none (NULL).
    const OrtGraph* owner = is_initializer(g, v.name) ? &g : constant_owner(g, v.name);
    *initializer_value = nullptr;
    if (owner == nullptr) return;
    std::lock_guard<std::mutex> lock(g.mu);
    // Shares the tensor's data: no copy.
    if (!v.initializer)
      v.initializer = std::make_unique<OrtValue>(Value(owner->graph->initializers.at(v.name)));
    *initializer_value = v.initializer.get();
  });
}

OrtStatus* ORT_API_CALL ValueInfo_GetExternalInitializerInfo(
    const OrtValueInfo* value_info, OrtExternalInitializerInfo** info) noexcept {
  return guard("ValueInfo_GetExternalInitializerInfo", [&] {
    graph_with(value_info_of(value_info));
    need(info, "info");
    // The graphs read here are the model editor's, whose initializers are in
    // memory (the application's or Tessera's), never in a file: none has a
    // file location to describe.
    *info = nullptr;
  });
}

OrtStatus* ORT_API_CALL ValueInfo_IsRequiredGraphInput(const OrtValueInfo* value_info,
                                                       bool* is_required_graph_input) noexcept {
  return guard("ValueInfo_IsRequiredGraphInput", [&] {
    const OrtValueInfo& v = value_info_of(value_info);
    need(is_required_graph_input, "is_required_graph_input");
    const OrtGraph& g = graph_with(v);
    *is_required_graph_input = is_input(g, v.name) && !is_initializer(g, v.name);
  });
}

OrtStatus* ORT_API_CALL ValueInfo_IsOptionalGraphInput(const OrtValueInfo* value_info,
                                                       bool* is_optional_graph_input) noexcept {
  return guard("ValueInfo_IsOptionalGraphInput", [&] {
    const OrtValueInfo& v = value_info_of(value_info);
    need(is_optional_graph_input, "is_optional_graph_input");
    const OrtGraph& g = graph_with(v);
    // An input with an initializer: a default the application may override.
    *is_optional_graph_input = is_input(g, v.name) && is_initializer(g, v.name);
  });
}

OrtStatus* ORT_API_CALL ValueInfo_IsGraphOutput(const OrtValueInfo* value_info,
                                                bool* is_graph_output) noexcept {
  return guard("ValueInfo_IsGraphOutput", [&] {
    const OrtValueInfo& v = value_info_of(value_info);
    need(is_graph_output, "is_graph_output");
    *is_graph_output = false;
    for (const auto& o : graph_with(v).graph->outputs) *is_graph_output |= o.name == v.name;
  });
}

OrtStatus* ORT_API_CALL ValueInfo_IsConstantInitializer(const OrtValueInfo* value_info,
                                                        bool* is_constant_initializer) noexcept {
  return guard("ValueInfo_IsConstantInitializer", [&] {
    const OrtValueInfo& v = value_info_of(value_info);
    need(is_constant_initializer, "is_constant_initializer");
    *is_constant_initializer = constant_owner(graph_with(v), v.name) != nullptr;
  });
}

OrtStatus* ORT_API_CALL ValueInfo_IsFromOuterScope(const OrtValueInfo* value_info,
                                                   bool* is_from_outer_scope) noexcept {
  return guard("ValueInfo_IsFromOuterScope", [&] {
    const OrtValueInfo& v = value_info_of(value_info);
    need(is_from_outer_scope, "is_from_outer_scope");
    const OrtGraph& g = graph_with(v);
    *is_from_outer_scope = g.outer != nullptr && !defines(*g.graph, v.name);
  });
}

OrtStatus* ORT_API_CALL CreateExternalInitializerInfo(const ORTCHAR_T* filepath,
                                                      int64_t file_offset, size_t byte_size,
                                                      OrtExternalInitializerInfo** out) noexcept {
  return guard("CreateExternalInitializerInfo", [&] {
    need(filepath, "filepath");
    need(out, "out");
    check(file_offset >= 0, "file_offset is negative (", file_offset, ")");
    *out = new OrtExternalInitializerInfo{filepath, file_offset, byte_size};
  });
}

void ORT_API_CALL ReleaseExternalInitializerInfo(OrtExternalInitializerInfo* input) noexcept {
  delete input;
}

// These three answer for a null info as ONNX Runtime's do not (they read
// it): NULL, 0 and 0 rather than a crash.
const ORTCHAR_T* ORT_API_CALL
ExternalInitializerInfo_GetFilePath(const OrtExternalInitializerInfo* info) noexcept {
  return info != nullptr ? info->path.c_str() : nullptr;
}

int64_t ORT_API_CALL
ExternalInitializerInfo_GetFileOffset(const OrtExternalInitializerInfo* info) noexcept {
  return info != nullptr ? info->offset : 0;
}

size_t ORT_API_CALL
ExternalInitializerInfo_GetByteSize(const OrtExternalInitializerInfo* info) noexcept {
  return info != nullptr ? info->size : 0;
}

}  // namespace tessera::capi
