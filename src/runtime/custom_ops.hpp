// A session's custom ops (SessionOptions::custom_ops): their kernels join the
// lookup of the providers they name, and their nodes' output types are
// declared in the graph as a model declares them, so type inference and
// every later stage see them.
#pragma once
#include <map>
#include <string>

#include "ep/custom_ops.hpp"
#include "ir/graph.hpp"
#include "runtime/graph_plan.hpp"

namespace tessera::runtime {

// Gives each provider of the session the custom ops that name it (their
// kernels see the session's configuration entries).
void attach_custom_ops(const Providers& providers, const ep::CustomOps& ops,
                       const std::map<std::string, std::string>& session_config);

// Declares (as value_info of the main graph) the output types of the nodes
// that are custom ops, from their inputs' inferred types.
void declare_custom_op_types(ir::Model& model, const ep::CustomOps& ops);

}  // namespace tessera::runtime
