// The activation of a com.tessera fused op (attributes `activation` and
// `activation_params`), read once at kernel creation.
#pragma once
#include "ep/kernel.hpp"
#include "linalg/epilogue.hpp"

namespace tessera::cpu {

// "" (none), "Relu", "Clip" [min, max] or "LeakyRelu" [alpha]; anything else
// is an error naming the node.
linalg::ActivationSpec parse_fused_activation(const ep::KernelInfo& info);

}  // namespace tessera::cpu
