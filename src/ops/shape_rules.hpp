// The output geometry of Reshape, Split, Slice, Shape, Expand and Concat as the spec defines it,
// from the node's attributes and the values of its shape inputs: one place
// for every provider's kernels (the CPU's and CUDA's). Errors are
// kInvalidArgument naming the offending values; the executor adds the node.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/shape.hpp"
#include "core/tensor.hpp"

namespace tessera::ops {

// The sizes of Split's `outputs` parts along `axis` (already made
// non-negative; `axis_attr` is the attribute as written, for messages) of
// `x`: `split` when given, else equal parts (opset 18 on: ceil(dim / n), the
// last part smaller).
std::vector<int64_t> split_sizes(const Shape& x, size_t axis, int64_t axis_attr, int64_t outputs,
                                 std::vector<int64_t> split, int64_t opset);

// Slice per input axis: the first element taken, the step between elements
// (1 where at most one is taken, so a huge step never enters index math),
// and how many are taken. `axes` empty means 0, 1, ...; `steps` empty, all 1.
struct SliceWindow {
  std::vector<int64_t> begin, step, dims;
};
SliceWindow slice_window(const Shape& in, const std::vector<int64_t>& starts,
                         const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                         std::vector<int64_t> steps);

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

// Concat's output for inputs of shapes `in` joined along `axis_attr` (as
// written, negative from the back); `*axis` receives it made non-negative.
// The inputs must have one rank above 0 and equal dims off the axis; the
// axis' sum must fit in int64.
Shape concat_shape(const std::vector<const Shape*>& in, int64_t axis_attr, size_t* axis);
// The same for the input tensors of a Concat node, which must also share one
// element type.
Shape concat_output_shape(const std::vector<const Tensor*>& in, int64_t axis_attr, size_t* axis);

}  // namespace tessera::ops
