// Integer values of a shape, axes or index tensor, whatever its integer type.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.hpp"

namespace tessera {

// Every element of `t` (int64 and int32 copied, other integer and float
// types converted) in order, any rank. Fails when `t` is not in host memory
// or holds neither integers nor floats.
std::vector<int64_t> read_ints(const Tensor& t);

}  // namespace tessera
