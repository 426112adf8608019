// Kernel factories of the image/ family.
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_image_decoder(const ep::KernelInfo& info);

}  // namespace tessera::cpu
