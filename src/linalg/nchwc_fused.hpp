// A 1x1 expansion and the depthwise 3x3 convolution that reads it, in one
// pass over the blocked layout (MobileNetV2's inverted residual blocks).
//
// Why: the expansion's output is the widest tensor of the block (MobileNetV2:
// 96 x 112 x 112, 4.8 MB), written by one layer and read back by the next;
// on its own each layer is bound by that traffic, not by its FMAs. Here
// each thread expands a band of rows for one pair of output blocks into a
// buffer that stays in L2, and the depthwise convolution reads it from
// there: the expanded tensor never goes to memory. Rows at a band's edge are
// expanded twice (the 3x3 window overlaps the next band), a few percent of
// the expansion's FMAs.
#pragma once
#include "linalg/nchwc.hpp"

namespace tessera::linalg::nchwc {

// True when expand_depthwise computes `e` then `d`: e a dense 1x1, stride 1,
// unpadded, blocked-input convolution; d a depthwise 3x3, dilation 1, pads
// at most 2, of e's output (d.C == e.M, same image).
bool expand_depthwise_supported(const Conv2dShape& e, const Conv2dShape& d);

// y (blocked [N, blocks(d.M), d.OH, d.OW, 16]) =
//   act_d(depthwise(act_e(conv1x1(x, we) + be), wd) + bd),
// each filter packed for its own shape (PackedFilter). be and bd may be null.
void expand_depthwise(const Conv2dShape& e, const PackedFilter& we, const float* be,
                      const ActivationSpec& act_e, const Conv2dShape& d, const PackedFilter& wd,
                      const float* bd, const ActivationSpec& act_d, const float* x, float* y,
                      ThreadPool* pool);

}  // namespace tessera::linalg::nchwc
