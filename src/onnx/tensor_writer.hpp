// Tensor → TensorProto / SparseTensorProto bytes.
#pragma once
#include <string>

#include "core/tensor.hpp"

namespace tessera::onnx {

// Numeric types as raw_data (little-endian), strings as string_data.
std::string encode_tensor_proto(const Tensor& t, const std::string& name);
// A dense tensor written sparsely: its non-zero elements with linear indices.
std::string encode_sparse_tensor_proto(const Tensor& t, const std::string& name);

}  // namespace tessera::onnx
