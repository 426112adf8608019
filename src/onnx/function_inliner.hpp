// Model-local functions (FunctionProto) are expanded in place: each call node
// becomes the function's body with inputs, outputs and attribute references
// substituted and internal names made unique.
#pragma once
#include "ir/graph.hpp"

namespace tessera::onnx {

// Inlines every call to a model-local function, recursively and in subgraphs.
// Throws kInvalidGraph for recursive functions or arity mismatches.
void inline_functions(ir::Model& model);

}  // namespace tessera::onnx
