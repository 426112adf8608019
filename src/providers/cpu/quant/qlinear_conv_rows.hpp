// QLinearConv's row path on AVX-512 VNNI machines (linalg/igemm_conv.hpp):
// the image as pixel rows read in place against filters packed once at
// kernel creation. Taken for windows larger than one pixel, strided 1x1
// layers, and 1x1 layers with 256 input channels or more (with fewer, the
// filters-by-image product, which packs the image cheaply and keeps its
// 64-wide panels full, wins on large planes). integer_conv.cpp runs it
// first.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "ep/kernel.hpp"
#include "linalg/igemm_conv.hpp"

namespace tessera::cpu {

struct QLinearConvRows {
  std::shared_ptr<const linalg::PackedConvFilters> filters;  // null: not taken
  // Every scale, zero point and bias is a constant the path accepts: every
  // run takes it, and the raw filters are not needed after creation.
  bool always = false;
};

// The requantization's multipliers, x_scale * w_scale[m] in float (as
// QLinearConv's reference arithmetic forms them), for M output channels;
// w_scale holds one value or M.
std::vector<float> qlinear_conv_multipliers(double x_scale, const std::vector<double>& w_scale,
                                            int64_t M);

// Decided at kernel creation from the node's constants, attributes and
// declared input shape. strides, dilations, pads as the node's attributes
// (empty: defaults); auto_pad as given.
QLinearConvRows plan_qlinear_conv_rows(const ep::KernelInfo& info, int64_t group,
                                       const std::vector<int64_t>& strides,
                                       const std::vector<int64_t>& dilations,
                                       const std::vector<int64_t>& pads,
                                       const std::string& auto_pad);

}  // namespace tessera::cpu
