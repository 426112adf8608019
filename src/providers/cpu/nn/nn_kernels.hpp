// Factories for the nn/ kernels; register_nn.cpp lists them with their
// opset ranges and type constraints.
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu::nn {

using Factory = std::unique_ptr<ep::OpKernel> (*)(const ep::KernelInfo&);

std::unique_ptr<ep::OpKernel> make_gemm(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_matmul(const ep::KernelInfo& info);
// com.microsoft SparseToDenseMatMul: a sparse A times a dense B.
std::unique_ptr<ep::OpKernel> make_sparse_to_dense_matmul(const ep::KernelInfo& info);
// com.tessera MatMulBias (see gemm_matmul.cpp).
std::unique_ptr<ep::OpKernel> make_matmul_bias(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_conv(const ep::KernelInfo& info);
// com.tessera FusedConv: Conv with input 3 a residual added before the activation.
std::unique_ptr<ep::OpKernel> make_fused_conv(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_conv_transpose(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_max_pool(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_average_pool(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_lp_pool(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_global_pool(
    const ep::KernelInfo& info);  // Global{Average,Max,Lp}Pool
std::unique_ptr<ep::OpKernel> make_max_roi_pool(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_max_unpool(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_batch_norm(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_instance_norm(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_layer_norm(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_group_norm(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_rms_norm(const ep::KernelInfo& info);
// ONNX Runtime's SimplifiedLayerNormalization: RMSNormalization's arithmetic.
std::unique_ptr<ep::OpKernel> make_simplified_layer_norm(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_lrn(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_mvn(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_lp_norm(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_dropout(const ep::KernelInfo& info);

}  // namespace tessera::cpu::nn
