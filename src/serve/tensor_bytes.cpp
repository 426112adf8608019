#include "serve/tensor_bytes.hpp"

#include <cstring>

#include "serve/datatype.hpp"
#include "serve/serve_error.hpp"

namespace tessera::serve {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

CheckedTensor check_tensor(const std::string& datatype, const std::vector<int64_t>& shape,
                           const TensorSpec& spec, const std::string& where) {
  const auto type = element_type(datatype);
  if (!type) throw ServeError(400, where + ": unknown datatype '" + datatype + "'");
  if (*type != spec.type)
    throw ServeError(400, where + ": datatype " + datatype + " given, the model expects " +
                              protocol_datatype(spec.type));
  for (int64_t d : shape)
    if (d < 0)
      throw ServeError(400, where + ": shape " + shape_text(shape) + " must hold integers >= 0");
  bool fits = shape.size() == spec.shape.size();
  for (size_t i = 0; fits && i < shape.size(); ++i)
    fits = spec.shape[i] < 0 || spec.shape[i] == shape[i];
  if (!fits)
    throw ServeError(400, where + ": shape " + shape_text(shape) + " given, the model expects " +
                              shape_text(spec.shape) + " (-1: any size)");
  uint64_t count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > (uint64_t{1} << 40) / static_cast<uint64_t>(d))
      throw ServeError(400, where + ": shape " + shape_text(shape) + " is too large");
    count *= static_cast<uint64_t>(d);
  }
  return {*type, datatype, shape, count};
}

api::Value make_string_tensor(const std::vector<std::string>& items,
                              const std::vector<int64_t>& shape) {
  api::Value value = api::Value::tensor(ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, shape);
  for (size_t i = 0; i < items.size(); ++i) {
    char* buffer = nullptr;
    api::check(
        api::c_api().GetResizedStringTensorElementBuffer(value.get(), i, items[i].size(), &buffer));
    if (!items[i].empty()) std::memcpy(buffer, items[i].data(), items[i].size());
  }
  return value;
}

api::Value tensor_from_bytes(const CheckedTensor& c, const std::string& where,
                             const std::string& what, std::string_view bytes) {
  if (c.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    std::vector<std::string> items;
    size_t at = 0;
    while (at < bytes.size() && items.size() < c.count) {
      if (bytes.size() - at < 4)
        throw ServeError(400, where + ": BYTES element " + std::to_string(items.size()) +
                                  " has no complete 4-byte length");
      const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
      const uint32_t len = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                           (static_cast<uint32_t>(p[2]) << 16) |
                           (static_cast<uint32_t>(p[3]) << 24);
      at += 4;
      if (bytes.size() - at < len)
        throw ServeError(400, where + ": BYTES element " + std::to_string(items.size()) +
                                  " has length " + std::to_string(len) + ", only " +
                                  std::to_string(bytes.size() - at) + " bytes follow");
      items.emplace_back(bytes.substr(at, len));
      at += len;
    }
    if (items.size() != c.count || at != bytes.size())
      throw ServeError(400, where + ": " + what + " of " + std::to_string(bytes.size()) +
                                " bytes holds " + std::to_string(items.size()) + " BYTES elements" +
                                (at != bytes.size() ? " and more bytes" : "") + ", shape " +
                                shape_text(c.shape) + " needs " + std::to_string(c.count));
    return make_string_tensor(items, c.shape);
  }
  const uint64_t want = c.count * element_size(c.type);
  if (bytes.size() != want)
    throw ServeError(400, where + ": " + what + " is " + std::to_string(bytes.size()) +
                              " bytes, shape " + shape_text(c.shape) + " of " + c.datatype +
                              " needs " + std::to_string(want));
  if (c.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL)
    for (size_t i = 0; i < bytes.size(); ++i)
      if (bytes[i] != 0 && bytes[i] != 1)
        throw ServeError(400, where + ": BOOL element " + std::to_string(i) + " is byte " +
                                  std::to_string(static_cast<unsigned char>(bytes[i])) +
                                  ", not 0 or 1");
  api::Value value = api::Value::tensor(c.type, c.shape);
  void* dst = nullptr;
  api::check(api::c_api().GetTensorMutableData(value.get(), &dst));
  if (want > 0) std::memcpy(dst, bytes.data(), want);
  return value;
}

std::string tensor_to_binary(const api::Value& value) {
  const api::TensorInfo info = value.info();
  size_t n = 1;
  for (int64_t d : info.shape) n *= static_cast<size_t>(d);
  std::string out;
  if (info.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    for (const auto& s : value.strings()) {
      const auto len = static_cast<uint32_t>(s.size());
      for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((len >> (8 * b)) & 0xffu));
      out += s;
    }
    return out;
  }
  if (protocol_datatype(info.type).empty())
    throw ServeError(500, "an output has an element type the protocol cannot carry");
  void* p = nullptr;
  api::check(api::c_api().GetTensorMutableData(value.get(), &p));
  out.assign(static_cast<const char*>(p), n * element_size(info.type));
  return out;
}

}  // namespace tessera::serve
