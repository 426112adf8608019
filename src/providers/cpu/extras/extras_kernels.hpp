// Factories of the extras family's kernels (registered in register_extras.cpp).
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_cumprod_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_bitcast_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_swiglu_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_deform_conv_kernel(const ep::KernelInfo& info);

}  // namespace tessera::cpu
