// Whole-tensor element conversion for kernels that compute in float or double
// whatever the storage type (float16/bfloat16, integers, float8, sub-byte).
// Used by the quant, vision, transformer and training families so the type
// switch is written once.
#pragma once
#include <vector>

#include "core/tensor.hpp"

namespace tessera::cpu {

// Every element of `t` (any numeric type) converted to T (float or double).
template <typename T>
std::vector<T> read_as(const Tensor& t);

// Writes `values` (t.num_elements() of them) into `t`, converting to its type.
// Integer targets truncate toward zero after clamping to the type's range;
// float8/float4 use round-to-nearest-even with `saturate`.
template <typename T>
void write_from(Tensor& t, const T* values, bool saturate = true);

// Round half to even, as every ONNX quantizer specifies.
inline float round_half_even(float v) {
  float r = __builtin_nearbyintf(v);  // default FP environment rounds to nearest even
  return r;
}
inline double round_half_even(double v) { return __builtin_nearbyint(v); }

// Range of an integer element type (including 4- and 2-bit kinds).
void integer_range(DataType t, double* lo, double* hi);

}  // namespace tessera::cpu
