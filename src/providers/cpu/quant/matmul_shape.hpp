// numpy.matmul shape rules (1-D promotion, batch broadcasting), shared by the
// integer and quantized matmuls.
#pragma once
#include <vector>

#include "core/shape.hpp"
#include "ep/kernel.hpp"

namespace tessera::cpu {

struct MatMulPlan {
  int64_t M = 1, K = 1, N = 1, batch = 1;
  std::vector<int64_t> a_offset, b_offset;  // per batch: element offset of the matrix
  Shape out;
};

MatMulPlan plan_matmul(const ep::KernelContext& ctx, const Shape& a, const Shape& b);

}  // namespace tessera::cpu
