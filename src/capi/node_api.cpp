// The Node_* and OpAttr_* entries: a node's identity, its inputs, outputs
// and implicit inputs as value infos of its graph, its attributes as
// OrtOpAttrs (read with ReadOpAttr) and its subgraphs as OrtGraphs.
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/graph_views.hpp"
#include "ops/schema.hpp"

namespace tessera::capi {
namespace {

const OrtGraph& owner(const OrtNode& n, const char* what) {
  check(n.graph != nullptr, n.node().describe(), " is in no graph, so it has no ", what);
  return *n.graph;
}

// Value infos of `names` in the node's graph; an omitted optional one ("") is NULL.
std::vector<const OrtValueInfo*> values(const OrtNode& n, const std::vector<std::string>& names,
                                        const char* what) {
  std::vector<const OrtValueInfo*> out;
  if (names.empty()) return out;
  const OrtGraph& g = owner(n, what);
  for (const auto& name : names) out.push_back(name.empty() ? nullptr : graph_value(g, name));
  return out;
}

const std::vector<std::unique_ptr<OrtOpAttr>>& attrs(const OrtNode& n) {
  std::mutex fallback;
  std::lock_guard<std::mutex> lock(n.graph ? n.graph->mu : fallback);
  if (!n.attributes_made) {
    for (const auto& a : n.node().attributes)
      n.attributes.push_back(std::make_unique<OrtOpAttr>(OrtOpAttr{a}));
    n.attributes_made = true;
  }
  return n.attributes;
}

const std::vector<std::pair<std::string, std::unique_ptr<OrtGraph>>>& subgraphs(const OrtNode& n) {
  std::mutex fallback;
  std::lock_guard<std::mutex> lock(n.graph ? n.graph->mu : fallback);
  if (!n.subgraphs_made) {
    auto add = [&](const std::string& name, const std::shared_ptr<ir::Graph>& g) {
      if (!g) return;
      auto sub = std::make_unique<OrtGraph>();
      sub->graph = g;  // the attribute's own graph: no copy
      sub->parent_node = &n;
      sub->outer = n.graph;
      n.subgraphs.emplace_back(name, std::move(sub));
    };
    for (const ir::Attribute& a : n.node().attributes) {
      if (a.type == ir::AttrType::kGraph) add(a.name, a.g);
      if (a.type == ir::AttrType::kGraphs)
        for (const auto& g : a.graphs) add(a.name, g);
    }
    n.subgraphs_made = true;
  }
  return n.subgraphs;
}

const OrtOpAttr& attr_of(const OrtOpAttr* a) {
  need(a, "attribute");
  return *a;
}

}  // namespace

void ORT_API_CALL ReleaseNode(OrtNode* input) noexcept {
  if (input != nullptr && input->graph == nullptr) delete input;  // else its graph's
}

OrtStatus* ORT_API_CALL Node_GetId(const OrtNode* node, size_t* node_id) noexcept {
  return guard("Node_GetId", [&] {
    need(node_id, "node_id");
    const OrtNode& n = node_of(node);
    owner(n, "id");
    *node_id = n.index;
  });
}

OrtStatus* ORT_API_CALL Node_GetName(const OrtNode* node, const char** node_name) noexcept {
  return guard("Node_GetName", [&] {
    need(node_name, "node_name");
    *node_name = node_of(node).node().name.c_str();
  });
}

OrtStatus* ORT_API_CALL Node_GetOperatorType(const OrtNode* node,
                                             const char** operator_type) noexcept {
  return guard("Node_GetOperatorType", [&] {
    need(operator_type, "operator_type");
    *operator_type = node_of(node).node().op_type.c_str();
  });
}

OrtStatus* ORT_API_CALL Node_GetDomain(const OrtNode* node, const char** domain_name) noexcept {
  return guard("Node_GetDomain", [&] {
    need(domain_name, "domain_name");
    *domain_name = node_of(node).node().domain.c_str();
  });
}

OrtStatus* ORT_API_CALL Node_GetSinceVersion(const OrtNode* node, int* since_version) noexcept {
  return guard("Node_GetSinceVersion", [&] {
    need(since_version, "since_version");
    const OrtNode& n = node_of(node);
    const OrtModel* m = model_of(owner(n, "model opsets"));
    check(m != nullptr, n.node().describe(), " is in a graph of no model, which imports no opsets");
    const ir::Node& ir = n.node();
    int64_t opset = 0;
    for (const auto& o : m->opsets)
      if (o.domain == ir.domain || (ir::is_onnx_domain(o.domain) && ir::is_onnx_domain(ir.domain)))
        opset = o.version;
    check(opset > 0, ir.describe(), ": the model imports no opset of domain '", ir.domain, "'");
    // The first opset of Tessera's schema entry serving that opset; an op
    // without an entry answers the imported opset. Entries are shared by
    // versions of the spec that change only the allowed types, so for such
    // an op this can be earlier than ONNX's since_version (Add at opset 17
    // answers 7, not 14).
    const ops::OpSchema* s = ops::find_schema(ir, opset);
    *since_version = static_cast<int>(s != nullptr ? s->since : opset);
  });
}

OrtStatus* ORT_API_CALL Node_GetNumInputs(const OrtNode* node, size_t* num_inputs) noexcept {
  return guard("Node_GetNumInputs", [&] {
    need(num_inputs, "num_inputs");
    *num_inputs = node_of(node).node().inputs.size();
  });
}

OrtStatus* ORT_API_CALL Node_GetInputs(const OrtNode* node, const OrtValueInfo** inputs,
                                       size_t num_inputs) noexcept {
  return guard("Node_GetInputs", [&] {
    const OrtNode& n = node_of(node);
    copy_out(values(n, n.node().inputs, "input values"), inputs, num_inputs, "inputs");
  });
}

OrtStatus* ORT_API_CALL Node_GetNumOutputs(const OrtNode* node, size_t* num_outputs) noexcept {
  return guard("Node_GetNumOutputs", [&] {
    need(num_outputs, "num_outputs");
    *num_outputs = node_of(node).node().outputs.size();
  });
}

OrtStatus* ORT_API_CALL Node_GetOutputs(const OrtNode* node, const OrtValueInfo** outputs,
                                        size_t num_outputs) noexcept {
  return guard("Node_GetOutputs", [&] {
    const OrtNode& n = node_of(node);
    copy_out(values(n, n.node().outputs, "output values"), outputs, num_outputs, "outputs");
  });
}

OrtStatus* ORT_API_CALL Node_GetNumImplicitInputs(const OrtNode* node,
                                                  size_t* num_implicit_inputs) noexcept {
  return guard("Node_GetNumImplicitInputs", [&] {
    need(num_implicit_inputs, "num_implicit_inputs");
    *num_implicit_inputs = implicit_inputs(node_of(node).node()).size();
  });
}

OrtStatus* ORT_API_CALL Node_GetImplicitInputs(const OrtNode* node,
                                               const OrtValueInfo** implicit_inputs_out,
                                               size_t num_implicit_inputs) noexcept {
  return guard("Node_GetImplicitInputs", [&] {
    const OrtNode& n = node_of(node);
    copy_out(values(n, implicit_inputs(n.node()), "implicit input values"), implicit_inputs_out,
             num_implicit_inputs, "implicit_inputs");
  });
}

OrtStatus* ORT_API_CALL Node_GetNumAttributes(const OrtNode* node,
                                              size_t* num_attributes) noexcept {
  return guard("Node_GetNumAttributes", [&] {
    need(num_attributes, "num_attributes");
    *num_attributes = node_of(node).node().attributes.size();
  });
}

OrtStatus* ORT_API_CALL Node_GetAttributes(const OrtNode* node, const OrtOpAttr** attributes,
                                           size_t num_attributes) noexcept {
  return guard("Node_GetAttributes", [&] {
    std::vector<const OrtOpAttr*> list;
    for (const auto& a : attrs(node_of(node))) list.push_back(a.get());
    copy_out(list, attributes, num_attributes, "attributes");
  });
}

OrtStatus* ORT_API_CALL Node_GetAttributeByName(const OrtNode* node, const char* attribute_name,
                                                const OrtOpAttr** attribute) noexcept {
  std::string missing;
  OrtStatus* s = guard("Node_GetAttributeByName", [&] {
    need(attribute_name, "attribute_name");
    need(attribute, "attribute");
    const OrtNode& n = node_of(node);
    *attribute = nullptr;
    for (const auto& a : attrs(n))
      if (a->attr.name == attribute_name) *attribute = a.get();
    if (*attribute == nullptr)
      missing = n.node().describe() + " has no attribute '" + attribute_name + "'";
  });
  // An absent attribute is ORT_NOT_FOUND, as in ONNX Runtime, which callers
  // test for to fall back on a default.
  if (s == nullptr && !missing.empty())
    return make_status(ORT_NOT_FOUND, "Node_GetAttributeByName: " + missing);
  return s;
}

OrtStatus* ORT_API_CALL OpAttr_GetTensorAttributeAsOrtValue(const OrtOpAttr* attribute,
                                                            OrtValue** attr_tensor) noexcept {
  return guard("OpAttr_GetTensorAttributeAsOrtValue", [&] {
    const ir::Attribute& a = attr_of(attribute).attr;
    need(attr_tensor, "attr_tensor");
    check(a.type == ir::AttrType::kTensor, "attribute '", a.name, "' has type ",
          ir::attr_type_name(a.type), ", not TENSOR");
    *attr_tensor = new OrtValue{Value(a.t)};  // shares the attribute's data
  });
}

OrtStatus* ORT_API_CALL OpAttr_GetType(const OrtOpAttr* attribute, OrtOpAttrType* type) noexcept {
  return guard("OpAttr_GetType", [&] {
    need(type, "type");
    switch (attr_of(attribute).attr.type) {
      case ir::AttrType::kInt:
        *type = ORT_OP_ATTR_INT;
        break;
      case ir::AttrType::kInts:
        *type = ORT_OP_ATTR_INTS;
        break;
      case ir::AttrType::kFloat:
        *type = ORT_OP_ATTR_FLOAT;
        break;
      case ir::AttrType::kFloats:
        *type = ORT_OP_ATTR_FLOATS;
        break;
      case ir::AttrType::kString:
        *type = ORT_OP_ATTR_STRING;
        break;
      case ir::AttrType::kStrings:
        *type = ORT_OP_ATTR_STRINGS;
        break;
      case ir::AttrType::kGraph:
        *type = ORT_OP_ATTR_GRAPH;
        break;
      case ir::AttrType::kTensor:
        *type = ORT_OP_ATTR_TENSOR;
        break;
      default:
        *type = ORT_OP_ATTR_UNDEFINED;
        break;  // types the enum has no member for
    }
  });
}

OrtStatus* ORT_API_CALL OpAttr_GetName(const OrtOpAttr* attribute, const char** name) noexcept {
  return guard("OpAttr_GetName", [&] {
    need(name, "name");
    *name = attr_of(attribute).attr.name.c_str();
  });
}

OrtStatus* ORT_API_CALL Node_GetNumSubgraphs(const OrtNode* node, size_t* num_subgraphs) noexcept {
  return guard("Node_GetNumSubgraphs", [&] {
    need(num_subgraphs, "num_subgraphs");
    *num_subgraphs = subgraphs(node_of(node)).size();
  });
}

OrtStatus* ORT_API_CALL Node_GetSubgraphs(const OrtNode* node, const OrtGraph** graphs,
                                          size_t num_subgraphs,
                                          const char** attribute_names) noexcept {
  return guard("Node_GetSubgraphs", [&] {
    std::vector<const OrtGraph*> list;
    std::vector<const char*> names;
    for (const auto& [name, g] : subgraphs(node_of(node))) {
      list.push_back(g.get());
      names.push_back(name.c_str());
    }
    copy_out(list, graphs, num_subgraphs, "subgraphs");
    if (attribute_names != nullptr)
      copy_out(names, attribute_names, num_subgraphs, "attribute_names");
  });
}

OrtStatus* ORT_API_CALL Node_GetGraph(const OrtNode* node, const OrtGraph** graph) noexcept {
  return guard("Node_GetGraph", [&] {
    need(graph, "graph");
    *graph = node_of(node).graph;
  });
}

OrtStatus* ORT_API_CALL Node_GetEpName(const OrtNode* node, const char** out) noexcept {
  return guard("Node_GetEpName", [&] {
    node_of(node);
    need(out, "out");
    // Graphs read here are not partitioned: no node has a provider yet.
    *out = "";
  });
}

}  // namespace tessera::capi
