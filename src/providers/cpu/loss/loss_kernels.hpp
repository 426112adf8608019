// Factories of the loss family's kernels (registered in register_loss.cpp).
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_nll_loss_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_softmax_cross_entropy_loss_kernel(const ep::KernelInfo& info);

}  // namespace tessera::cpu
