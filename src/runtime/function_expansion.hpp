// Ops that no provider has a kernel for but that the spec defines by a
// function body (ops/function_bodies) are replaced by that body before
// partitioning, so they run as the ops of their body.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "ops/function_bodies.hpp"
#include "runtime/graph_plan.hpp"

namespace tessera::runtime {

// One node replaced by its function body, for the partition report.
struct FunctionExpansion {
  std::string node_name;  // the replaced node
  std::string op_type;
  std::string body;                     // which body: "Celu-15"
  int depth = 0;                        // 0: a node of the model; 1: a node of a body; ...
  std::vector<std::string> body_nodes;  // names of the nodes it became
};

// How deep bodies may nest (a body's node expanded into another body, ...).
constexpr int kMaxFunctionExpansionDepth = 8;

// Where bodies come from: the spec's table, or another table in tests.
using BodyLookup = std::function<const ops::FunctionBody*(const ir::Node&, int64_t opset)>;

// Expands, in the main graph and in every subgraph, each node that none of
// `providers` has a kernel for (at the model's opset and the node's input
// types) and that has a body at that opset; repeats on the new nodes up to
// kMaxFunctionExpansionDepth levels (then throws kInvalidGraph).
std::vector<FunctionExpansion> expand_ops_without_kernels(
    ir::Model& model, const Providers& providers,
    const BodyLookup& find_body = ops::find_function_body);

}  // namespace tessera::runtime
