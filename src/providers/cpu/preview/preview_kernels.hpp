// Kernel factories of the preview/ family (domain ai.onnx.preview).
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_flex_attention(const ep::KernelInfo& info);

}  // namespace tessera::cpu
