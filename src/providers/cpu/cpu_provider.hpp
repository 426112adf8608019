// The CPU execution provider: the guaranteed fallback. Its kernels are grouped
// by family; each family registers its own table.
#pragma once
#include <memory>

#include "ep/execution_provider.hpp"

namespace tessera::cpu {

std::shared_ptr<ep::ProviderFactory> make_cpu_provider_factory();

// Provider option "matmul_nbits_float_weights" = "1": MatMulNBits keeps a
// float copy of its constant 4-bit weights, packed for the SGEMM, for
// products of many rows (a prompt): a few percent faster there, at 4 bytes a weight in
// memory (8 times the 4-bit form). Default "0": they stay as stored, and
// many-row products dequantize them panel by panel per call.
inline constexpr const char* kMatMulNBitsFloatWeights = "matmul_nbits_float_weights";
// The registry with every CPU kernel (built once, shared by all CPU providers).
const ep::KernelRegistry& cpu_kernel_registry();

}  // namespace tessera::cpu
