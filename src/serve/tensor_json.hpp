// Tensors in the protocol's JSON form and back:
//   {"name": "x", "shape": [2, 3], "datatype": "FP32", "data": [1, 2, 3, 4, 5, 6]}
// `data` is row-major, flat or nested as the shape; BYTES elements are
// strings, BOOL elements true/false.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "serve/repository.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {

// The request tensor `t` for `spec` of `model`, checked against it: datatype,
// rank, fixed dimensions, and that `data` holds exactly the shape's element
// count of values of the datatype. Throws ServeError 400 naming the model, the
// tensor and what is wrong.
api::Value tensor_from_json(const nlohmann::json& t, const TensorSpec& spec,
                            const std::string& model);

// The same for a tensor whose data comes as binary (the binary tensor data
// extension): `bytes` are its elements in the form of tensor_bytes.hpp.
api::Value tensor_from_binary(const nlohmann::json& t, const TensorSpec& spec,
                              const std::string& model, std::string_view bytes);

// The shape as the request gives it (checked: an array of integers >= 0).
std::vector<int64_t> shape_from_json(const nlohmann::json& t, const std::string& where);

// An output tensor in the protocol's JSON form.
nlohmann::json tensor_to_json(const std::string& name, const api::Value& value);

}  // namespace tessera::serve
