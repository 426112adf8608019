// Reshape, Flatten, Squeeze, Unsqueeze, Identity, Shape and Size only read or
// change a tensor's dims: their output is a view of the input's buffer (or
// the dims themselves), so they run on tensors in any memory. They belong to
// no provider: the CPU provider registers them, and so do providers with
// device memory (CUDA), which saves them a copy per reshape.
#pragma once
#include <vector>

#include "ep/kernel_registry.hpp"

namespace tessera::ep {

// The kernels and their defs. With `device`, the shapes and axes they read
// (input 1) and the dims Shape and Size write (output 0) are marked as host
// values (KernelDef::host_inputs / host_outputs).
std::vector<KernelRegistry::Entry> view_kernels(bool device);

}  // namespace tessera::ep
