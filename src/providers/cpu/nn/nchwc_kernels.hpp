// com.tessera kernels of the channel-blocked ("NCHWc") layout, which only the
// optimizer's choose_conv_layout pass creates: ReorderToNchwc,
// ReorderFromNchwc, NchwcConv, NchwcMaxPool, NchwcAveragePool and
// NchwcGlobalAveragePool and NchwcExpandDepthwise (float only). The math is linalg/nchwc.hpp's.
#pragma once
#include <vector>

#include "ep/kernel_registry.hpp"
#include "providers/cpu/nn/nn_common.hpp"

namespace tessera::cpu::nn {

// The geometry a convolution and a pooling share (Conv2dShape and
// Pool2dShape name these fields alike): batch and input plane from the blocked
// input dims, output plane, strides, leading pads and dilations from `g`.
template <typename Shape2d>
void set_geometry(Shape2d& s, const std::vector<int64_t>& xd, const Window& g) {
  s.N = xd[0];
  s.H = xd[2];
  s.W = xd[3];
  s.OH = g.out[0];
  s.OW = g.out[1];
  s.sh = g.strides[0];
  s.sw = g.strides[1];
  s.ph = g.pads_begin[0];
  s.pw = g.pads_begin[1];
  s.dh = g.dilations[0];
  s.dw = g.dilations[1];
}

void register_nchwc_kernels(ep::KernelRegistry& r);
// NchwcExpandDepthwise (nchwc_expand_depthwise.cpp); called by the above.
void register_nchwc_expand_depthwise_kernel(ep::KernelRegistry& r);

}  // namespace tessera::cpu::nn
