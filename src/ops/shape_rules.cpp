#include "ops/shape_rules.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "ops/broadcast.hpp"
#include "ops/schema.hpp"

namespace tessera::ops {

Shape reshape_shape(const Shape& in, const std::vector<int64_t>& spec, bool allowzero,
                    const char* what, const char* spec_name) {
  std::vector<int64_t> dims(spec.size());
  int64_t infer_at = -1, known = 1;
  bool has_zero = false;
  auto bad = [&](const char* why) {
    fail(ErrorCode::kInvalidArgument, "cannot reshape ", what, " of shape ", in.to_string(), " to ",
         spec_name, *spec_name ? " " : "", Shape(spec).to_string(), ": ", why);
  };
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == -1) {
      if (infer_at >= 0) bad("more than one -1");
      infer_at = int64_t(i);
      continue;
    }
    if (d == 0 && !allowzero) {
      if (i >= in.rank()) bad("0 refers to a dimension the input does not have");
      d = in[i];
    } else if (d < 0) {
      bad("negative dimension");
    }
    if (d == 0) has_zero = true;
    dims[i] = d;
    // A spec from a model may hold any int64: its product must not overflow.
    if (__builtin_mul_overflow(known, d, &known)) bad("its element count overflows int64");
  }
  const int64_t total = in.num_elements();
  if (infer_at >= 0) {
    if (allowzero && has_zero) bad("allowzero with both 0 and -1");
    if (known == 0) {
      if (total != 0) bad("the element counts differ");
      dims[size_t(infer_at)] = 0;
    } else {
      if (total % known != 0) bad("the element counts differ");
      dims[size_t(infer_at)] = total / known;
    }
  } else if (known != total) {
    bad("the element counts differ");
  }
  return Shape(dims);
}

std::vector<int64_t> split_sizes(const Shape& x, size_t axis, int64_t axis_attr, int64_t outputs,
                                 std::vector<int64_t> split, int64_t opset) {
  const int64_t dim = x[axis], n = outputs;
  if (split.empty()) {
    int64_t chunk;
    if (opset >= 18) {
      chunk = (dim + n - 1) / n;
    } else {
      if (dim % n != 0)
        fail(ErrorCode::kInvalidArgument, "cannot split axis ", axis_attr, " of shape ",
             x.to_string(), " into ", n, " equal parts");
      chunk = dim / n;
    }
    for (int64_t i = 0; i < n; ++i)
      split.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0)
      fail(ErrorCode::kInvalidArgument, "split sizes must not be negative, got ",
           Shape(split).to_string());
    // Sizes from a model: a sum past int64 cannot match the axis.
    if (__builtin_add_overflow(total, s, &total))
      fail(ErrorCode::kInvalidArgument, "split sizes ", Shape(split).to_string(),
           " sum past int64");
  }
  if (int64_t(split.size()) != n || total != dim)
    fail(ErrorCode::kInvalidArgument, "split ", Shape(split).to_string(), " does not divide axis ",
         axis_attr, " of shape ", x.to_string(), " into ", n, " outputs");
  return split;
}

namespace {

SliceWindow window_of(const Shape& in, const std::vector<int64_t>& starts,
                      const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                      std::vector<int64_t> steps) {
  const size_t n = starts.size();
  if (axes.empty())
    for (size_t i = 0; i < n; ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(n, 1);
  if (ends.size() != n || axes.size() != n || steps.size() != n)
    fail(ErrorCode::kInvalidArgument, "starts, ends, axes and steps have different lengths (", n,
         ", ", ends.size(), ", ", axes.size(), ", ", steps.size(), ")");
  const int64_t r = int64_t(in.rank());
  SliceWindow w;
  w.begin.assign(size_t(r), 0);
  w.step.assign(size_t(r), 1);
  w.dims = in.dims();
  std::vector<bool> seen(size_t(r), false);
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = axes[i];
    if (a < -r || a >= r)
      fail(ErrorCode::kInvalidArgument, "axis ", a, " is out of range for input of shape ",
           in.to_string());
    const size_t k = size_t(a < 0 ? a + r : a);
    if (seen[k]) fail(ErrorCode::kInvalidArgument, "axis ", a, " is repeated");
    seen[k] = true;
    const int64_t dim = in[k], st = steps[i];
    if (st == 0) fail(ErrorCode::kInvalidArgument, "step for axis ", a, " is 0");
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    // The step's magnitude as unsigned: -INT64_MIN does not fit int64, and
    // (e - s + st - 1) would overflow for steps near INT64_MAX.
    const uint64_t mag = st > 0 ? uint64_t(st) : uint64_t(0) - uint64_t(st);
    int64_t count = 0;
    if (dim == 0) {
      s = 0;              // nothing to take, either way (and [0, dim - 1] would be empty)
    } else if (st > 0) {  // clamped to [0, dim]
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count = e > s ? int64_t(1 + uint64_t(e - s - 1) / mag) : 0;
    } else {  // start clamped to [0, dim - 1], end to [-1, dim - 1]
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count = s > e ? int64_t(1 + uint64_t(s - e - 1) / mag) : 0;
    }
    w.begin[k] = s;
    w.step[k] = count > 1 ? st : 1;
    w.dims[k] = count;
  }
  return w;
}

}  // namespace

std::optional<SliceWindow> slice_window(const ShapeQuery& q) {
  const Shape* x = q.has_input(0) ? q.shape(0) : nullptr;
  if (!x) return std::nullopt;
  std::vector<int64_t> starts, ends, axes, steps;
  if (q.schema().attr_def("starts")) {  // before opset 10
    starts = q.attr_ints("starts"), ends = q.attr_ints("ends"), axes = q.attr_ints("axes");
  } else {
    for (size_t i : {size_t(1), size_t(2)})
      if (!q.has_input(i)) q.fail("input ", i, i == 1 ? " (starts)" : " (ends)", " is missing");
    auto s = q.ints(1), e = q.ints(2);
    if (!s || !e) return std::nullopt;
    starts = *s, ends = *e;
    for (size_t i : {size_t(3), size_t(4)}) {
      if (!q.has_input(i)) continue;
      auto v = q.ints(i);
      if (!v) return std::nullopt;
      (i == 3 ? axes : steps) = *v;
    }
  }
  try {
    return window_of(*x, starts, ends, std::move(axes), std::move(steps));
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kInvalidArgument) throw;
    q.fail(e.what());
  }
}

std::pair<int64_t, int64_t> shape_range(int64_t rank, int64_t start, std::optional<int64_t> end) {
  auto clamp_axis = [rank](int64_t a) {
    return std::clamp(a < 0 ? a + rank : a, int64_t(0), rank);
  };
  const int64_t b = clamp_axis(start), e = end ? clamp_axis(*end) : rank;
  return {b, std::max(b, e)};
}

Shape expand_shape(const Shape& x, const Shape& target) {
  for (int64_t d : target.dims())
    if (d < 0)
      fail(ErrorCode::kInvalidArgument, "shape ", target.to_string(), " has a negative dimension");
  try {
    return broadcast_shapes({x, target});
  } catch (const Error& e) {
    fail(ErrorCode::kInvalidArgument, "cannot expand input of shape ", x.to_string(), " to ",
         target.to_string(), ": ", e.what());
  }
}

}  // namespace tessera::ops
