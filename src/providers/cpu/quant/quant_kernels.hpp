// Kernel factories of the quant family; register_quant.cpp lists them in its table.
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_quantize_linear(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_dequantize_linear(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_dynamic_quantize_linear(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_matmul_integer(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_qlinear_matmul(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_matmul_integer_to_float(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_conv_integer(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_qlinear_conv(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_quantized_lookup(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_dequantize_add(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_matmul_nbits(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_gather_block_quantized(const ep::KernelInfo& info);

}  // namespace tessera::cpu
