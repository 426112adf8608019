// The type constraints of the operator schema table, checked against a
// model's nodes at session creation: an input whose element type the op does
// not allow, or inputs of one type variable with different types, fail
// before any kernel is looked up.
#pragma once
#include <string>

#include "ir/graph.hpp"

namespace tessera::ops {

// Checks every node of `model` (subgraphs included) that has a schema entry;
// throws kInvalidGraph naming `where`, the node, the input, the type found
// and the types allowed. Inputs of unknown type are not checked.
void check_input_types(const ir::Model& model, const std::string& where);

}  // namespace tessera::ops
