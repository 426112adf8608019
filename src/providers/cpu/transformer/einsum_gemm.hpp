// Two-operand float Einsum as batched matrix products through linalg::sgemm.
#pragma once
#include <cstdint>
#include <vector>

#include "ep/kernel.hpp"

namespace tessera::cpu {

// The labels of one Einsum operand, one per axis, as the general path
// resolved them (ellipsis dims already turned into labels).
struct EinsumTerm {
  const Tensor* tensor;
  const std::vector<int>* labels;
};

// Writes output 0 and returns true when every label is a batch label (both
// inputs and the output), a contracted one (both inputs only) or a free one
// (one input and the output), no input repeats a label, both inputs are
// float and only batch dims broadcast. Returns false, touching nothing,
// otherwise. `dim` holds each label's size; `out` the output's labels.
bool einsum_as_gemm(ep::KernelContext& ctx, const EinsumTerm& a, const EinsumTerm& b,
                    const std::vector<int>& out, const std::vector<int64_t>& dim);

}  // namespace tessera::cpu
