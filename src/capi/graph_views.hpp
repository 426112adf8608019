// What the graph-introspection entries share: checked access to the graph,
// node and value-info handles, the handles a graph makes on request, and the
// questions every entry asks of an ir::Graph (who defines a name, which names
// a subgraph reads from outside).
#pragma once
#include <string>
#include <vector>

#include "capi/api_status.hpp"
#include "capi/handles.hpp"

namespace tessera::capi {

const OrtGraph& graph_of(const OrtGraph* g);
const OrtNode& node_of(const OrtNode* n);
const OrtValueInfo& value_info_of(const OrtValueInfo* v);

// The graph's node handles, one per node in graph order.
const std::vector<std::unique_ptr<OrtNode>>& graph_nodes(const OrtGraph& g);
// The graph's handle for the value `name` (made on first request; its type
// is the declared one, an initializer's, or an outer graph's).
const OrtValueInfo* graph_value(const OrtGraph& g, const std::string& name);
// The model the graph belongs to (through enclosing and source graphs), or null.
const OrtModel* model_of(const OrtGraph& g);

// Whether `g` itself defines `name`: a graph input, an initializer or a node output.
bool defines(const ir::Graph& g, const std::string& name);
// Names the graph's nodes (and their subgraphs, at any depth) read without
// the graph defining them, in first-use order: what it takes from outer scope.
std::vector<std::string> outer_names(const ir::Graph& g);
// A node's implicit inputs: what its graph attributes read from outer scope.
std::vector<std::string> implicit_inputs(const ir::Node& n);

// Copies `items` into the application's array `dst` of `capacity` entries,
// failing (naming `what`) when the array is null or too small.
template <typename T>
void copy_out(const std::vector<T>& items, T* dst, size_t capacity, const char* what) {
  if (items.empty()) return;
  need(dst, what);
  check(capacity >= items.size(), "the array for ", what, " holds ", capacity,
        " entries but there are ", items.size());
  for (size_t i = 0; i < items.size(); ++i) dst[i] = items[i];
}

}  // namespace tessera::capi
