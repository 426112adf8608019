// The model editor table (GetModelEditorApi): type infos, value infos, nodes,
// graphs and models built in memory, and sessions created from them through
// Session::create_from_model, as a loaded model's are. A model editor
// session (CreateModelEditorSession*) holds a loaded model that
// ApplyModelToModelEditorSession extends with an editor model's nodes,
// initializers, opsets and (when set) inputs and outputs, until
// FinalizeModelEditorSession creates the session from it.
#include <functional>
#include <set>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/graph_views.hpp"
#include "onnx/model_reader.hpp"
#include "runtime/session_graph.hpp"

namespace tessera::capi {

extern const OrtModelEditorApi kOrtModelEditorApi;
OrtSession* new_session(const OrtEnv* env, ir::Model model, const OrtSessionOptions* options);
OrtStatus* create_session(const char* entry, const OrtSessionOptions* options, OrtSession** out,
                          const std::function<OrtSession*()>& make);

namespace {

// The IR version of models built here: ONNX 1.16's (IR 10), the first with
// every element type the editor can declare.
constexpr int64_t kEditorIrVersion = 10;

ir::TypeInfo ir_type(const OrtTypeInfo& t) {
  ir::TypeInfo out;
  out.denotation = t.denotation;
  auto inner = [](const OrtTypeInfo* in) {
    return std::make_shared<ir::TypeInfo>(in ? ir_type(*in) : ir::TypeInfo{});
  };
  switch (t.type) {
    case ONNX_TYPE_TENSOR:
    case ONNX_TYPE_SPARSETENSOR: {
      out.kind = t.type == ONNX_TYPE_TENSOR ? ir::TypeInfo::Kind::kTensor
                                            : ir::TypeInfo::Kind::kSparseTensor;
      check(t.tensor != nullptr, "the tensor type has no element type and shape");
      const OrtTensorTypeAndShapeInfo& info = *t.tensor;
      if (info.elem_type != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED)
        out.elem_type = from_ort_type(info.elem_type);
      if (info.has_shape) {
        std::vector<ir::Dim> dims(info.dims.size());
        for (size_t i = 0; i < dims.size(); ++i) {
          if (info.dims[i] >= 0) dims[i].value = info.dims[i];
          if (i < info.symbols.size()) dims[i].symbol = info.symbols[i];
        }
        out.shape = std::move(dims);
      }
      break;
    }
    case ONNX_TYPE_SEQUENCE:
      out.kind = ir::TypeInfo::Kind::kSequence;
      out.inner = inner(t.sequence ? t.sequence->element_type.get() : nullptr);
      break;
    case ONNX_TYPE_MAP:
      out.kind = ir::TypeInfo::Kind::kMap;
      check(t.map != nullptr, "the map type has no key and value types");
      out.elem_type = from_ort_type(t.map->key_type);
      out.inner = inner(t.map->value_type.get());
      break;
    case ONNX_TYPE_OPTIONAL:
      out.kind = ir::TypeInfo::Kind::kOptional;
      out.inner = inner(t.optional ? t.optional->contained_type.get() : nullptr);
      break;
    default:
      fail(ErrorCode::kInvalidArgument, "the type info is of ONNX type ", static_cast<int>(t.type),
           ", which a graph value cannot have");
  }
  return out;
}

OrtGraph& editor_graph(OrtGraph* g, const char* what) {
  need(g, what);
  check(g->outer == nullptr && g->view_of == nullptr,
        "the graph is a subgraph or a graph view, which the model editor does not change");
  return *g;
}

// Pointers in `items` must be non-null and distinct: each is handed over once.
template <typename T>
void check_handover(T* const* items, size_t n, const char* what) {
  if (n == 0) return;
  need(items, what);
  std::set<const T*> seen;
  for (size_t i = 0; i < n; ++i) {
    check(items[i] != nullptr, what, "[", i, "] is null");
    check(seen.insert(items[i]).second, what, "[", i, "] appears twice");
  }
}

// The graph takes the application's value infos: their names and types are
// copied and the handles freed (the array's entries set to NULL, as the
// caller no longer owns them).
std::vector<ir::ValueInfo> take_value_infos(OrtValueInfo** items, size_t n, const char* what) {
  check_handover(items, n, what);
  std::vector<ir::ValueInfo> out;
  for (size_t i = 0; i < n; ++i)
    check(items[i]->graph == nullptr, what, "[", i, "] '", items[i]->name,
          "' is a value of a graph, not one made by CreateValueInfo");
  for (size_t i = 0; i < n; ++i) {
    out.push_back(ir::ValueInfo{items[i]->name, items[i]->type, ""});
    delete items[i];
    items[i] = nullptr;
  }
  return out;
}

OrtTypeInfo* tensor_type_info(const OrtTensorTypeAndShapeInfo* tensor_info, ONNXType type) {
  need(tensor_info, "tensor_info");
  auto info = std::make_unique<OrtTypeInfo>();
  info->type = type;
  info->tensor = std::make_unique<OrtTensorTypeAndShapeInfo>(*tensor_info);
  return info.release();
}

}  // namespace

const OrtModelEditorApi* ORT_API_CALL GetModelEditorApi() noexcept { return &kOrtModelEditorApi; }

OrtStatus* ORT_API_CALL CreateTensorTypeInfo(const OrtTensorTypeAndShapeInfo* tensor_info,
                                             OrtTypeInfo** type_info) noexcept {
  return guard("CreateTensorTypeInfo", [&] {
    need(type_info, "type_info");
    *type_info = tensor_type_info(tensor_info, ONNX_TYPE_TENSOR);
  });
}

OrtStatus* ORT_API_CALL CreateSparseTensorTypeInfo(const OrtTensorTypeAndShapeInfo* tensor_info,
                                                   OrtTypeInfo** type_info) noexcept {
  return guard("CreateSparseTensorTypeInfo", [&] {
    need(type_info, "type_info");
    *type_info = tensor_type_info(tensor_info, ONNX_TYPE_SPARSETENSOR);
  });
}

OrtStatus* ORT_API_CALL CreateMapTypeInfo(ONNXTensorElementDataType map_key_type,
                                          const OrtTypeInfo* map_value_type,
                                          OrtTypeInfo** type_info) noexcept {
  return guard("CreateMapTypeInfo", [&] {
    need(map_value_type, "map_value_type");
    need(type_info, "type_info");
    from_ort_type(raw_enum(map_key_type));  // checks the key type
    auto info = std::make_unique<OrtTypeInfo>();
    info->type = ONNX_TYPE_MAP;
    info->map = std::make_unique<OrtMapTypeInfo>();
    info->map->key_type = map_key_type;
    info->map->value_type = clone_type_info(*map_value_type);
    *type_info = info.release();
  });
}

OrtStatus* ORT_API_CALL CreateSequenceTypeInfo(const OrtTypeInfo* sequence_type,
                                               OrtTypeInfo** type_info) noexcept {
  return guard("CreateSequenceTypeInfo", [&] {
    need(sequence_type, "sequence_type");
    need(type_info, "type_info");
    auto info = std::make_unique<OrtTypeInfo>();
    info->type = ONNX_TYPE_SEQUENCE;
    info->sequence = std::make_unique<OrtSequenceTypeInfo>();
    info->sequence->element_type = clone_type_info(*sequence_type);
    *type_info = info.release();
  });
}

OrtStatus* ORT_API_CALL CreateOptionalTypeInfo(const OrtTypeInfo* contained_type,
                                               OrtTypeInfo** type_info) noexcept {
  return guard("CreateOptionalTypeInfo", [&] {
    need(contained_type, "contained_type");
    need(type_info, "type_info");
    auto info = std::make_unique<OrtTypeInfo>();
    info->type = ONNX_TYPE_OPTIONAL;
    info->optional = std::make_unique<OrtOptionalTypeInfo>();
    info->optional->contained_type = clone_type_info(*contained_type);
    *type_info = info.release();
  });
}

OrtStatus* ORT_API_CALL CreateValueInfo(const char* name, const OrtTypeInfo* type_info,
                                        OrtValueInfo** value_info) noexcept {
  return guard("CreateValueInfo", [&] {
    need(name, "name");
    need(type_info, "type_info");
    need(value_info, "value_info");
    check(*name != '\0', "the name is empty");
    auto v = std::make_unique<OrtValueInfo>();
    v->name = name;
    v->type = ir_type(*type_info);
    *value_info = v.release();
  });
}

OrtStatus* ORT_API_CALL CreateNode(const char* operator_name, const char* domain_name,
                                   const char* node_name, const char* const* input_names,
                                   size_t input_names_len, const char* const* output_names,
                                   size_t output_names_len, OrtOpAttr** attributes,
                                   size_t attribs_len, OrtNode** node) noexcept {
  return guard("CreateNode", [&] {
    need(operator_name, "operator_name");
    need(domain_name, "domain_name");
    need(node_name, "node_name");
    need(node, "node");
    check(*operator_name != '\0', "operator_name is empty");
    auto n = std::make_unique<OrtNode>();
    ir::Node& ir = n->own;
    ir.op_type = operator_name;
    ir.domain = ir::is_onnx_domain(domain_name) ? "" : domain_name;
    ir.name = node_name;
    // "" names an omitted optional input or output.
    ir.inputs = string_list(input_names, input_names_len, "input_names");
    ir.outputs = string_list(output_names, output_names_len, "output_names");
    check_handover(attributes, attribs_len, "attributes");
    std::set<std::string> names;
    for (size_t i = 0; i < attribs_len; ++i)
      check(names.insert(attributes[i]->attr.name).second, "attribute '", attributes[i]->attr.name,
            "' is given twice");
    // The node takes the attributes: copied, and the application's freed.
    for (size_t i = 0; i < attribs_len; ++i) {
      ir.attributes.push_back(std::move(attributes[i]->attr));
      delete attributes[i];
      attributes[i] = nullptr;
    }
    *node = n.release();
  });
}

OrtStatus* ORT_API_CALL CreateGraph(OrtGraph** graph) noexcept {
  return guard("CreateGraph", [&] {
    need(graph, "graph");
    *graph = new OrtGraph();
  });
}

OrtStatus* ORT_API_CALL SetGraphInputs(OrtGraph* graph, OrtValueInfo** inputs,
                                       size_t inputs_len) noexcept {
  return guard("SetGraphInputs", [&] {
    OrtGraph& g = editor_graph(graph, "graph");
    g.graph->inputs = take_value_infos(inputs, inputs_len, "inputs");
  });
}

OrtStatus* ORT_API_CALL SetGraphOutputs(OrtGraph* graph, OrtValueInfo** outputs,
                                        size_t outputs_len) noexcept {
  return guard("SetGraphOutputs", [&] {
    OrtGraph& g = editor_graph(graph, "graph");
    g.graph->outputs = take_value_infos(outputs, outputs_len, "outputs");
  });
}

OrtStatus* ORT_API_CALL AddInitializerToGraph(OrtGraph* graph, const char* name, OrtValue* tensor,
                                              bool data_is_external) noexcept {
  return guard("AddInitializerToGraph", [&] {
    OrtGraph& g = editor_graph(graph, "graph");
    need(name, "name");
    need(tensor, "tensor");
    check(*name != '\0', "the name is empty");
    check(tensor->value.is_tensor(), "initializer '", name, "' is a ", tensor->value.kind_name(),
          ", not a tensor");
    const Tensor& t = tensor->value.tensor();
    check(t.memory_info().host_accessible(), "initializer '", name,
          "' is in device memory; initializers are host tensors");
    check(t.has_data(), "initializer '", name, "' has no data");
    check(g.graph->initializers.count(name) == 0, "the graph already has an initializer '", name,
          "'");
    // External data stays the application's memory (it must outlive the
    // sessions made from the model); other data is copied now, so the
    // application may reuse its buffer at once.
    g.graph->initializers.emplace(name, data_is_external ? t : t.clone());
    if (data_is_external) g.external_initializers.push_back(name);
    delete tensor;  // the graph owns what the value held
  });
}

OrtStatus* ORT_API_CALL AddNodeToGraph(OrtGraph* graph, OrtNode* node) noexcept {
  return guard("AddNodeToGraph", [&] {
    OrtGraph& g = editor_graph(graph, "graph");
    need(node, "node");
    check(node->graph == nullptr, node->node().describe(), " is already in a graph");
    std::lock_guard<std::mutex> lock(g.mu);
    for (size_t i = g.nodes.size(); i < g.graph->nodes.size(); ++i) {
      auto n = std::make_unique<OrtNode>();
      n->graph = &g;
      n->index = i;
      g.nodes.push_back(std::move(n));
    }
    g.nodes.reserve(g.nodes.size() + 1);
    g.graph->nodes.push_back(std::move(node->own));
    node->own = ir::Node{};
    node->graph = &g;
    node->index = g.graph->nodes.size() - 1;
    g.nodes.emplace_back(node);
  });
}

OrtStatus* ORT_API_CALL CreateModel(const char* const* domain_names, const int* opset_versions,
                                    size_t opset_entries_len, OrtModel** model) noexcept {
  return guard("CreateModel", [&] {
    need(model, "model");
    const auto domains = string_list(domain_names, opset_entries_len, "domain_names");
    if (opset_entries_len > 0) need(opset_versions, "opset_versions");
    auto m = std::make_unique<OrtModel>();
    m->ir_version = kEditorIrVersion;
    std::set<std::string> seen;
    for (size_t i = 0; i < opset_entries_len; ++i) {
      const std::string domain = ir::is_onnx_domain(domains[i]) ? "" : domains[i];
      check(opset_versions[i] > 0, "domain '", domains[i], "' has opset version ",
            opset_versions[i]);
      check(seen.insert(domain).second, "domain '", domains[i], "' is given twice");
      m->opsets.push_back({domain, opset_versions[i]});
    }
    *model = m.release();
  });
}

OrtStatus* ORT_API_CALL AddGraphToModel(OrtModel* model, OrtGraph* graph) noexcept {
  return guard("AddGraphToModel", [&] {
    need(model, "model");
    OrtGraph& g = editor_graph(graph, "graph");
    check(model->graph == nullptr, "the model already has a graph");
    check(g.model == nullptr, "the graph is already in a model");
    g.model = model;
    model->graph.reset(&g);
  });
}

OrtStatus* ORT_API_CALL CreateSessionFromModel(const OrtEnv* env, const OrtModel* model,
                                               const OrtSessionOptions* options,
                                               OrtSession** out) noexcept {
  return create_session("CreateSessionFromModel", options, out, [&] {
    need(model, "model");
    check(model->graph != nullptr, "the model has no graph (AddGraphToModel adds one)");
    ir::Model m;
    m.ir_version = model->ir_version;
    m.opset_imports = model->opsets;
    m.graph = *model->graph->graph;  // tensors share their data: nothing is copied
    return new_session(env, std::move(m), options);
  });
}

OrtStatus* ORT_API_CALL CreateModelEditorSession(const OrtEnv* env, const ORTCHAR_T* model_path,
                                                 const OrtSessionOptions* options,
                                                 OrtSession** out) noexcept {
  return create_session("CreateModelEditorSession", options, out, [&] {
    need(env, "env");
    need(model_path, "model_path");
    auto s = std::make_unique<OrtSession>(nullptr);
    s->env = env;
    s->editing = std::make_unique<ir::Model>(
        onnx::load_model(model_path, options ? runtime::supplied_external_data(options->options)
                                             : onnx::SuppliedExternalData{}));
    return s.release();
  });
}

OrtStatus* ORT_API_CALL CreateModelEditorSessionFromArray(const OrtEnv* env, const void* model_data,
                                                          size_t model_data_length,
                                                          const OrtSessionOptions* options,
                                                          OrtSession** out) noexcept {
  return create_session("CreateModelEditorSessionFromArray", options, out, [&] {
    need(env, "env");
    need(model_data, "model_data");
    check(model_data_length > 0, "model_data_length is 0");
    auto s = std::make_unique<OrtSession>(nullptr);
    s->env = env;
    s->editing = std::make_unique<ir::Model>(
        onnx::parse_model(model_data, model_data_length, "", "<model bytes>",
                          options ? runtime::supplied_external_data(options->options)
                                  : onnx::SuppliedExternalData{}));
    return s.release();
  });
}

OrtStatus* ORT_API_CALL SessionGetOpsetForDomain(const OrtSession* session, const char* domain,
                                                 int* opset) noexcept {
  return guard("SessionGetOpsetForDomain", [&] {
    need(session, "session");
    need(domain, "domain");
    need(opset, "opset");
    // A model editor session answers from the model it is changing.
    const ir::Model& m = session->editing ? *session->editing : session->get().model();
    const int64_t v = m.opset(domain);
    check(v > 0, "the model imports no opset of domain '", domain, "'");
    *opset = static_cast<int>(v);
  });
}

OrtStatus* ORT_API_CALL ApplyModelToModelEditorSession(OrtSession* session,
                                                       OrtModel* model) noexcept {
  return guard("ApplyModelToModelEditorSession", [&] {
    need(session, "session");
    need(model, "model");
    check(session->editing != nullptr,
          "the session is not a model editor session, or FinalizeModelEditorSession finished it");
    check(model->graph != nullptr, "the model has no graph (AddGraphToModel adds one)");
    ir::Model& m = *session->editing;
    const ir::Graph& add = *model->graph->graph;
    // Everything is checked before anything changes, so a refused model
    // leaves the session's as it was.
    for (const auto& o : model->opsets) {
      const int64_t have = m.opset(o.domain);
      check(have == 0 || have == o.version, "the model imports opset ", o.version, " of domain '",
            o.domain, "' but the session's imports ", have);
    }
    for (const auto& [name, t] : add.initializers)
      check(m.graph.initializers.count(name) == 0,
            "the session's model already has an initializer '", name, "'");
    for (const auto& o : model->opsets)
      if (m.opset(o.domain) == 0) m.opset_imports.push_back(o);
    // Inputs and outputs change only when the editor model sets them.
    if (!add.inputs.empty()) m.graph.inputs = add.inputs;
    if (!add.outputs.empty()) m.graph.outputs = add.outputs;
    for (const auto& [name, t] : add.initializers) m.graph.initializers.emplace(name, t);
    for (const auto& n : add.nodes) m.graph.nodes.push_back(n);
  });
}

OrtStatus* ORT_API_CALL
FinalizeModelEditorSession(OrtSession* session, const OrtSessionOptions* options,
                           OrtPrepackedWeightsContainer* prepacked_weights_container) noexcept {
  if (OrtStatus* s = guard("FinalizeModelEditorSession", [&] {
        need(session, "session");
        check(session->editing != nullptr,
              "the session is not a model editor session, or FinalizeModelEditorSession "
              "finished it");
      }))
    return s;
  // The model is copied into the new session, so a failed creation leaves
  // the editor session as it was.
  OrtSession* made = nullptr;
  if (OrtStatus* s = create_session("FinalizeModelEditorSession", options, &made, [&] {
        if (prepacked_weights_container == nullptr)
          return new_session(session->env, *session->editing, options);
        // A container shares packed weights as CreateSessionWithPrepackedWeightsContainer's
        // sessions do: through the environment's cache, sharing on.
        OrtSessionOptions sharing = options != nullptr ? *options : OrtSessionOptions{};
        sharing.options.config_entries["session.share_initializers"] = "1";
        return new_session(session->env, *session->editing, &sharing);
      }))
    return s;
  session->session = std::move(made->session);
  delete made;
  session->editing.reset();
  return nullptr;
}

void ORT_API_CALL ReleaseModel(OrtModel* input) noexcept { delete input; }

}  // namespace tessera::capi
