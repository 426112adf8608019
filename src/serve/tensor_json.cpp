#include "serve/tensor_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "serve/datatype.hpp"
#include "serve/serve_error.hpp"
#include "serve/tensor_bytes.hpp"

namespace tessera::serve {
namespace {

using nlohmann::json;

// Row-major leaves of flat or nested `data`.
// Nesting deeper than `depth_left` (the shape's rank) is an error, not a
// recursion as deep as the request asks.
bool flatten(const json& data, std::vector<const json*>& out, size_t depth_left) {
  if (!data.is_array()) {
    out.push_back(&data);
    return true;
  }
  if (depth_left == 0) return false;
  for (const json& e : data)
    if (!flatten(e, out, depth_left - 1)) return false;
  return true;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t float_to_bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float bfloat16_to_float(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace

namespace {

struct Where {
  const std::string& model;
  const std::string& tensor;
  std::string at(size_t i) const {
    return "model '" + model + "', input '" + tensor + "': element " + std::to_string(i);
  }
};

template <typename T>
void write_integers(const std::vector<const json*>& leaves, void* dst, const Where& w) {
  T* out = static_cast<T*>(dst);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json& v = *leaves[i];
    bool ok = false;
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      ok = u <= static_cast<uint64_t>(std::numeric_limits<T>::max());
      if (ok) out[i] = static_cast<T>(u);
    } else if (v.is_number_integer()) {
      const int64_t s = v.get<int64_t>();
      ok = std::numeric_limits<T>::is_signed
               ? s >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                     s <= static_cast<int64_t>(std::numeric_limits<T>::max())
               : s >= 0;
      if (ok) out[i] = static_cast<T>(s);
    }
    if (!ok)
      throw ServeError(400, w.at(i) + " is " + v.dump() + ", not an integer in the range of " +
                                std::to_string(std::numeric_limits<T>::min()) + ".." +
                                std::to_string(std::numeric_limits<T>::max()));
  }
}

template <typename T, typename Convert>
void write_floats(const std::vector<const json*>& leaves, void* dst, const Where& w,
                  Convert convert) {
  T* out = static_cast<T*>(dst);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json& v = *leaves[i];
    if (!v.is_number()) throw ServeError(400, w.at(i) + " is " + v.dump() + ", not a number");
    out[i] = convert(v.get<double>());
  }
}

}  // namespace

std::vector<int64_t> shape_from_json(const json& t, const std::string& where) {
  if (!t.contains("shape") || !t.at("shape").is_array())
    throw ServeError(400, where + ": \"shape\" must be an array of integers");
  std::vector<int64_t> shape;
  for (const json& d : t.at("shape")) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0)
      throw ServeError(400,
                       where + ": \"shape\" " + t.at("shape").dump() + " must hold integers >= 0");
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

namespace {

// Datatype and shape of request tensor `t` against `spec`.
CheckedTensor check_json_tensor(const json& t, const TensorSpec& spec, const std::string& where) {
  if (!t.contains("datatype") || !t.at("datatype").is_string())
    throw ServeError(400, where + ": \"datatype\" must be a string");
  return check_tensor(t.at("datatype").get<std::string>(), shape_from_json(t, where), spec, where);
}

}  // namespace

api::Value tensor_from_json(const json& t, const TensorSpec& spec, const std::string& model) {
  const std::string where = "model '" + model + "', input '" + spec.name + "'";
  const CheckedTensor c = check_json_tensor(t, spec, where);
  const auto type = &c.type;
  const std::string& datatype = c.datatype;
  const std::vector<int64_t>& shape = c.shape;
  const uint64_t count = c.count;
  if (!t.contains("data"))
    throw ServeError(400, where + ": no \"data\" (nor a binary_data_size parameter)");
  std::vector<const json*> leaves;
  if (!flatten(t.at("data"), leaves, std::max<size_t>(shape.size(), 1)))
    throw ServeError(400, where + ": \"data\" is nested deeper than shape " + shape_text(shape));
  if (leaves.size() != count)
    throw ServeError(400, where + ": \"data\" holds " + std::to_string(leaves.size()) +
                              " elements, shape " + shape_text(shape) + " needs " +
                              std::to_string(count));
  const Where w{model, spec.name};
  if (*type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    std::vector<std::string> items;
    items.reserve(leaves.size());
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (!leaves[i]->is_string())
        throw ServeError(400, w.at(i) + " is " + leaves[i]->dump() + ", not a string (BYTES)");
      items.push_back(leaves[i]->get<std::string>());
    }
    return make_string_tensor(items, shape);
  }
  api::Value value = api::Value::tensor(*type, shape);
  void* dst = nullptr;
  api::check(api::c_api().GetTensorMutableData(value.get(), &dst));
  switch (*type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: {
      auto* out = static_cast<bool*>(dst);
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i]->is_boolean())
          throw ServeError(400, w.at(i) + " is " + leaves[i]->dump() + ", not true or false");
        out[i] = leaves[i]->get<bool>();
      }
      break;
    }
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
      write_integers<uint8_t>(leaves, dst, w);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
      write_integers<uint16_t>(leaves, dst, w);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
      write_integers<uint32_t>(leaves, dst, w);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
      write_integers<uint64_t>(leaves, dst, w);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
      write_integers<int8_t>(leaves, dst, w);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
      write_integers<int16_t>(leaves, dst, w);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
      write_integers<int32_t>(leaves, dst, w);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      write_integers<int64_t>(leaves, dst, w);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      write_floats<float>(leaves, dst, w, [](double d) { return static_cast<float>(d); });
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      write_floats<double>(leaves, dst, w, [](double d) { return d; });
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
      write_floats<uint16_t>(leaves, dst, w,
                             [](double d) { return float_to_half(static_cast<float>(d)); });
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
      write_floats<uint16_t>(leaves, dst, w,
                             [](double d) { return float_to_bfloat16(static_cast<float>(d)); });
      break;
    default:
      throw ServeError(400, where + ": datatype " + datatype + " is not served");
  }
  return value;
}

api::Value tensor_from_binary(const json& t, const TensorSpec& spec, const std::string& model,
                              std::string_view bytes) {
  const std::string where = "model '" + model + "', input '" + spec.name + "'";
  return tensor_from_bytes(check_json_tensor(t, spec, where), where, "binary_data_size", bytes);
}

json tensor_to_json(const std::string& name, const api::Value& value) {
  const api::TensorInfo info = value.info();
  const std::string datatype = protocol_datatype(info.type);
  if (datatype.empty())
    throw ServeError(500, "output '" + name + "' has an element type the protocol cannot carry");
  json out = {{"name", name}, {"datatype", datatype}, {"shape", info.shape}};
  size_t n = 1;
  for (int64_t d : info.shape) n *= static_cast<size_t>(d);
  json data = json::array();
  if (info.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    for (auto& s : value.strings()) data.push_back(std::move(s));
    out["data"] = std::move(data);
    return out;
  }
  void* p = nullptr;
  api::check(api::c_api().GetTensorMutableData(value.get(), &p));
  auto put = [&](auto* typed) {
    for (size_t i = 0; i < n; ++i) data.push_back(typed[i]);
  };
  switch (info.type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
      put(static_cast<const bool*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
      put(static_cast<const uint8_t*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
      put(static_cast<const uint16_t*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
      put(static_cast<const uint32_t*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
      put(static_cast<const uint64_t*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
      put(static_cast<const int8_t*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
      put(static_cast<const int16_t*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
      put(static_cast<const int32_t*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      put(static_cast<const int64_t*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      put(static_cast<const float*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      put(static_cast<const double*>(p));
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: {
      const auto* h = static_cast<const uint16_t*>(p);
      for (size_t i = 0; i < n; ++i) data.push_back(half_to_float(h[i]));
      break;
    }
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: {
      const auto* h = static_cast<const uint16_t*>(p);
      for (size_t i = 0; i < n; ++i) data.push_back(bfloat16_to_float(h[i]));
      break;
    }
    default:
      throw ServeError(500, "output '" + name + "' has an element type the protocol cannot carry");
  }
  out["data"] = std::move(data);
  return out;
}

}  // namespace tessera::serve
