// The oneDNN execution provider ("DnnlExecutionProvider"). Built only when
// libdnnl-dev is found (cmake/onednn.cmake); the provider registry learns of
// it through the generated built_in_providers.inc, never by include.
//
// Options (all optional):
//   num_threads  integer 0..4096: OpenMP threads per oneDNN call (0: the session's
//                intra_op_num_threads)
//   enable_bf16  0/1: let Conv/MatMul/Gemm compute in bf16 (fpmath mode) when the
//                CPU has avx512_bf16; declined with a warning (strict f32) on other CPUs
//   conv_post_ops  primitive/separate (default): fused Conv chains apply their
//                residual add and activation inside the convolution primitive, or
//                as one in-place pass after it (faster with oneDNN 2.6's plain layouts)
#pragma once
#include <memory>

#include "ep/execution_provider.hpp"

namespace tessera::onednn {

std::shared_ptr<ep::ProviderFactory> make_dnnl_provider_factory();
// Whether enable_bf16=1 takes effect on this machine.
bool dnnl_bf16_supported();
// The OpenMP thread count of the most recent oneDNN call in this process (for tests).
int dnnl_last_call_threads();

}  // namespace tessera::onednn
