// NumPy .npy files: the format `tessera run` reads inputs from and writes
// outputs to. Versions 1.0, 2.0 and 3.0 of the header are read; little-endian
// (or byte-order-free) C-order arrays of the plain numeric dtypes and bool.
// Everything is bounds-checked: a malformed file throws tessera::Error naming
// the file and what is wrong, never reads past the bytes present.
#pragma once
#include <cstddef>
#include <string>

#include "core/tensor.hpp"

namespace tessera {

// The NumPy dtype string ("<f4", "|b1", ...) for an element type; throws
// kNotImplemented for types NumPy has no code for (bfloat16, float8, int4,
// string...), saying so.
std::string npy_dtype_string(DataType t);
// Whether npy_dtype_string(t) would succeed.
bool npy_supports(DataType t);

// Reads a .npy file into a host tensor.
Tensor read_npy(const std::string& path);
// Parses .npy bytes; `source_name` names them in error messages.
Tensor parse_npy(const void* data, size_t size, const std::string& source_name = "<npy bytes>");

// Serialises a host tensor as .npy bytes (header v1.0, or v2.0 when the header
// is too long for v1.0).
std::string serialize_npy(const Tensor& t);
void write_npy(const std::string& path, const Tensor& t);

}  // namespace tessera
