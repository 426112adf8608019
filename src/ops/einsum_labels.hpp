// Einsum's equation and its labels resolved against the input shapes: the
// one reading of the equation that the schema's shape rule and the CPU
// kernel share.
#pragma once
#include <string>
#include <vector>

#include "core/shape.hpp"

namespace tessera::ops {

// Labels 'a'..'z' are 0..25, 'A'..'Z' 26..51; the dims an ellipsis covers
// get labels from kEinsumLetters on, right-aligned across the inputs.
inline constexpr int kEinsumLetters = 52;
inline constexpr int kEinsumEllipsis = -1;

struct EinsumEquation {
  std::vector<std::vector<int>> terms;  // per input: its labels, kEinsumEllipsis for "..."
  std::vector<int> out_term;            // after "->", when explicit
  bool explicit_out = false;
};

struct EinsumLabels {
  std::vector<std::vector<int>> axes;  // per input: the label of each axis
  std::vector<int> out;                // the output's labels, in order
  std::vector<int64_t> dim;            // per label: its size (1 when no input has it)
  std::vector<int> count;              // per label: how many input axes bear it
  Shape out_shape() const;
};

// Whitespace is ignored. Fails (kInvalidArgument) on a malformed equation.
EinsumEquation parse_einsum(const std::string& equation);
// Fails (kInvalidArgument) when the inputs do not match their terms, a
// label has two sizes (ellipsis dims broadcast), or an output label is in
// no input.
EinsumLabels einsum_labels(const EinsumEquation& eq, const std::vector<Shape>& inputs);

}  // namespace tessera::ops
