// TensorProto and SparseTensorProto → Tensor. Element counts are checked
// against the dims before anything is allocated.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "core/sparse_tensor.hpp"
#include "core/tensor.hpp"
#include "onnx/wire_reader.hpp"

namespace tessera::onnx {

// Decodes a TensorProto. `base_dir` locates external data ("" forbids it).
// The tensor's name is stored in *name when given. A tensor whose name is in
// `supplied` is that tensor (its data in the model is not read).
Tensor read_tensor_proto(ParseContext& ctx, const uint8_t* data, size_t size,
                         const std::string& base_dir, std::string* name = nullptr,
                         const std::map<std::string, Tensor>* supplied = nullptr);

// Decodes a SparseTensorProto as a COO sparse tensor, its indices checked
// against its dense shape. The name is the values tensor's name.
SparseTensor read_sparse_tensor(ParseContext& ctx, const uint8_t* data, size_t size,
                                const std::string& base_dir, std::string* name = nullptr);

// The same, densified (unset elements are zero / "").
Tensor read_sparse_tensor_proto(ParseContext& ctx, const uint8_t* data, size_t size,
                                const std::string& base_dir, std::string* name = nullptr);

// Wire value of a data type field → DataType; throws naming `what` when invalid.
DataType checked_data_type(ParseContext& ctx, int64_t v, const char* what);

}  // namespace tessera::onnx
