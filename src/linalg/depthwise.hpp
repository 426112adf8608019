// 2-D depthwise convolution (one input channel per group), one output plane
// at a time: the input plane is copied into a zero-bordered buffer so the tap
// loops need no bounds tests; 3x3 stride 1/2 takes all nine taps in one pass
// per output row, other shapes one pass per tap; each row is finished with
// the residual and activation while it is in L1. Compiled generic, for AVX2
// and for AVX-512, picked at run time.
#pragma once
#include <cstdint>

#include "linalg/cpu_isa.hpp"
#include "linalg/epilogue.hpp"

namespace tessera::linalg {

struct DepthwiseGeometry {
  int64_t H, W, OH, OW;            // input and output plane sizes
  int64_t KH, KW;                  // kernel
  int64_t sh, sw, ph, pw, dh, dw;  // strides, leading pads, dilations
};

// y[OH, OW] = act(bias + sum over taps w[kh, kw] * x[oh*sh - ph + kh*dh, ow*sw - pw + kw*dw]),
// where taps outside x count as zero. `residual` (may be null) is a plane
// like y, added before the activation.
void depthwise_conv2d_plane(const float* x, const float* w, float bias, const float* residual,
                            const ActivationSpec& act, const DepthwiseGeometry& g, float* y);
// The same with the kernel of one instruction set (capped at what the CPU
// supports), so that tests check every set a machine can run.
void depthwise_conv2d_plane(const float* x, const float* w, float bias, const float* residual,
                            const ActivationSpec& act, const DepthwiseGeometry& g, float* y,
                            Isa isa);

}  // namespace tessera::linalg
