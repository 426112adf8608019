#include "ops/pad_extents.hpp"

#include "core/error.hpp"

namespace tessera::ops {

PadExtents pad_extents(const ir::Node& node, const Shape& in, const std::vector<int64_t>& pads,
                       const std::vector<int64_t>& axes) {
  auto bad = [&](auto&&... args) {
    fail(ErrorCode::kInvalidArgument, node.describe(), ": ", args...);
  };
  const int64_t r = int64_t(in.rank());
  const size_t na = axes.empty() ? size_t(r) : axes.size();
  if (pads.size() != 2 * na)
    bad("pads ", Shape(pads).to_string(), " should have ", 2 * na, " entries for input of shape ",
        in.to_string());
  PadExtents e;
  e.begin.assign(size_t(r), 0);
  e.end.assign(size_t(r), 0);
  for (size_t i = 0; i < na; ++i) {
    const int64_t a = axes.empty() ? int64_t(i) : axes[i];
    if (a < -r || a >= r) bad("axis ", a, " is out of range for input of shape ", in.to_string());
    const size_t k = size_t(a < 0 ? a + r : a);
    e.begin[k] = pads[i];
    e.end[k] = pads[i + na];
  }
  e.dims.resize(size_t(r));
  for (size_t k = 0; k < size_t(r); ++k) {
    // Pads come from the model: the sum must not overflow, and a pad of
    // INT64_MIN could not be negated by the kernels.
    if (__builtin_add_overflow(in[k], e.begin[k], &e.dims[k]) ||
        __builtin_add_overflow(e.dims[k], e.end[k], &e.dims[k]) || e.begin[k] == INT64_MIN ||
        e.end[k] == INT64_MIN)
      bad("pads ", Shape(pads).to_string(), " overflow axis ", k, " of shape ", in.to_string());
    if (e.dims[k] < 0)
      bad("pads ", Shape(pads).to_string(), " remove more than axis ", k, " of shape ",
          in.to_string(), " holds");
  }
  return e;
}

}  // namespace tessera::ops
