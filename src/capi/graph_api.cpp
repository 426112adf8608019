// The Graph_* entries: a graph's name, model facts (IR version, opsets,
// metadata), its inputs, outputs, initializers and nodes, and views of
// some of its nodes.
#include <set>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/graph_views.hpp"

namespace tessera::capi {
namespace {

std::vector<const OrtValueInfo*> values_named(const OrtGraph& g,
                                              const std::vector<ir::ValueInfo>& list) {
  std::vector<const OrtValueInfo*> out;
  for (const auto& v : list) out.push_back(graph_value(g, v.name));
  return out;
}

std::vector<const OrtValueInfo*> initializer_values(const OrtGraph& g) {
  std::vector<const OrtValueInfo*> out;
  for (const auto& [name, t] : g.graph->initializers) out.push_back(graph_value(g, name));
  return out;
}

// A graph of `nodes` of `src`: the values they read from elsewhere become its
// inputs (initializers stay initializers), and the values they make that a
// node outside them or the graph's outputs read become its outputs.
std::unique_ptr<OrtGraph> cut(const OrtGraph& src, const OrtNode* const* nodes, size_t n) {
  const ir::Graph& from = *src.graph;
  std::vector<bool> in_view(from.nodes.size(), false);
  for (size_t i = 0; i < n; ++i) {
    check(nodes[i] != nullptr, "nodes[", i, "] is null");
    check(nodes[i]->graph == &src, "nodes[", i, "] (", nodes[i]->node().describe(),
          ") is not a node of this graph");
    check(!in_view[nodes[i]->index], "nodes[", i, "] (", nodes[i]->node().describe(),
          ") appears twice");
    in_view[nodes[i]->index] = true;
  }
  auto view = std::make_unique<OrtGraph>();
  ir::Graph& g = *view->graph;
  g.name = from.name;
  view->view_of = &src;
  view->outer = src.outer;
  view->parent_node = src.parent_node;
  std::set<std::string> made, seen_in;
  for (size_t k = 0; k < from.nodes.size(); ++k)
    if (in_view[k]) {
      g.nodes.push_back(from.nodes[k]);
      for (const auto& out : from.nodes[k].outputs)
        if (!out.empty()) made.insert(out);
    }
  auto declare = [&](const std::string& name, std::vector<ir::ValueInfo>& list) {
    const OrtValueInfo* v = graph_value(src, name);
    list.push_back(ir::ValueInfo{name, v->type, ""});
  };
  for (const ir::Node& node : g.nodes) {
    std::vector<std::string> reads = node.inputs;
    for (const auto& name : implicit_inputs(node)) reads.push_back(name);
    for (const auto& name : reads) {
      if (name.empty() || made.count(name) || !seen_in.insert(name).second) continue;
      auto init = from.initializers.find(name);
      if (init != from.initializers.end()) {
        g.initializers.emplace(name, init->second);
        if (from.find_input(name) != nullptr) declare(name, g.inputs);
      } else if (defines(from, name)) {
        declare(name, g.inputs);
      }
      // Names from beyond `src` stay outer-scope values of the view.
    }
  }
  std::set<std::string> read_outside;
  for (const auto& o : from.outputs) read_outside.insert(o.name);
  for (size_t k = 0; k < from.nodes.size(); ++k) {
    if (in_view[k]) continue;
    for (const auto& name : from.nodes[k].inputs) read_outside.insert(name);
    for (const auto& name : implicit_inputs(from.nodes[k])) read_outside.insert(name);
  }
  for (const ir::Node& node : g.nodes)
    for (const auto& out : node.outputs)
      if (!out.empty() && read_outside.count(out)) declare(out, g.outputs);
  for (const auto& vi : from.value_info)
    if (made.count(vi.name)) g.value_info.push_back(vi);
  return view;
}

}  // namespace

void ORT_API_CALL ReleaseGraph(OrtGraph* input) noexcept {
  if (input == nullptr) return;
  // The caller's: graph views, and editor graphs not yet in a model. A graph
  // in a model is the model's, a subgraph its node's.
  if (input->view_of != nullptr || (input->model == nullptr && input->parent_node == nullptr))
    delete input;
}

OrtStatus* ORT_API_CALL Graph_GetName(const OrtGraph* graph, const char** graph_name) noexcept {
  return guard("Graph_GetName", [&] {
    need(graph_name, "graph_name");
    *graph_name = graph_of(graph).graph->name.c_str();
  });
}

OrtStatus* ORT_API_CALL Graph_GetModelPath(const OrtGraph* graph,
                                           const ORTCHAR_T** model_path) noexcept {
  return guard("Graph_GetModelPath", [&] {
    graph_of(graph);
    need(model_path, "model_path");
    // Graphs come from the model editor, whose models have no file.
    *model_path = "";
  });
}

OrtStatus* ORT_API_CALL Graph_GetOnnxIRVersion(const OrtGraph* graph,
                                               int64_t* onnx_ir_version) noexcept {
  return guard("Graph_GetOnnxIRVersion", [&] {
    need(onnx_ir_version, "onnx_ir_version");
    const OrtModel* m = model_of(graph_of(graph));
    *onnx_ir_version = m != nullptr ? m->ir_version : 0;
  });
}

OrtStatus* ORT_API_CALL Graph_GetNumOperatorSets(const OrtGraph* graph,
                                                 size_t* num_operator_sets) noexcept {
  return guard("Graph_GetNumOperatorSets", [&] {
    need(num_operator_sets, "num_operator_sets");
    const OrtModel* m = model_of(graph_of(graph));
    *num_operator_sets = m != nullptr ? m->opsets.size() : 0;
  });
}

OrtStatus* ORT_API_CALL Graph_GetOperatorSets(const OrtGraph* graph, const char** domains,
                                              int64_t* opset_versions,
                                              size_t num_operator_sets) noexcept {
  return guard("Graph_GetOperatorSets", [&] {
    const OrtModel* m = model_of(graph_of(graph));
    std::vector<const char*> names;
    std::vector<int64_t> versions;
    if (m != nullptr)
      for (const auto& o : m->opsets) {
        names.push_back(o.domain.c_str());
        versions.push_back(o.version);
      }
    copy_out(names, domains, num_operator_sets, "domains");
    copy_out(versions, opset_versions, num_operator_sets, "opset_versions");
  });
}

OrtStatus* ORT_API_CALL Graph_GetNumInputs(const OrtGraph* graph, size_t* num_inputs) noexcept {
  return guard("Graph_GetNumInputs", [&] {
    need(num_inputs, "num_inputs");
    *num_inputs = graph_of(graph).graph->inputs.size();
  });
}

OrtStatus* ORT_API_CALL Graph_GetInputs(const OrtGraph* graph, const OrtValueInfo** inputs,
                                        size_t num_inputs) noexcept {
  return guard("Graph_GetInputs", [&] {
    const OrtGraph& g = graph_of(graph);
    copy_out(values_named(g, g.graph->inputs), inputs, num_inputs, "inputs");
  });
}

OrtStatus* ORT_API_CALL Graph_GetNumOutputs(const OrtGraph* graph, size_t* num_outputs) noexcept {
  return guard("Graph_GetNumOutputs", [&] {
    need(num_outputs, "num_outputs");
    *num_outputs = graph_of(graph).graph->outputs.size();
  });
}

OrtStatus* ORT_API_CALL Graph_GetOutputs(const OrtGraph* graph, const OrtValueInfo** outputs,
                                         size_t num_outputs) noexcept {
  return guard("Graph_GetOutputs", [&] {
    const OrtGraph& g = graph_of(graph);
    copy_out(values_named(g, g.graph->outputs), outputs, num_outputs, "outputs");
  });
}

OrtStatus* ORT_API_CALL Graph_GetNumInitializers(const OrtGraph* graph,
                                                 size_t* num_initializers) noexcept {
  return guard("Graph_GetNumInitializers", [&] {
    need(num_initializers, "num_initializers");
    *num_initializers = graph_of(graph).graph->initializers.size();
  });
}

OrtStatus* ORT_API_CALL Graph_GetInitializers(const OrtGraph* graph,
                                              const OrtValueInfo** initializers,
                                              size_t num_initializers) noexcept {
  return guard("Graph_GetInitializers", [&] {
    copy_out(initializer_values(graph_of(graph)), initializers, num_initializers, "initializers");
  });
}

OrtStatus* ORT_API_CALL Graph_GetNumNodes(const OrtGraph* graph, size_t* num_nodes) noexcept {
  return guard("Graph_GetNumNodes", [&] {
    need(num_nodes, "num_nodes");
    *num_nodes = graph_of(graph).graph->nodes.size();
  });
}

OrtStatus* ORT_API_CALL Graph_GetNodes(const OrtGraph* graph, const OrtNode** nodes,
                                       size_t num_nodes) noexcept {
  return guard("Graph_GetNodes", [&] {
    std::vector<const OrtNode*> list;
    for (const auto& n : graph_nodes(graph_of(graph))) list.push_back(n.get());
    copy_out(list, nodes, num_nodes, "nodes");
  });
}

OrtStatus* ORT_API_CALL Graph_GetParentNode(const OrtGraph* graph, const OrtNode** node) noexcept {
  return guard("Graph_GetParentNode", [&] {
    need(node, "node");
    *node = graph_of(graph).parent_node;
  });
}

OrtStatus* ORT_API_CALL Graph_GetGraphView(const OrtGraph* src_graph, const OrtNode** nodes,
                                           size_t num_nodes, OrtGraph** dst_graph) noexcept {
  return guard("Graph_GetGraphView", [&] {
    const OrtGraph& src = graph_of(src_graph);
    need(dst_graph, "dst_graph");
    if (num_nodes > 0) need(nodes, "nodes");
    *dst_graph = cut(src, nodes, num_nodes).release();
  });
}

OrtStatus* ORT_API_CALL Graph_GetModelMetadata(const OrtGraph* graph,
                                               OrtModelMetadata** out) noexcept {
  return guard("Graph_GetModelMetadata", [&] {
    const OrtGraph& g = graph_of(graph);
    need(out, "out");
    // Editor models carry no producer, domain, version or properties: those
    // stay empty.
    auto meta = std::make_unique<OrtModelMetadata>();
    meta->graph_name = g.graph->name;
    meta->graph_description = g.graph->doc_string;
    *out = meta.release();
  });
}

}  // namespace tessera::capi
