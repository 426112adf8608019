// Sequence and optional kernels: shared helpers and the per-file registration
// hooks that register_sequence.cpp calls.
#pragma once
#include <vector>

#include "ep/kernel_registry.hpp"

namespace tessera::cpu::seq {

// The 15 tensor element types the opset-11 sequence ops allow.
const std::vector<DataType>& sequence_elem_types();

// Copies n elements of type t (fixed-width or string) between raw buffers.
void copy_elems(DataType t, const void* src, int64_t src_off, void* dst, int64_t dst_off,
                int64_t n);

// Reads a scalar int32/int64 position input; fails naming the node otherwise.
int64_t read_position(const ep::KernelContext& ctx, const Tensor& t, const char* what);

void register_sequence_basic(ep::KernelRegistry& r);   // Construct, Empty, At, Insert, Erase, Length
void register_split_concat(ep::KernelRegistry& r);     // SplitToSequence, ConcatFromSequence
void register_sequence_map(ep::KernelRegistry& r);     // SequenceMap
void register_optional(ep::KernelRegistry& r);         // Optional, OptionalHasElement/GetElement

}  // namespace tessera::cpu::seq
