// Factories of the recurrent family's kernels (registered in register_recurrent.cpp).
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_rnn_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_gru_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_lstm_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_linear_attention_kernel(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_causal_conv_with_state_kernel(const ep::KernelInfo& info);

}  // namespace tessera::cpu
