// Kernel factories of the vision family; register_vision.cpp lists them in its table.
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_non_max_suppression(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_roi_align(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_grid_sample(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_affine_grid(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_col2im(const ep::KernelInfo& info);

}  // namespace tessera::cpu
