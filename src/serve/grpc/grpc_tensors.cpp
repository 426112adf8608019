#include "serve/grpc/grpc_tensors.hpp"

#include <limits>

#include "serve/serve_error.hpp"

namespace tessera::serve {
namespace {

using inference::InferTensorContents;

// Element counts of every typed field, to find the ones a request filled.
struct Field {
  const char* name;
  int size;
};

std::vector<Field> fields(const InferTensorContents& c) {
  return {
      {"bool_contents", c.bool_contents_size()},     {"int_contents", c.int_contents_size()},
      {"int64_contents", c.int64_contents_size()},   {"uint_contents", c.uint_contents_size()},
      {"uint64_contents", c.uint64_contents_size()}, {"fp32_contents", c.fp32_contents_size()},
      {"fp64_contents", c.fp64_contents_size()},     {"bytes_contents", c.bytes_contents_size()}};
}

const char* field_of(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
      return "bool_contents";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
      return "int_contents";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      return "int64_contents";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
      return "uint_contents";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
      return "uint64_contents";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      return "fp32_contents";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      return "fp64_contents";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING:
      return "bytes_contents";
    default:
      return nullptr;
  }
}

// Copies `from` into the tensor's `To` elements, each checked to fit.
template <typename To, typename Repeated>
void copy_checked(const Repeated& from, void* dst, const std::string& where) {
  To* out = static_cast<To*>(dst);
  for (int i = 0; i < from.size(); ++i) {
    // Every source here is a 32-bit integer, so int64_t holds it and each
    // target's bounds.
    const auto v = static_cast<int64_t>(from.Get(i));
    if (v < static_cast<int64_t>(std::numeric_limits<To>::min()) ||
        v > static_cast<int64_t>(std::numeric_limits<To>::max()))
      throw ServeError(400, where + ": element " + std::to_string(i) + " is " + std::to_string(v) +
                                ", not in the range of " +
                                std::to_string(std::numeric_limits<To>::min()) + ".." +
                                std::to_string(std::numeric_limits<To>::max()));
    out[i] = static_cast<To>(v);
  }
}

template <typename To, typename Repeated>
void copy_plain(const Repeated& from, void* dst) {
  To* out = static_cast<To*>(dst);
  for (int i = 0; i < from.size(); ++i) out[i] = static_cast<To>(from.Get(i));
}

template <typename From, typename Repeated>
void append(const void* src, size_t n, Repeated* to) {
  const From* in = static_cast<const From*>(src);
  to->Reserve(static_cast<int>(n));
  for (size_t i = 0; i < n; ++i) to->Add(in[i]);
}

}  // namespace

bool has_typed_contents(ONNXTensorElementDataType type) { return field_of(type) != nullptr; }

api::Value tensor_from_contents(const CheckedTensor& c, const std::string& where,
                                const InferTensorContents& contents) {
  const char* field = field_of(c.type);
  if (field == nullptr)
    throw ServeError(400, where + ": datatype " + c.datatype +
                              " has no typed contents field; send it in raw_input_contents");
  for (const Field& f : fields(contents)) {
    if (std::string(f.name) == field) {
      if (static_cast<uint64_t>(f.size) != c.count)
        throw ServeError(400, where + ": contents." + f.name + " holds " + std::to_string(f.size) +
                                  " elements, shape " + shape_text(c.shape) + " needs " +
                                  std::to_string(c.count));
    } else if (f.size > 0) {
      throw ServeError(400, where + ": contents." + f.name + " is given, datatype " + c.datatype +
                                " takes contents." + field);
    }
  }
  if (c.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    std::vector<std::string> items(contents.bytes_contents().begin(),
                                   contents.bytes_contents().end());
    return make_string_tensor(items, c.shape);
  }
  api::Value value = api::Value::tensor(c.type, c.shape);
  void* dst = nullptr;
  api::check(api::c_api().GetTensorMutableData(value.get(), &dst));
  switch (c.type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
      copy_plain<bool>(contents.bool_contents(), dst);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
      copy_checked<int8_t>(contents.int_contents(), dst, where);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
      copy_checked<int16_t>(contents.int_contents(), dst, where);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
      copy_plain<int32_t>(contents.int_contents(), dst);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      copy_plain<int64_t>(contents.int64_contents(), dst);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
      copy_checked<uint8_t>(contents.uint_contents(), dst, where);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
      copy_checked<uint16_t>(contents.uint_contents(), dst, where);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
      copy_plain<uint32_t>(contents.uint_contents(), dst);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
      copy_plain<uint64_t>(contents.uint64_contents(), dst);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      copy_plain<float>(contents.fp32_contents(), dst);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      copy_plain<double>(contents.fp64_contents(), dst);
      break;
    default:
      throw ServeError(400, where + ": datatype " + c.datatype + " is not served");
  }
  return value;
}

void tensor_to_contents(const api::Value& value, InferTensorContents& contents) {
  const api::TensorInfo info = value.info();
  if (info.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    for (auto& s : value.strings()) contents.add_bytes_contents(std::move(s));
    return;
  }
  size_t n = 1;
  for (int64_t d : info.shape) n *= static_cast<size_t>(d);
  void* p = nullptr;
  api::check(api::c_api().GetTensorMutableData(value.get(), &p));
  switch (info.type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
      append<bool>(p, n, contents.mutable_bool_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
      append<int8_t>(p, n, contents.mutable_int_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
      append<int16_t>(p, n, contents.mutable_int_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
      append<int32_t>(p, n, contents.mutable_int_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      append<int64_t>(p, n, contents.mutable_int64_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
      append<uint8_t>(p, n, contents.mutable_uint_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
      append<uint16_t>(p, n, contents.mutable_uint_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
      append<uint32_t>(p, n, contents.mutable_uint_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
      append<uint64_t>(p, n, contents.mutable_uint64_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      append<float>(p, n, contents.mutable_fp32_contents());
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      append<double>(p, n, contents.mutable_fp64_contents());
      break;
    default:
      throw ServeError(500, "an output has an element type with no typed contents field");
  }
}

}  // namespace tessera::serve
