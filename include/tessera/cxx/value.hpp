// Values: tensors over the caller's memory or the runtime's, string tensors,
// and sequences.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/cxx/env.hpp"

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

class Value {
 public:
  Value() = default;
  explicit Value(OrtValue* owned) : h_(owned) {}

  // A tensor viewing `count` elements at `data`, which the caller keeps
  // alive and unchanged while the value is used.
  template <typename T>
  static Value tensor(const MemoryInfo& memory, T* data, size_t count,
                      const std::vector<int64_t>& shape) {
    OrtValue* v = nullptr;
    check(c_api().CreateTensorWithDataAsOrtValue(memory.get(), data, count * sizeof(T),
                                                 shape.data(), shape.size(), element_type_of<T>(),
                                                 &v));
    return Value(v);
  }
  // A tensor in memory from `allocator` (the default host allocator if null).
  static Value tensor(ONNXTensorElementDataType type, const std::vector<int64_t>& shape,
                      OrtAllocator* allocator = nullptr) {
    OrtValue* v = nullptr;
    check(c_api().CreateTensorAsOrtValue(allocator != nullptr ? allocator : default_allocator(),
                                         shape.data(), shape.size(), type, &v));
    return Value(v);
  }
  static Value strings(const std::vector<std::string>& items, const std::vector<int64_t>& shape) {
    Value v = tensor(ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, shape);
    std::vector<const char*> p;
    for (const auto& s : items) p.push_back(s.c_str());
    check(c_api().FillStringTensor(v.get(), p.data(), p.size()));
    return v;
  }

  bool is_tensor() const {
    int out = 0;
    check(c_api().IsTensor(h_.get(), &out));
    return out != 0;
  }
  ONNXType kind() const {
    ONNXType t = ONNX_TYPE_UNKNOWN;
    check(c_api().GetValueType(h_.get(), &t));
    return t;
  }
  TensorInfo info() const {
    OrtTensorTypeAndShapeInfo* i = nullptr;
    check(c_api().GetTensorTypeAndShape(h_.get(), &i));
    Owned<OrtTensorTypeAndShapeInfo> owned(i);
    return TensorInfo::from(i);
  }
  size_t element_count() const {
    size_t n = 1;
    for (int64_t d : info().shape) n *= static_cast<size_t>(d);
    return n;
  }
  template <typename T>
  T* data() {
    if (info().type != element_type_of<T>())
      throw Error(ORT_INVALID_ARGUMENT, "the tensor's element type is not the one asked for");
    void* p = nullptr;
    check(c_api().GetTensorMutableData(h_.get(), &p));
    return static_cast<T*>(p);
  }
  template <typename T>
  std::vector<T> to_vector() {
    T* p = data<T>();
    return std::vector<T>(p, p + element_count());
  }
  std::vector<std::string> strings() const {
    const size_t n = element_count();
    std::vector<std::string> out(n);
    for (size_t i = 0; i < n; ++i) {
      size_t len = 0;
      check(c_api().GetStringTensorElementLength(h_.get(), i, &len));
      out[i].resize(len);
      check(c_api().GetStringTensorElement(h_.get(), len, i, out[i].data()));
    }
    return out;
  }
  // Elements of a sequence (or the keys and values of a map).
  size_t size() const {
    size_t n = 0;
    check(c_api().GetValueCount(h_.get(), &n));
    return n;
  }
  Value at(size_t i) const {
    OrtValue* v = nullptr;
    check(c_api().GetValue(h_.get(), static_cast<int>(i), default_allocator(), &v));
    return Value(v);
  }

  OrtValue* get() const noexcept { return h_.get(); }
  OrtValue* release() noexcept { return h_.release(); }
  explicit operator bool() const noexcept { return h_ != nullptr; }

 private:
  Owned<OrtValue> h_;
};

}  // namespace tessera::api
