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
// Pool2dShape name these fields alike): batch N, and from the window `g`
// the input and output planes, strides, leading pads and dilations; a 3-D
// window (a convolution's only) sets the depth fields too.
template <typename Shape2d>
void set_geometry(Shape2d& s, int64_t N, const Window& g) {
  const size_t h = g.rank() - 2, w = h + 1;  // the last two axes
  s.N = N;
  s.H = g.in[h];
  s.W = g.in[w];
  s.OH = g.out[h];
  s.OW = g.out[w];
  s.sh = g.strides[h];
  s.sw = g.strides[w];
  s.ph = g.pads_begin[h];
  s.pw = g.pads_begin[w];
  s.dh = g.dilations[h];
  s.dw = g.dilations[w];
  if constexpr (requires { s.D; }) {
    if (g.rank() == 3) {
      s.D = g.in[0];
      s.OD = g.out[0];
      s.sd = g.strides[0];
      s.pd = g.pads_begin[0];
      s.dd = g.dilations[0];
    }
  }
}

void register_nchwc_kernels(ep::KernelRegistry& r);
// NchwcExpandDepthwise (nchwc_expand_depthwise.cpp); called by the above.
void register_nchwc_expand_depthwise_kernel(ep::KernelRegistry& r);

}  // namespace tessera::cpu::nn
