#include "serve/datatype.hpp"

#include <array>
#include <utility>

namespace tessera::serve {
namespace {

struct Entry {
  const char* name;
  ONNXTensorElementDataType type;
  size_t size;
};

constexpr std::array<Entry, 14> kTypes = {{
    {"BOOL", ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, 1},
    {"UINT8", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, 1},
    {"UINT16", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16, 2},
    {"UINT32", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32, 4},
    {"UINT64", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64, 8},
    {"INT8", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, 1},
    {"INT16", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16, 2},
    {"INT32", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, 4},
    {"INT64", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, 8},
    {"FP16", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, 2},
    {"FP32", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, 4},
    {"FP64", ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, 8},
    {"BF16", ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, 2},
    {"BYTES", ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, 0},
}};

}  // namespace

std::string protocol_datatype(ONNXTensorElementDataType type) {
  for (const auto& e : kTypes)
    if (e.type == type) return e.name;
  return "";
}

std::optional<ONNXTensorElementDataType> element_type(const std::string& datatype) {
  for (const auto& e : kTypes)
    if (datatype == e.name) return e.type;
  return std::nullopt;
}

size_t element_size(ONNXTensorElementDataType type) {
  for (const auto& e : kTypes)
    if (e.type == type) return e.size;
  return 0;
}

}  // namespace tessera::serve
