#include "ops/window.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/shape.hpp"

namespace tessera::ops {

namespace {

std::string dims_str(const std::vector<int64_t>& d) { return Shape(d).to_string(); }

}  // namespace

WindowDims window_dims(const std::vector<int64_t>& in, const WindowSpec& w) {
  const size_t r = in.size();
  WindowDims d;
  d.pads_begin.assign(r, 0);
  d.pads_end.assign(r, 0);
  if ((w.auto_pad == "NOTSET" || w.auto_pad.empty()) && !w.pads.empty())
    for (size_t i = 0; i < r; ++i) d.pads_begin[i] = w.pads[i], d.pads_end[i] = w.pads[i + r];
  d.out.resize(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t ek = 0;  // the effective kernel extent
    int64_t padded = 0;
    if (__builtin_mul_overflow(w.kernel[i] - 1, w.dilations[i], &ek) ||
        __builtin_add_overflow(in[i], d.pads_begin[i], &padded) ||
        __builtin_add_overflow(padded, d.pads_end[i], &padded) || in[i] > INT64_MAX / 2 ||
        w.strides[i] > INT64_MAX / 2)
      fail(ErrorCode::kInvalidArgument, "the window over spatial dims ", dims_str(in),
           " overflows int64");
    ek += 1;
    const int64_t s = w.strides[i];
    if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
      const int64_t o = (in[i] + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (o - 1) * s + ek - in[i]);
      const int64_t small = total / 2;
      d.pads_begin[i] = w.auto_pad == "SAME_UPPER" ? small : total - small;
      d.pads_end[i] = total - d.pads_begin[i];
      d.out[i] = o;
      continue;
    }
    const int64_t span = padded - ek;
    if (span < 0)
      fail(ErrorCode::kInvalidArgument, "kernel extent ", ek, " (kernel ", w.kernel[i],
           ", dilation ", w.dilations[i], ") is larger than padded input dim ", i, " of ",
           dims_str(in));
    int64_t o = w.ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
    // With ceil_mode the last window must start inside the input or its
    // begin padding, not wholly in the end padding.
    if (w.ceil_mode && (o - 1) * s >= in[i] + d.pads_begin[i]) --o;
    d.out[i] = o;
  }
  return d;
}

}  // namespace tessera::ops
