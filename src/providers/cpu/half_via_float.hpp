// Runs a float32 kernel for a node of float16 or bfloat16 tensors: the half
// inputs (constants included) are converted to float, the float kernel runs,
// and its outputs are rounded to the node's output types. For ops whose CPU
// kernel exists in float only (the fused transformer ops): the house rule
// computes half types in float anyway, and this keeps the CPU provider the
// fallback for every type a fusion may make. Costs one conversion pass over
// each half input and output.
#pragma once
#include "ep/kernel.hpp"
#include "ep/kernel_registry.hpp"

namespace tessera::cpu {

// A factory that builds `float_factory`'s kernel behind the conversions.
ep::KernelFactory half_via_float(ep::KernelFactory float_factory);
// `float_factory` itself for float nodes (input 0's type), half_via_float of
// it for float16 and bfloat16 ones.
ep::KernelFactory float_or_half_via_float(ep::KernelFactory float_factory);

}  // namespace tessera::cpu
