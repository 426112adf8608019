// Model-local functions (FunctionProto) are expanded in place: each call node
// becomes the function's body with inputs, outputs and attribute references
// substituted and internal names made unique.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace tessera::onnx {

// Inlines every call to a model-local function, recursively and in subgraphs.
// Throws kInvalidGraph for recursive functions or arity mismatches.
void inline_functions(ir::Model& model);

// The body a node expands into, or null to keep the node as it is.
using BodyFor = std::function<const ir::Function*(const ir::Node&)>;

// One expanded node: its name and op type, and the names of the nodes it became.
struct Expansion {
  std::string node_name;
  std::string op_type;
  std::vector<std::string> body_nodes;
};

// Replaces each node of `graph` (not of its subgraphs) for which `body_for`
// gives a body with that body, one level deep: the body's nodes are not looked
// at again. Body nodes run at the model's opsets (schema bodies import none).
std::vector<Expansion> expand_nodes(ir::Model& model, ir::Graph& graph, const BodyFor& body_for);

}  // namespace tessera::onnx
