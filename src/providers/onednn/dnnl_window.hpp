// Sliding-window geometry shared by Conv and pooling: ONNX's auto_pad, pads,
// strides, dilations and ceil_mode turned into output sizes and the begin/end
// padding oneDNN expects (its end padding must reproduce the output size).
#pragma once
#include <string>
#include <vector>

#include "ep/kernel.hpp"

namespace tessera::onednn {

struct WindowAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
  bool ceil_mode = false;

  // Reads auto_pad/strides/dilations/pads/ceil_mode; `kernel` is the caller's.
  static WindowAttrs read(const ep::KernelInfo& info);
};

struct WindowGeometry {
  std::vector<int64_t> out, pad_l, pad_r;
};

// `in` holds the spatial input sizes. Fails naming the node when the window
// does not fit.
WindowGeometry window_geometry(const WindowAttrs& a, const std::vector<int64_t>& in,
                               const ep::KernelContext& ctx);

// Claim-time checks of the attributes against `spatial` dims ("" when fine).
std::string check_window_attrs(const std::string& auto_pad, const std::vector<int64_t>& strides,
                               const std::vector<int64_t>& dilations,
                               const std::vector<int64_t>& pads, size_t spatial);

}  // namespace tessera::onednn
