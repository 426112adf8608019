// com.tessera kernels of the channel-blocked ("NCHWc") layout, which only the
// optimizer's choose_conv_layout pass creates: ReorderToNchwc,
// ReorderFromNchwc, NchwcConv, NchwcMaxPool, NchwcAveragePool and
// NchwcGlobalAveragePool (float only). The math is linalg/nchwc.hpp's.
#pragma once
#include "ep/kernel_registry.hpp"

namespace tessera::cpu::nn {

void register_nchwc_kernels(ep::KernelRegistry& r);

}  // namespace tessera::cpu::nn
