// Kernel factories of the training family; register_training.cpp lists them.
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_adagrad(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_adam(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_momentum(const ep::KernelInfo& info);

}  // namespace tessera::cpu
