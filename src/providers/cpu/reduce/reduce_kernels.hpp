// The reduce family's kernel factories (see math/math_kernels.hpp for the
// registration scheme) and the axis handling they share.
#pragma once
#include <vector>

#include "ep/kernel.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

void add_reduce_factories(FactoryMap& m);      // ReduceSum ... ReduceSumSquare
void add_arg_minmax_factories(FactoryMap& m);  // ArgMax ArgMin
void add_cumsum_factories(FactoryMap& m);      // CumSum

// Which dims of `x` the axes reduce (all of them when `axes` is empty);
// negative axes count from the end; out-of-range or repeated axes fail.
std::vector<bool> reduced_dims(const ep::KernelContext& ctx, const Tensor& x,
                               const std::vector<int64_t>& axes);

}  // namespace tessera::cpu
