// The basic-level pass that removes Casts which cannot change a value.
#pragma once
#include <cstddef>

#include "ir/graph.hpp"

namespace tessera::optimizer {

// Removes Casts that cannot change a value: to the type the input already
// has, and the second of a round trip through a type holding every value of
// the first exactly (float -> double -> float); graph outputs stay. Input
// types come from type inference (ops::infer_output_types, the schema's
// rules at the model's opsets) over the graph's inputs and initializers.
size_t eliminate_redundant_casts(const ir::Model& model, ir::Graph& graph);

}  // namespace tessera::optimizer
