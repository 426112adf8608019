// Partial shapes: a known rank whose dims are each a number, a symbol or
// unknown (ir::Dim: a model's dim_param is its symbol, and two dims with one
// symbol are one size, so Add of [N,768] and [N,768] is [N,768]).
//
// The schema's shape rules are written once, over full shapes (the kernels'
// case, which stays as fast as it is). partial_output_shapes lifts a rule to
// partial inputs by running it over probe shapes: the unknown dims take
// values chosen so that what the rule does with them shows in its outputs
// (see partial_shape.cpp). An output dim that is the same number in every
// probe is that number; one that follows one unknown dim in every probe is
// that dim; anything else is unknown.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "ir/graph.hpp"
#include "ir/type_info.hpp"

namespace tessera::ops {

struct OpSchema;

using PartialShape = std::vector<ir::Dim>;
using PartialOutShapes = std::vector<std::optional<PartialShape>>;

// The full shape when every dim is a number (and not negative).
std::optional<Shape> full_shape(const PartialShape& p);
PartialShape to_partial(const Shape& s);
// "[N,?,768]": symbols by name, unknown dims without one as '?'.
std::string partial_to_string(const PartialShape& p);

// Integer values of shape-like input i, where known (constants).
using IntsOf = std::function<std::optional<std::vector<int64_t>>(size_t)>;

// The output shapes `schema`'s rule gives for inputs of shapes `inputs`
// (null: absent or of unknown rank), as far as they follow whatever the
// unknown dims are. With full input shapes this is the rule's own answer,
// errors included; with partial ones an input the rule rejects for some
// probe leaves every output unknown (an empty result).
PartialOutShapes partial_output_shapes(const OpSchema& schema, const ir::Node& node, int64_t opset,
                                       const std::vector<const PartialShape*>& inputs,
                                       const IntsOf& ints);

}  // namespace tessera::ops
