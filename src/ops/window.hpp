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

}  // namespace tessera::ops
