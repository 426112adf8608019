// Float <-> float16 conversion of whole buffers, round to nearest even, as
// Float16 converts one value. With the CPU's F16C instructions (every AVX2
// CPU here) eight values a step; the Cast at each edge of a float16 model's
// float region is otherwise a scalar loop over the whole tensor.
#pragma once
#include <cstdint>

namespace tessera::linalg {

void floats_to_halves(const float* x, uint16_t* y, int64_t n);
void halves_to_floats(const uint16_t* x, float* y, int64_t n);

}  // namespace tessera::linalg
