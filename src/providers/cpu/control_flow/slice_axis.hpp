// Moving slices along one axis, for Loop's and Scan's per-iteration values.
#pragma once
#include "core/tensor.hpp"

namespace tessera::cpu {

// The slice of `t` at `index` along `axis`, with that axis removed (a copy).
Tensor take_slice(const Tensor& t, int64_t axis, int64_t index);
// Writes `src` (the shape of dst without `axis`) into dst at `index` along `axis`.
void put_slice(Tensor& dst, int64_t axis, int64_t index, const Tensor& src);

}  // namespace tessera::cpu
