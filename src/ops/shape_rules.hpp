// The pieces the schema's shape rules of Reshape, Split, Slice, Shape and
// Expand are made of, shared with the ops that reuse them (SplitToSequence,
// the fused attention ops' output_shape). Errors are kInvalidArgument naming
// the offending values; the rules add the node. Kernels read Slice's window
// through slice_window, which takes the same query the rule does.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/shape.hpp"

namespace tessera::ops {

class ShapeQuery;

// The sizes of Split's `outputs` parts along `axis` (already made
// non-negative; `axis_attr` is the attribute as written, for messages) of
// `x`: `split` when given, else equal parts (opset 18 on: ceil(dim / n), the
// last part smaller).
std::vector<int64_t> split_sizes(const Shape& x, size_t axis, int64_t axis_attr, int64_t outputs,
                                 std::vector<int64_t> split, int64_t opset);

// Slice per input axis: the first element taken, the step between elements
// (1 where at most one is taken, so a huge step never enters index math),
// and how many are taken (the output's dims).
struct SliceWindow {
  std::vector<int64_t> begin, step, dims;
};
// The window of a Slice node: starts, ends, axes and steps read from its
// attributes (before opset 10) or its inputs 1-4, clamped as the spec says.
// Nullopt when input 0's shape or a needed input's values are not known.
// The schema's Slice shape rule is its `dims`; kernels take the rest.
std::optional<SliceWindow> slice_window(const ShapeQuery& q);

// Reshape's output for an input of shape `in` and the requested `spec`: a 0
// copies the input's dim (unless `allowzero`), one -1 takes what is left.
// Also the fused attention ops' output_shape (which has no 0s). Errors say
// "cannot reshape <what> of shape <in> to <spec_name> <spec>: <why>".
Shape reshape_shape(const Shape& in, const std::vector<int64_t>& spec, bool allowzero,
                    const char* what = "input", const char* spec_name = "");

// Shape's dims [begin, end) of an input of rank `rank`: `start` and `end`
// (opset 15; absent end: the rank) negative from the back, clamped to
// [0, rank]; end is at least begin.
std::pair<int64_t, int64_t> shape_range(int64_t rank, int64_t start, std::optional<int64_t> end);

// Expand's output: `x` broadcast with `target` (no negative dims).
Shape expand_shape(const Shape& x, const Shape& target);

}  // namespace tessera::ops
