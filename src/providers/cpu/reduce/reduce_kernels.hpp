// The reduce family's kernel factories (see math/math_kernels.hpp for the
// registration scheme).
#pragma once
#include <vector>

#include "ep/kernel.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

void add_reduce_factories(FactoryMap& m);      // ReduceSum ... ReduceSumSquare
void add_arg_minmax_factories(FactoryMap& m);  // ArgMax ArgMin
void add_cumsum_factories(FactoryMap& m);      // CumSum CumProd

}  // namespace tessera::cpu
