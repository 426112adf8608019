// Copies between memory spaces outside a session: host to device, device to
// host and device to device, through the data transfers of the providers the
// environment can create.
#pragma once
#include <memory>
#include <vector>

#include "core/tensor.hpp"
#include "ep/data_transfer.hpp"

namespace tessera {

// Copies each src into the dst at the same position (same element type and
// shape, already allocated). With a stream, a provider may copy
// asynchronously: the data is in place only after stream->synchronize().
// Without one, every copy is complete on return. A pair that no single
// provider copies directly is staged through host memory (synchronously).
// Errors: list sizes differ, a type or shape differs, or no provider can
// copy between the two spaces (kEPFail naming both).
void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                  ep::Stream* stream = nullptr);

// A stream of the provider that serves `memory`; null when that provider is
// synchronous. kEPFail when no provider serves it.
std::unique_ptr<ep::Stream> create_stream(const MemoryInfo& memory);

// An uninitialised tensor in `memory` (the environment's allocator for it).
Tensor allocate_tensor(DataType dtype, Shape shape, const MemoryInfo& memory);
// A copy of `t` in `memory` (complete on return).
Tensor copy_to(const Tensor& t, const MemoryInfo& memory);

}  // namespace tessera
