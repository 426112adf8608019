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

WindowDims transposed_window_dims(const std::vector<int64_t>& in, const TransposedWindowSpec& w) {
  const size_t r = in.size();
  WindowDims d;
  d.out.assign(r, 0);
  d.pads_begin.assign(r, 0);
  d.pads_end.assign(r, 0);
  const bool same = w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER";
  for (size_t i = 0; i < r; ++i) {
    int64_t ek = 0, full = 0;
    if (__builtin_mul_overflow(w.kernel[i] - 1, w.dilations[i], &ek) ||
        __builtin_mul_overflow(w.strides[i], in[i] - 1, &full) ||
        __builtin_add_overflow(full, w.output_padding[i], &full) ||
        __builtin_add_overflow(full, ek + 1, &full) || (same && in[i] > INT64_MAX / w.strides[i]))
      fail(ErrorCode::kInvalidArgument, "the transposed window over spatial dims ", dims_str(in),
           " overflows int64");
    if (!w.output_shape.empty() || same) {
      d.out[i] = !w.output_shape.empty() ? w.output_shape[i] : in[i] * w.strides[i];
      // Floor division, so that with a larger output the extra lands at the end.
      const int64_t total = full - d.out[i];
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      const bool upper = w.auto_pad == "SAME_UPPER";
      d.pads_begin[i] = upper ? half : total - half;
      d.pads_end[i] = upper ? total - half : half;
    } else {
      if ((w.auto_pad == "NOTSET" || w.auto_pad.empty()) && !w.pads.empty())
        d.pads_begin[i] = w.pads[i], d.pads_end[i] = w.pads[i + r];
      d.out[i] = full - d.pads_begin[i] - d.pads_end[i];
    }
    if (d.out[i] < 0)
      fail(ErrorCode::kInvalidArgument, "output dim ", i, " of the transposed window over ",
           dims_str(in), " is negative (", d.out[i], ")");
  }
  return d;
}

}  // namespace tessera::ops
