// Request tensors checked against the model's declaration, and tensors as
// bytes: the form both transports share (HTTP's binary tensor data
// extension, gRPC's raw_input_contents / raw_output_contents). Elements are
// little-endian and row-major in their native size; a BOOL is one byte 0 or
// 1; a BYTES element is a 4-byte little-endian length and then its bytes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "serve/repository.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {

// A request tensor's datatype and shape, accepted for an input.
struct CheckedTensor {
  ONNXTensorElementDataType type;
  std::string datatype;
  std::vector<int64_t> shape;
  uint64_t count;  // elements
};

// Checks `datatype` and `shape` against `spec`: a known datatype, the one
// the model expects, the rank and every fixed dimension, and a size that
// fits. Throws ServeError 400 starting with `where` ("model 'm', input 'x'").
CheckedTensor check_tensor(const std::string& datatype, const std::vector<int64_t>& shape,
                           const TensorSpec& spec, const std::string& where);

// The tensor whose elements are `bytes`; `what` names where the bytes came
// from in an error ("binary_data_size", "raw_input_contents[1]").
api::Value tensor_from_bytes(const CheckedTensor& tensor, const std::string& where,
                             const std::string& what, std::string_view bytes);

// An output's elements as bytes.
std::string tensor_to_binary(const api::Value& value);

// A string tensor whose elements may hold any bytes, NUL included
// (FillStringTensor takes C strings; this fills each element by length).
api::Value make_string_tensor(const std::vector<std::string>& items,
                              const std::vector<int64_t>& shape);

// "[2, 3]"
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace tessera::serve
