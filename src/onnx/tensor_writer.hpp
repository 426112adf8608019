// Tensor → TensorProto / SparseTensorProto bytes.
#pragma once
#include <string>

#include "core/sparse_tensor.hpp"
#include "core/tensor.hpp"

namespace tessera::onnx {

// Numeric types as raw_data (little-endian), strings as string_data.
std::string encode_tensor_proto(const Tensor& t, const std::string& name);
// A dense tensor written sparsely: its non-zero elements with linear indices.
std::string encode_sparse_tensor_proto(const Tensor& t, const std::string& name);
// A sparse tensor as it is: COO with its own indices (linear or coordinates);
// CSR and block-sparse ones, which SparseTensorProto cannot hold, by their
// non-zero elements.
std::string encode_sparse_tensor_proto(const SparseTensor& s, const std::string& name);

}  // namespace tessera::onnx
