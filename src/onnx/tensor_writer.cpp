#include "onnx/tensor_writer.hpp"

#include <cstring>

#include "onnx/model_writer.hpp"
#include "onnx/wire_writer.hpp"

namespace tessera::onnx {

std::string encode_tensor_proto(const Tensor& t, const std::string& name) {
  check(t.defined(), "cannot serialize an undefined tensor '", name, "'");
  check(t.memory_info().host_accessible(), "cannot serialize tensor '", name, "' (",
        t.description(), "): it lives in ", t.memory_info().to_string(), ", not host memory");
  std::string out;
  WireWriter w(out);
  w.unpacked_varints(1, t.shape().dims());
  w.int32(2, int32_t(t.dtype()));
  w.string_if(8, name);
  if (t.dtype() == DataType::kString) {
    const auto* s = t.data<std::string>();
    for (int64_t i = 0; i < t.num_elements(); ++i) w.bytes(6, s[i]);
  } else {
    // raw_data is written even when empty so the reader sees where the data is.
    w.bytes(9, std::string_view(static_cast<const char*>(t.raw_data()), t.byte_size()));
  }
  return out;
}

std::string encode_sparse_tensor_proto(const Tensor& t, const std::string& name) {
  check(t.defined(), "cannot serialize an undefined sparse tensor '", name, "'");
  DataType dt = t.dtype();
  int64_t n = t.num_elements();
  std::vector<int64_t> indices;
  int bits = data_type_bits(dt);
  if (dt == DataType::kString) {
    for (int64_t i = 0; i < n; ++i)
      if (!t.data<std::string>()[i].empty()) indices.push_back(i);
  } else if (bits >= 8) {
    size_t w = size_t(bits / 8);
    const auto* p = static_cast<const uint8_t*>(t.raw_data());
    for (int64_t i = 0; i < n; ++i) {
      bool zero = true;
      for (size_t b = 0; b < w && zero; ++b) zero = p[size_t(i) * w + b] == 0;
      if (!zero) indices.push_back(i);
    }
  } else {
    // Packed sub-byte elements: write every element (still a valid sparse tensor).
    for (int64_t i = 0; i < n; ++i) indices.push_back(i);
  }
  Tensor values(dt, Shape{int64_t(indices.size())});
  if (dt == DataType::kString) {
    for (size_t k = 0; k < indices.size(); ++k)
      values.mutable_data<std::string>()[k] = t.data<std::string>()[indices[k]];
  } else if (bits >= 8) {
    size_t w = size_t(bits / 8);
    const auto* src = static_cast<const uint8_t*>(t.raw_data());
    auto* dst = static_cast<uint8_t*>(values.mutable_raw_data());
    for (size_t k = 0; k < indices.size(); ++k)
      std::memcpy(dst + k * w, src + size_t(indices[k]) * w, w);
  } else if (values.byte_size()) {
    std::memcpy(values.mutable_raw_data(), t.raw_data(), values.byte_size());
  }
  std::string out;
  WireWriter w(out);
  w.message(1, encode_tensor_proto(values, name));
  w.message(2,
            encode_tensor_proto(Tensor::from_vector(indices, Shape{int64_t(indices.size())}), ""));
  w.unpacked_varints(3, t.shape().dims());
  return out;
}

std::string encode_sparse_tensor_proto(const SparseTensor& s, const std::string& name) {
  if (s.format != SparseFormat::kCoo)
    return encode_sparse_tensor_proto(s.to_dense(str_cat("sparse tensor '", name, "'")), name);
  std::string out;
  WireWriter w(out);
  w.message(1, encode_tensor_proto(s.values, name));
  w.message(2, encode_tensor_proto(s.indices, ""));
  w.unpacked_varints(3, s.dense_shape.dims());
  return out;
}

std::string serialize_tensor(const Tensor& tensor, const std::string& name) {
  return encode_tensor_proto(tensor, name);
}

namespace {

// SequenceProto / OptionalProto elem_type for a value.
int32_t elem_type_of(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kTensor:
      return 1;
    case Value::Kind::kSparseTensor:
      return 2;
    case Value::Kind::kSequence:
      return 3;
    case Value::Kind::kMap:
      return 4;
    case Value::Kind::kNone:
      return 5;
  }
  return 0;
}

std::string encode_value(const Value& v, const std::string& name);

// A value nested in a SequenceProto / OptionalProto, at the field its kind uses
// (both layouts agree: 3 tensor, 5 sequence, 6 map, 7 optional).
void write_element(WireWriter& w, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kTensor:
      w.message(3, encode_tensor_proto(v.tensor(), ""));
      break;
    case Value::Kind::kSparseTensor:
      w.message(4, encode_value(v, ""));
      break;
    case Value::Kind::kSequence:
      w.message(5, encode_value(v, ""));
      break;
    case Value::Kind::kMap:
      w.message(6, encode_value(v, ""));
      break;
    case Value::Kind::kNone:
      w.message(7, encode_value(v, ""));
      break;
  }
}

std::string encode_map(const MapValue& m, const std::string& name) {
  std::string out;
  WireWriter w(out);
  w.string_if(1, name);
  int64_t n = m.keys.num_elements();
  w.int32(2, int32_t(m.keys.dtype()));
  if (m.keys.dtype() == DataType::kString) {
    for (int64_t i = 0; i < n; ++i) w.bytes(4, m.keys.data<std::string>()[i]);
  } else {
    std::vector<int64_t> keys(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) keys[size_t(i)] = m.keys.element_as_int64(i);
    w.packed_varints(3, keys);
  }
  // The values tensor holds one run per key, end to end.
  int64_t total = m.values.num_elements();
  check(n == 0 ? total == 0 : total % n == 0, "map '", name, "' has ", n, " keys but ",
        m.values.description(), " values");
  int64_t per = n ? total / n : 0;
  std::string seq;
  WireWriter sw(seq);
  sw.int32(2, 1);
  Tensor flat = m.values.reshaped(Shape{total});
  for (int64_t i = 0; i < n; ++i) {
    Tensor item(m.values.dtype(), per == 1 ? Shape{} : Shape{per});
    if (m.values.dtype() == DataType::kString) {
      for (int64_t j = 0; j < per; ++j)
        item.mutable_data<std::string>()[j] = flat.data<std::string>()[i * per + j];
    } else if (item.byte_size()) {
      std::memcpy(item.mutable_raw_data(),
                  static_cast<const uint8_t*>(flat.raw_data()) +
                      data_type_storage_bytes(flat.dtype(), size_t(i * per)),
                  item.byte_size());
    }
    sw.message(3, encode_tensor_proto(item, ""));
  }
  w.message(5, seq);
  return out;
}

std::string encode_value(const Value& v, const std::string& name) {
  switch (v.kind()) {
    case Value::Kind::kTensor:
      return encode_tensor_proto(v.tensor(), name);
    case Value::Kind::kMap:
      return encode_map(v.map(), name);
    case Value::Kind::kSparseTensor:  // written as COO of its non-zero elements
      return encode_sparse_tensor_proto(v.sparse().to_dense(str_cat("sparse value '", name, "'")),
                                        name);
    case Value::Kind::kNone: {
      std::string out;
      WireWriter w(out);
      w.string_if(1, name);
      w.int32(2, 0);
      return out;
    }
    case Value::Kind::kSequence: {
      std::string out;
      WireWriter w(out);
      w.string_if(1, name);
      const Sequence& items = v.seq();
      w.int32(2, items.empty() ? 1 : elem_type_of(items[0]));
      for (const auto& item : items) write_element(w, item);
      return out;
    }
  }
  return {};
}

}  // namespace

std::string serialize_value(const Value& value, const std::string& name) {
  return encode_value(value, name);
}

}  // namespace tessera::onnx
