// The output size of a sliding window (Conv, ConvTranspose's input side,
// the pools) and the explicit pads auto_pad stands for: one rule for the
// schema's shape rules and the kernels that also need the pads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::ops {

// Per spatial dim: `kernel`, `strides` and `dilations` have one value each
// (positive); `pads` is empty or begins then ends; auto_pad is NOTSET,
// SAME_UPPER, SAME_LOWER or VALID (pads are ignored unless NOTSET; ""
// is NOTSET).
struct WindowSpec {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, dilations, pads;
  bool ceil_mode = false;
};

struct WindowDims {
  std::vector<int64_t> out, pads_begin, pads_end;
};

// Fails (kInvalidArgument, naming the spatial dims `in`) when a window does
// not fit the padded input or a size overflows int64.
WindowDims window_dims(const std::vector<int64_t>& in, const WindowSpec& w);

// ConvTranspose's window: its full output size per spatial dim is
// strides * (in - 1) + output_padding + (kernel - 1) * dilations + 1.
// output_shape (spatial dims) or auto_pad SAME_* (in * strides) fix the
// output and the pads follow from the difference (the odd one at the end
// for SAME_UPPER, at the beginning otherwise; negative when the output is
// larger); else the pads trim the full size. Every list has its defaults
// filled in except output_shape, which may be empty.
struct TransposedWindowSpec {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, dilations, pads, output_padding, output_shape;
};

// Fails (kInvalidArgument, naming the spatial dims `in`) when an output
// size is negative or overflows int64.
WindowDims transposed_window_dims(const std::vector<int64_t>& in, const TransposedWindowSpec& w);

}  // namespace tessera::ops
