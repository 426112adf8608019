// A small parser for function bodies written in (a subset of) ONNX's textual
// syntax, so the in-tree table of the spec's function bodies reads like the
// spec instead of like builder calls:
//
//   Celu <alpha: float = 1.0> (X) => (Y) {
//     alpha_f = Constant <value_float = @alpha> ()
//     Y = Mul (alpha_f, X)
//   }
//
// Supported: attribute declarations with typed defaults (float, int, string,
// floats, ints), node attributes given as literals or as @references to the
// function's attributes, omitted inputs as empty slots ("Op (a, , c)"), and a
// "domain.Op" prefix for other domains. Not supported: tensor literals and
// graph attributes (bodies that need them use Constant value_* attributes).
#pragma once
#include <string_view>

#include "ir/graph.hpp"

namespace tessera::ops {

// Throws kInvalidGraph naming the line and column of the first problem.
ir::Function parse_function_text(std::string_view text);

}  // namespace tessera::ops
