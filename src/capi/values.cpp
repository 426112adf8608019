// Values: tensors over the application's memory or an allocator's, and
// sequences and maps built from tensors.
#include <cstring>

#include "capi/allocators.hpp"
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/value_access.hpp"

namespace tessera::capi {
namespace {

const Tensor& tensor_of(const OrtValue* v) {
  const Value& x = val(v);
  check(x.is_tensor(), "the value is a ", x.kind_name(), ", not a tensor");
  return x.tensor();
}

}  // namespace

OrtStatus* ORT_API_CALL CreateTensorAsOrtValue(OrtAllocator* allocator, const int64_t* shape,
                                               size_t shape_len, ONNXTensorElementDataType type,
                                               OrtValue** out) noexcept {
  return guard("CreateTensorAsOrtValue", [&] {
    need(out, "out");
    auto alloc = tessera_allocator(allocator);
    *out = new OrtValue{Tensor(from_ort_type(raw_enum(type)), shape_of(shape, shape_len), alloc)};
  });
}

OrtStatus* ORT_API_CALL CreateTensorWithDataAsOrtValue(const OrtMemoryInfo* info, void* p_data,
                                                       size_t p_data_len, const int64_t* shape,
                                                       size_t shape_len,
                                                       ONNXTensorElementDataType type,
                                                       OrtValue** out) noexcept {
  return guard("CreateTensorWithDataAsOrtValue", [&] {
    need(info, "memory info");
    need(out, "out");
    *out = new OrtValue{
        wrap(info->info, p_data, p_data_len, shape, shape_len, raw_enum(type), nullptr)};
  });
}

OrtStatus* ORT_API_CALL CreateTensorWithDataAndDeleterAsOrtValue(
    OrtAllocator* deleter, void* p_data, size_t p_data_len, const int64_t* shape, size_t shape_len,
    ONNXTensorElementDataType type, OrtValue** out) noexcept {
  return guard("CreateTensorWithDataAndDeleterAsOrtValue", [&] {
    need(deleter, "deleter");
    need(out, "out");
    check(deleter->Free != nullptr && deleter->Info != nullptr,
          "the deleter lacks its Free or Info function");
    const OrtMemoryInfo* m = deleter->Info(deleter);
    need(m, "the deleter's memory info");
    // The application's Free runs when the tensor's memory is let go.
    std::shared_ptr<void> owner(p_data, [deleter](void* p) { deleter->Free(deleter, p); });
    *out = new OrtValue{
        wrap(m->info, p_data, p_data_len, shape, shape_len, raw_enum(type), std::move(owner))};
  });
}

void ORT_API_CALL ReleaseValue(OrtValue* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL IsTensor(const OrtValue* value, int* out) noexcept {
  return guard("IsTensor", [&] {
    need(out, "out");
    *out = val(value).is_tensor() ? 1 : 0;
  });
}

OrtStatus* ORT_API_CALL IsSparseTensor(const OrtValue* value, int* out) noexcept {
  return guard("IsSparseTensor", [&] {
    need(out, "out");
    *out = val(value).is_sparse() ? 1 : 0;
  });
}

OrtStatus* ORT_API_CALL HasValue(const OrtValue* value, int* out) noexcept {
  return guard("HasValue", [&] {
    need(out, "out");
    *out = val(value).is_none() ? 0 : 1;
  });
}

OrtStatus* ORT_API_CALL GetTensorMutableData(OrtValue* value, void** out) noexcept {
  return guard("GetTensorMutableData", [&] {
    need(out, "out");
    tensor_of(value);
    *out = value->value.tensor().mutable_raw_data();
  });
}

OrtStatus* ORT_API_CALL GetTensorData(const OrtValue* value, const void** out) noexcept {
  return guard("GetTensorData", [&] {
    need(out, "out");
    *out = tensor_of(value).raw_data();
  });
}

OrtStatus* ORT_API_CALL GetTensorSizeInBytes(const OrtValue* ort_value, size_t* size) noexcept {
  return guard("GetTensorSizeInBytes", [&] {
    need(size, "size");
    const Tensor& t = tensor_of(ort_value);
    check(t.dtype() != DataType::kString, "a string tensor has no fixed size in bytes");
    *size = data_type_storage_bytes(t.dtype(), static_cast<size_t>(t.shape().num_elements()));
  });
}

OrtStatus* ORT_API_CALL GetTensorMemoryInfo(const OrtValue* value,
                                            const OrtMemoryInfo** mem_info) noexcept {
  return guard("GetTensorMemoryInfo", [&] {
    need(mem_info, "mem_info");
    const Tensor& t = tensor_of(value);
    if (!value->memory)
      value->memory = std::make_unique<OrtMemoryInfo>(to_ort_memory(t.memory_info()));
    *mem_info = value->memory.get();
  });
}

OrtStatus* ORT_API_CALL GetTensorTypeAndShape(const OrtValue* value,
                                              OrtTensorTypeAndShapeInfo** out) noexcept {
  return guard("GetTensorTypeAndShape", [&] {
    need(out, "out");
    const Value& v = val(value);
    if (v.is_sparse()) {  // the dense shape, as for a tensor
      *out = new OrtTensorTypeAndShapeInfo(tensor_info(v.sparse().dtype(), v.sparse().dense_shape));
      return;
    }
    const Tensor& t = tensor_of(value);
    *out = new OrtTensorTypeAndShapeInfo(tensor_info(t.dtype(), t.shape()));
  });
}

OrtStatus* ORT_API_CALL GetTensorElementTypeAndShapeDataReference(
    const OrtValue* value, ONNXTensorElementDataType* elem_type, const int64_t** shape_data,
    size_t* shape_data_count) noexcept {
  return guard("GetTensorElementTypeAndShapeDataReference", [&] {
    need(elem_type, "elem_type");
    need(shape_data, "shape_data");
    need(shape_data_count, "shape_data_count");
    const Tensor& t = tensor_of(value);
    *elem_type = to_ort_type(t.dtype());
    *shape_data = t.shape().rank() > 0 ? t.shape().dims().data() : nullptr;
    *shape_data_count = t.shape().rank();
  });
}

OrtStatus* ORT_API_CALL GetTypeInfo(const OrtValue* value, OrtTypeInfo** out) noexcept {
  return guard("GetTypeInfo", [&] {
    need(out, "out");
    *out = make_type_info(val(value)).release();
  });
}

OrtStatus* ORT_API_CALL GetValueType(const OrtValue* value, enum ONNXType* out) noexcept {
  return guard("GetValueType", [&] {
    need(out, "out");
    switch (val(value).kind()) {
      case Value::Kind::kTensor:
        *out = ONNX_TYPE_TENSOR;
        break;
      case Value::Kind::kSequence:
        *out = ONNX_TYPE_SEQUENCE;
        break;
      case Value::Kind::kMap:
        *out = ONNX_TYPE_MAP;
        break;
      case Value::Kind::kSparseTensor:
        *out = ONNX_TYPE_SPARSETENSOR;
        break;
      case Value::Kind::kNone:
        *out = ONNX_TYPE_OPTIONAL;
        break;
    }
  });
}

OrtStatus* ORT_API_CALL TensorAt(OrtValue* value, const int64_t* location_values,
                                 size_t location_values_count, void** out) noexcept {
  return guard("TensorAt", [&] {
    need(out, "out");
    const Tensor& t = tensor_of(value);
    const Shape& s = t.shape();
    check(location_values_count == s.rank(), "the location has ", location_values_count,
          " indices but the tensor has rank ", s.rank());
    check(t.memory_info().host_accessible(), "the tensor is in ", t.memory_info().to_string(),
          ", which the host cannot address");
    check(data_type_bits(t.dtype()) >= 8 || t.dtype() == DataType::kString, "elements of ",
          data_type_name(t.dtype()), " are smaller than a byte and have no address");
    if (s.rank() > 0) need(location_values, "location_values");
    int64_t offset = 0;
    for (size_t i = 0; i < s.rank(); ++i) {
      check(location_values[i] >= 0 && location_values[i] < s[i], "index ", location_values[i],
            " of dimension ", i, " is outside [0, ", s[i], ")");
      offset = offset * s[i] + location_values[i];
    }
    const size_t elem = t.dtype() == DataType::kString
                            ? sizeof(std::string)
                            : static_cast<size_t>(data_type_bits(t.dtype()) / 8);
    *out = static_cast<char*>(value->value.tensor().mutable_raw_data()) + offset * elem;
  });
}

OrtStatus* ORT_API_CALL GetValueCount(const OrtValue* value, size_t* out) noexcept {
  return guard("GetValueCount", [&] {
    need(out, "out");
    const Value& v = val(value);
    check(v.is_sequence() || v.is_map(), "the value is a ", v.kind_name(),
          "; only sequences and maps have elements");
    *out = v.is_map() ? 2 : v.seq().size();
  });
}

OrtStatus* ORT_API_CALL GetValue(const OrtValue* value, int index, OrtAllocator* allocator,
                                 OrtValue** out) noexcept {
  return guard("GetValue", [&] {
    need(out, "out");
    need(allocator, "allocator");
    const Value& v = val(value);
    if (v.is_map()) {
      check(index == 0 || index == 1, "a map has two values (0: keys, 1: values), not ", index);
      *out = new OrtValue{index == 0 ? v.map().keys : v.map().values};
      return;
    }
    check(v.is_sequence(), "the value is a ", v.kind_name(),
          "; only sequences and maps have elements");
    check(index >= 0 && static_cast<size_t>(index) < v.seq().size(), "index ", index,
          " is outside the sequence of ", v.seq().size());
    *out = new OrtValue{v.seq()[static_cast<size_t>(index)]};
  });
}

OrtStatus* ORT_API_CALL CreateValue(const OrtValue* const* in, size_t num_values,
                                    enum ONNXType value_type, OrtValue** out) noexcept {
  return guard("CreateValue", [&] {
    need(out, "out");
    if (num_values > 0) need(in, "in");
    for (size_t i = 0; i < num_values; ++i) check(in[i] != nullptr, "in[", i, "] is null");
    const int kind = raw_enum(value_type);
    if (kind == ONNX_TYPE_MAP) {
      check(num_values == 2, "a map is made from 2 tensors (keys, values), not ", num_values);
      const Tensor& keys = tensor_of(in[0]);
      const Tensor& values = tensor_of(in[1]);
      check(keys.shape().rank() == 1 && values.shape().rank() == 1 &&
                keys.shape()[0] == values.shape()[0],
            "map keys and values must be 1-D tensors of the same length");
      *out = new OrtValue{Value::map({keys, values})};
      return;
    }
    check(kind == ONNX_TYPE_SEQUENCE, "CreateValue makes sequences and maps, not ONNX type ", kind);
    check(num_values > 0, "a sequence needs at least one value to know its element type");
    Sequence items;
    const Value& first = val(in[0]);
    for (size_t i = 0; i < num_values; ++i) {
      const Value& v = val(in[i]);
      check(v.kind() == first.kind(), "sequence element ", i, " is a ", v.kind_name(),
            " but element 0 is a ", first.kind_name());
      if (v.is_tensor())
        check(v.tensor().dtype() == first.tensor().dtype(), "sequence element ", i, " is ",
              data_type_name(v.tensor().dtype()), " but element 0 is ",
              data_type_name(first.tensor().dtype()));
      items.push_back(v);
    }
    const DataType elem = first.is_tensor() ? first.tensor().dtype() : DataType::kUndefined;
    *out = new OrtValue{Value::sequence(std::move(items), elem)};
  });
}

}  // namespace tessera::capi
