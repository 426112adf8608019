// Element types of the 8-bit quantized operators, for the kernels and graph
// passes that take them (a header of its own: core/data_type.hpp is read by
// every file).
#pragma once
#include "core/data_type.hpp"

namespace tessera {

// int8 or uint8.
inline bool is_8bit_integer_type(DataType t) {
  return t == DataType::kUInt8 || t == DataType::kInt8;
}

}  // namespace tessera
