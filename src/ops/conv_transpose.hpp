// ConvTranspose's geometry, from the schema's shape rule: the output shape
// and the pads it implies, for the kernel that also needs the pads.
#pragma once
#include <optional>

#include "ops/schema.hpp"
#include "ops/window.hpp"

namespace tessera::ops {

struct ConvTransposeGeometry {
  Shape y;            // [N, W[1] * group, out...]
  WindowSpec window;  // kernel, strides, dilations with their defaults
  WindowDims dims;    // out, pads_begin, pads_end per spatial dim
};

// X is input 0, W input 1, the optional B input 2; nullopt when X's or W's
// shape is unknown. Fails (kInvalidArgument) naming the node and input.
std::optional<ConvTransposeGeometry> conv_transpose_geometry(const ShapeQuery& q);

}  // namespace tessera::ops
