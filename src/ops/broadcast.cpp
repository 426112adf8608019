#include "ops/broadcast.hpp"

#include <string>

#include "core/error.hpp"

namespace tessera::ops {

Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.rank());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes) {
    size_t off = rank - s.rank();
    for (size_t i = 0; i < s.rank(); ++i) {
      int64_t d = s[i];
      int64_t& o = out[off + i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string list;
      for (const auto& x : shapes) list += (list.empty() ? "" : " and ") + x.to_string();
      fail(ErrorCode::kInvalidArgument, "shapes ", list, " do not broadcast (dimension ", off + i,
           ": ", o, " vs ", d, ")");
    }
  }
  return Shape(out);
}

Shape legacy_aligned_b(const Shape& a, const Shape& b, std::optional<int64_t> axis) {
  if (!axis) return b;
  const int64_t ra = int64_t(a.rank()), rb = int64_t(b.rank());
  const int64_t ax = *axis < 0 ? *axis + ra : *axis;
  if (ax < 0 || ax + rb > ra)
    fail(ErrorCode::kInvalidArgument, "legacy broadcast axis ", *axis, " does not fit B ",
         b.to_string(), " into A ", a.to_string());
  std::vector<int64_t> d(size_t(ra), 1);
  for (int64_t i = 0; i < rb; ++i) d[size_t(ax + i)] = b[size_t(i)];
  return Shape(d);
}

Shape prelu_slope_shape(const Shape& x, const Shape& slope, int64_t opset) {
  if (opset >= 7 || slope.rank() != 1 || x.rank() <= 2 || slope[0] != x[1] || slope[0] == 1)
    return slope;
  std::vector<int64_t> d(x.rank() - 1, 1);
  d[0] = slope[0];
  return Shape(d);
}

BroadcastIndexer::BroadcastIndexer(const std::vector<Shape>& input_shapes, const Shape& out) {
  const size_t rank = out.rank();
  const size_t n = input_shapes.size();
  // Per input, per output dim: element stride (0 where broadcast).
  std::vector<std::vector<int64_t>> full(n, std::vector<int64_t>(rank, 0));
  for (size_t k = 0; k < n; ++k) {
    const Shape& s = input_shapes[k];
    check(s.rank() <= rank, "input rank exceeds broadcast rank");
    size_t off = rank - s.rank();
    int64_t stride = 1;
    for (size_t i = s.rank(); i-- > 0;) {
      full[k][off + i] = (s[i] == 1 && out[off + i] != 1) ? 0 : stride;
      stride *= s[i];
    }
  }
  // Collapse trailing dims into the inner block while every input either is
  // contiguous across them or broadcasts across them all.
  size_t split = rank;
  inner_ = 1;
  inner_stride_.assign(n, 1);
  if (rank > 0) {
    // Innermost dim decides each input's inner stride.
    for (size_t k = 0; k < n; ++k) inner_stride_[k] = out[rank - 1] == 1 ? 1 : full[k][rank - 1];
    while (split > 0) {
      size_t d = split - 1;
      bool ok = true;
      for (size_t k = 0; k < n && ok; ++k) {
        int64_t expect = inner_stride_[k] == 0 ? 0 : inner_;
        if (out[d] != 1 && full[k][d] != expect) ok = false;
      }
      if (!ok) break;
      inner_ *= out[d];
      --split;
    }
  }
  for (size_t k = 0; k < n; ++k) inner_stride_[k] = inner_stride_[k] == 0 ? 0 : 1;
  outer_dims_.assign(out.dims().begin(), out.dims().begin() + long(split));
  strides_.assign(n, {});
  for (size_t k = 0; k < n; ++k) strides_[k].assign(full[k].begin(), full[k].begin() + long(split));
  rows_ = 1;
  for (int64_t d : outer_dims_) rows_ *= d;
  if (inner_ == 0 || rows_ == 0) rows_ = 0;
}

void BroadcastIndexer::row_offsets(int64_t row, int64_t* offsets) const {
  const size_t n = strides_.size();
  for (size_t k = 0; k < n; ++k) offsets[k] = 0;
  for (size_t d = outer_dims_.size(); d-- > 0;) {
    int64_t idx = row % outer_dims_[d];
    row /= outer_dims_[d];
    for (size_t k = 0; k < n; ++k) offsets[k] += idx * strides_[k][d];
  }
}

}  // namespace tessera::ops
