// Float <-> float16 and float <-> bfloat16 conversion of whole buffers, round
// to nearest even, as Float16 and BFloat16 convert one value. Float16 uses
// the CPU's F16C instructions (every AVX2 CPU here), eight values a step;
// bfloat16 is integer arithmetic on the float's bits, in vector loops built
// for AVX-512, AVX2 and the portable set. The Casts at each edge of a half
// model's float region are otherwise a scalar loop over the whole tensor.
#pragma once
#include <cstdint>

#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

void floats_to_halves(const float* x, uint16_t* y, int64_t n);
void halves_to_floats(const uint16_t* x, float* y, int64_t n);
// NaNs stay NaNs (quieted, sign and top payload bits kept); subnormal floats
// round like any other (no flush to zero, unlike the CPU's own bfloat16
// conversion instruction).
void floats_to_bfloats(const float* x, uint16_t* y, int64_t n);
void bfloats_to_floats(const uint16_t* x, float* y, int64_t n);

// The same with the loops of one instruction set (capped at what the CPU
// supports), so that tests check every set a machine can run.
void floats_to_halves(const float* x, uint16_t* y, int64_t n, Isa isa);
void halves_to_floats(const uint16_t* x, float* y, int64_t n, Isa isa);
void floats_to_bfloats(const float* x, uint16_t* y, int64_t n, Isa isa);
void bfloats_to_floats(const uint16_t* x, float* y, int64_t n, Isa isa);

}  // namespace tessera::linalg
