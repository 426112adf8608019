// Values: tensors over the caller's memory or the runtime's, string tensors,
// sparse tensors, sequences and maps.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/cxx/env.hpp"
#include "tessera/cxx/type_info.hpp"

namespace tessera::api {

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

  // A sparse tensor of shape `dense_shape` whose `count` non-zero values lie
  // at `values`, in the caller's memory (kept alive and unchanged while the
  // value is used); indices are added with use_coo_indices or
  // use_csr_indices, which also stay the caller's.
  template <typename T>
  static Value sparse(const MemoryInfo& memory, const std::vector<int64_t>& dense_shape, T* values,
                      size_t count) {
    const int64_t values_shape[] = {static_cast<int64_t>(count)};
    OrtValue* v = nullptr;
    check(c_api().CreateSparseTensorWithValuesAsOrtValue(memory.get(), values, dense_shape.data(),
                                                         dense_shape.size(), values_shape, 1,
                                                         element_type_of<T>(), &v));
    return Value(v);
  }
  // COO indices: one flat index per value, or rank indices per value.
  Value& use_coo_indices(std::vector<int64_t>& indices) {
    check(c_api().UseCooIndices(h_.get(), indices.data(), indices.size()));
    return *this;
  }
  // CSR indices of a 2-D sparse tensor: each value's column, and where each
  // row starts in the values (rows + 1 entries).
  Value& use_csr_indices(std::vector<int64_t>& inner, std::vector<int64_t>& outer) {
    check(c_api().UseCsrIndices(h_.get(), inner.data(), inner.size(), outer.data(), outer.size()));
    return *this;
  }
  // A sequence holding copies of `items` (tensors of one element type, or
  // maps); the items stay the caller's.
  static Value sequence(const std::vector<Value>& items) {
    return compose(items, ONNX_TYPE_SEQUENCE);
  }
  // A map from the elements of the 1-D tensor `keys` to those of `values`,
  // position by position.
  static Value map(const Value& keys, const Value& values) {
    const OrtValue* in[] = {keys.get(), values.get()};
    OrtValue* v = nullptr;
    check(c_api().CreateValue(in, 2, ONNX_TYPE_MAP, &v));
    return Value(v);
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
  // Sets element `i` of a string tensor.
  void set_string(size_t i, const std::string& s) {
    check(c_api().FillStringTensorElement(h_.get(), s.c_str(), i));
  }
  // The value's type: its kind and, for sequences and maps, what they hold.
  TypeInfo type_info() const {
    OrtTypeInfo* t = nullptr;
    check(c_api().GetTypeInfo(h_.get(), &t));
    Owned<OrtTypeInfo> owned(t);
    return TypeInfo::from(t);
  }
  // False for an optional value that holds nothing.
  bool has_value() const {
    int out = 0;
    check(c_api().HasValue(h_.get(), &out));
    return out != 0;
  }

  bool is_sparse() const {
    int out = 0;
    check(c_api().IsSparseTensor(h_.get(), &out));
    return out != 0;
  }
  OrtSparseFormat sparse_format() const {
    OrtSparseFormat f = ORT_SPARSE_UNDEFINED;
    check(c_api().GetSparseTensorFormat(h_.get(), &f));
    return f;
  }
  // The element type and shape of a sparse tensor's values.
  TensorInfo sparse_values_info() const {
    OrtTensorTypeAndShapeInfo* i = nullptr;
    check(c_api().GetSparseTensorValuesTypeAndShape(h_.get(), &i));
    Owned<OrtTensorTypeAndShapeInfo> owned(i);
    return TensorInfo::from(i);
  }
  template <typename T>
  std::vector<T> sparse_values() const {
    const TensorInfo info = sparse_values_info();
    if (info.type != element_type_of<T>())
      throw Error(ORT_INVALID_ARGUMENT,
                  "the sparse tensor's values are not of the element type asked for");
    size_t n = 1;
    for (int64_t d : info.shape) n *= static_cast<size_t>(d);
    const void* p = nullptr;
    check(c_api().GetSparseTensorValues(h_.get(), &p));
    const T* t = static_cast<const T*>(p);
    return std::vector<T>(t, t + n);
  }
  // A sparse tensor's indices of one kind (COO's, CSR's inner or outer):
  // int64 for COO and CSR.
  std::vector<int64_t> sparse_indices(OrtSparseIndicesFormat kind) const {
    OrtTensorTypeAndShapeInfo* i = nullptr;
    check(c_api().GetSparseTensorIndicesTypeShape(h_.get(), kind, &i));
    Owned<OrtTensorTypeAndShapeInfo> owned(i);
    if (TensorInfo::from(i).type != ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64)
      throw Error(ORT_INVALID_ARGUMENT, "the sparse tensor's indices of this kind are not int64");
    size_t n = 0;
    const void* p = nullptr;
    check(c_api().GetSparseTensorIndices(h_.get(), kind, &n, &p));
    const int64_t* t = static_cast<const int64_t*>(p);
    return std::vector<int64_t>(t, t + n);
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
  // A map's keys and values, as two 1-D tensors.
  Value map_keys() const { return at(0); }
  Value map_values() const { return at(1); }

  OrtValue* get() const noexcept { return h_.get(); }
  OrtValue* release() noexcept { return h_.release(); }
  explicit operator bool() const noexcept { return h_ != nullptr; }

 private:
  static Value compose(const std::vector<Value>& items, ONNXType kind) {
    std::vector<const OrtValue*> in;
    for (const Value& item : items) in.push_back(item.get());
    OrtValue* v = nullptr;
    check(c_api().CreateValue(in.data(), in.size(), kind, &v));
    return Value(v);
  }

  Owned<OrtValue> h_;
};

}  // namespace tessera::api
