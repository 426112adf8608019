// Float pow(x, y) in vector lanes: exp(y * log(x)) computed in double
// precision (log by its atanh series, exp by its Taylor polynomial after
// reduction by ln 2), then rounded once to float, so each result is the
// correctly rounded one except where the exact value lies within about 1e-13
// relative of a halfway point between two floats. Lanes outside the vector
// domain (x not a positive finite number, y not finite) take libm's powf,
// which gives them the spec's special values (negative bases with integral
// exponents, zeros, infinities, NaN). Built for AVX-512 and AVX2, picked by
// cpu_isa(); the portable set calls powf for every value.
#pragma once
#include <cstdint>

#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

// out[i] = pow(x[i], y[i]); out may alias x or y.
void vec_pow(const float* x, const float* y, float* out, int64_t n);
// out[i] = pow(x[i], e); out may alias x.
void vec_pow_scalar(const float* x, float e, float* out, int64_t n);

// The same with the loops of one instruction set (capped at what the CPU
// supports), so that tests check every set a machine can run.
void vec_pow(const float* x, const float* y, float* out, int64_t n, Isa isa);
void vec_pow_scalar(const float* x, float e, float* out, int64_t n, Isa isa);

}  // namespace tessera::linalg
