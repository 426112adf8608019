// Types: the element type of a C++ type, and what the runtime says of a
// value's or a model input's type (tensor, sparse tensor, sequence, map,
// optional), read out of the C objects into plain C++ values.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/cxx/base.hpp"

namespace tessera::api {

// The element type of a C++ type, for typed tensors.
template <typename T>
constexpr ONNXTensorElementDataType element_type_of() {
  if constexpr (std::is_same_v<T, float>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  else if constexpr (std::is_same_v<T, double>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE;
  else if constexpr (std::is_same_v<T, int8_t>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64;
  else if constexpr (std::is_same_v<T, bool>)
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
  else
    static_assert(!sizeof(T), "no ONNX element type for this C++ type");
}

// A tensor's element type and shape (-1 for an unknown dimension, with its
// symbolic name in `symbols` when it has one).
struct TensorInfo {
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> shape;
  std::vector<std::string> symbols;

  static TensorInfo from(const OrtTensorTypeAndShapeInfo* info) {
    TensorInfo t;
    const OrtApi& a = c_api();
    check(a.GetTensorElementType(info, &t.type));
    size_t rank = 0;
    check(a.GetDimensionsCount(info, &rank));
    t.shape.resize(rank);
    check(a.GetDimensions(info, t.shape.data(), rank));
    std::vector<const char*> names(rank);
    check(a.GetSymbolicDimensions(info, names.data(), rank));
    for (const char* n : names) t.symbols.emplace_back(n != nullptr ? n : "");
    return t;
  }
};

// A type as a tree: a tensor's (or sparse tensor's) element type and shape,
// a sequence's element type, a map's key type and value type, an optional's
// contained type.
struct TypeInfo {
  ONNXType kind = ONNX_TYPE_UNKNOWN;
  std::string denotation;
  TensorInfo tensor;  // tensors and sparse tensors
  ONNXTensorElementDataType map_key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;  // maps
  // A sequence's elements, a map's values, an optional's content.
  std::shared_ptr<const TypeInfo> inner;

  static TypeInfo from(const OrtTypeInfo* t) {
    const OrtApi& a = c_api();
    TypeInfo out;
    check(a.GetOnnxTypeFromTypeInfo(t, &out.kind));
    const char* d = nullptr;
    size_t len = 0;
    check(a.GetDenotationFromTypeInfo(t, &d, &len));
    if (d != nullptr) out.denotation.assign(d, len);
    switch (out.kind) {
      case ONNX_TYPE_TENSOR:
      case ONNX_TYPE_SPARSETENSOR: {
        const OrtTensorTypeAndShapeInfo* info = nullptr;
        check(a.CastTypeInfoToTensorInfo(t, &info));
        if (info != nullptr) out.tensor = TensorInfo::from(info);
        break;
      }
      case ONNX_TYPE_SEQUENCE: {
        const OrtSequenceTypeInfo* seq = nullptr;
        check(a.CastTypeInfoToSequenceTypeInfo(t, &seq));
        OrtTypeInfo* element = nullptr;
        check(a.GetSequenceElementType(seq, &element));
        out.inner = take(element);
        break;
      }
      case ONNX_TYPE_MAP: {
        const OrtMapTypeInfo* map = nullptr;
        check(a.CastTypeInfoToMapTypeInfo(t, &map));
        check(a.GetMapKeyType(map, &out.map_key));
        OrtTypeInfo* value = nullptr;
        check(a.GetMapValueType(map, &value));
        out.inner = take(value);
        break;
      }
      case ONNX_TYPE_OPTIONAL: {
        const OrtOptionalTypeInfo* opt = nullptr;
        check(a.CastTypeInfoToOptionalTypeInfo(t, &opt));
        OrtTypeInfo* contained = nullptr;
        check(a.GetOptionalContainedTypeInfo(opt, &contained));
        out.inner = take(contained);
        break;
      }
      default:
        break;
    }
    return out;
  }

 private:
  // Reads a type info the runtime handed over, and gives it back.
  static std::shared_ptr<const TypeInfo> take(OrtTypeInfo* t) {
    Owned<OrtTypeInfo> owned(t);
    return std::make_shared<const TypeInfo>(from(t));
  }
};

}  // namespace tessera::api
