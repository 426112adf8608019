// The 8-, 4- and 2-bit element types: float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz,
// e8m0), float4e2m1, int4/uint4 and int2/uint2. Conversions go through float.
#pragma once
#include <cstdint>

#include "core/data_type.hpp"

namespace tessera {

// Decodes one 8-bit float pattern of the given type.
float float8_to_float(DataType t, uint8_t bits);
// Encodes with round-to-nearest-even. With saturate, out-of-range values clamp
// to the largest finite value (ONNX Cast's default); otherwise they become
// inf (e5m2) or NaN (types without inf).
uint8_t float_to_float8(DataType t, float v, bool saturate = true);

// Element i of a tensor of 8-bit float or sub-byte type, as float.
float small_type_to_float(DataType t, const void* data, int64_t i);
// Writes element i (sub-byte types: read-modify-write of the containing byte).
void small_type_from_float(DataType t, void* data, int64_t i, float v, bool saturate = true);

// 4-bit and 2-bit integer element access (packed, low bits first).
int32_t get_packed_int(DataType t, const void* data, int64_t i);
void set_packed_int(DataType t, void* data, int64_t i, int32_t v);  // v is clamped to the range

}  // namespace tessera
