// If, Loop and Scan: they run their bodies through the runtime's SubgraphRunner.
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_if_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_loop_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_scan_kernel(const ep::KernelInfo& info);

}  // namespace tessera::cpu
