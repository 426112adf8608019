// com.tessera kernels of the channel-blocked ("NCHWc") layout, which only the
// optimizer's choose_conv_layout pass creates: ReorderToNchwc,
// ReorderFromNchwc, NchwcConv, NchwcMaxPool, NchwcAveragePool and
// NchwcGlobalAveragePool and NchwcExpandDepthwise (float only). The math is linalg/nchwc.hpp's.
#pragma once
#include "ep/kernel_registry.hpp"

namespace tessera::cpu::nn {

void register_nchwc_kernels(ep::KernelRegistry& r);
// NchwcExpandDepthwise (nchwc_expand_depthwise.cpp); called by the above.
void register_nchwc_expand_depthwise_kernel(ep::KernelRegistry& r);

}  // namespace tessera::cpu::nn
