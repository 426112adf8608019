// How MatMul's numpy semantics (1-D promotion, broadcast batch dims) map onto
// row-major GEMMs: one GEMM when B has no batch (A's batch folds into M),
// a strided batch when the batch dims agree or A's are all 1, otherwise one
// GEMM per output batch at listed offsets. Plain C++ (tested without a GPU).
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.hpp"

namespace tessera::cuda {

struct MatMulPlan {
  Shape out;  // the MatMul output shape
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;                   // GEMMs to run
  int64_t stride_a = 0, stride_b = 0;  // elements between batches (0: the same matrix)
  // For irregular broadcasting: the element offset of each GEMM's A and B
  // (then stride_a/stride_b are unused). Empty otherwise.
  std::vector<int64_t> offsets_a, offsets_b;
};

// Throws kInvalidArgument naming both shapes when they do not multiply.
MatMulPlan plan_matmul(const Shape& a, const Shape& b);

}  // namespace tessera::cuda
