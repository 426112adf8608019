// Multidirectional (numpy-style) broadcasting, decided once for every kernel
// that needs it: element-wise math, Where, Expand, variadic Sum/Max/...
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/shape.hpp"

namespace tessera::ops {

// Result shape of broadcasting all `shapes`; throws kInvalidArgument listing
// the shapes when they do not broadcast.
Shape broadcast_shapes(const std::vector<Shape>& shapes);

// Opsets 1-6 of the binary ops with broadcast=1 and `axis`: B's dims line up
// with A's starting at `axis` (B [3] against A [2,3,4] at axis 1 acts as
// [1,3,1]); `b` returned as that shape. Without an axis (`axis` nullopt) B is
// aligned from the right, as numpy does, and returned unchanged. Throws
// kInvalidArgument when B does not fit into A at `axis`.
Shape legacy_aligned_b(const Shape& a, const Shape& b, std::optional<int64_t> axis);

// PRelu's slope as it lines up with X: opsets before 7 took a per-channel
// slope of shape [C] for X [N, C, ...], lined up with axis 1; otherwise the
// slope as it is (broadcast to X from the right).
Shape prelu_slope_shape(const Shape& x, const Shape& slope, int64_t opset);

// Iteration plan: the output is walked as rows of `inner` contiguous
// elements; for each row, every input's starting offset is given, along with
// its stride within the row (1 when it varies along the innermost dimension,
// 0 when it is broadcast along it).
class BroadcastIndexer {
 public:
  BroadcastIndexer(const std::vector<Shape>& input_shapes, const Shape& out_shape);
  int64_t num_rows() const { return rows_; }
  int64_t inner() const { return inner_; }
  int64_t inner_stride(size_t input) const { return inner_stride_[input]; }
  // Fills offsets[k] with input k's element offset at the start of `row`.
  void row_offsets(int64_t row, int64_t* offsets) const;
  size_t num_inputs() const { return strides_.size(); }

 private:
  std::vector<int64_t> outer_dims_;            // output dims except the collapsed inner block
  std::vector<std::vector<int64_t>> strides_;  // per input, per outer dim
  std::vector<int64_t> inner_stride_;
  int64_t rows_ = 1, inner_ = 1;
};

// Calls fn(out_index_begin, offsets*, count) row by row; a convenience for
// kernels that do not parallelise by row themselves.
template <typename Fn>
void for_each_broadcast_row(const BroadcastIndexer& bi, int64_t row_begin, int64_t row_end,
                            Fn&& fn) {
  std::vector<int64_t> off(bi.num_inputs());
  for (int64_t r = row_begin; r < row_end; ++r) {
    bi.row_offsets(r, off.data());
    fn(r * bi.inner(), off.data(), bi.inner());
  }
}

}  // namespace tessera::ops
