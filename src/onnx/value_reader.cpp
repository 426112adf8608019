// load_value: backend-test data files holding a TensorProto, SequenceProto,
// MapProto or OptionalProto, chosen by the expected type.
#include <cstring>

#include "onnx/mapped_file.hpp"
#include "onnx/model_reader.hpp"
#include "onnx/tensor_reader.hpp"

namespace tessera::onnx {

namespace {

using Kind = ir::TypeInfo::Kind;

// OptionalProto / SequenceProto elem_type values.
enum ElemType : int64_t {
  kElemUndefined = 0,
  kElemTensor = 1,
  kElemSparse = 2,
  kElemSequence = 3,
  kElemMap = 4,
  kElemOptional = 5
};

class ValueReader {
 public:
  ValueReader(ParseContext& ctx, const std::string& base_dir) : ctx_(ctx), base_dir_(base_dir) {}

  Value value(std::string_view b, const ir::TypeInfo* type) {
    Kind k = type ? type->kind : Kind::kTensor;
    switch (k) {
      case Kind::kSequence:
        return sequence(b, type->inner.get());
      case Kind::kMap:
        return map(b, type);
      case Kind::kOptional:
        return optional(b, type->inner.get());
      case Kind::kSparseTensor:
        return Value::sparse(sparse(b));
      default:
        return Value(tensor(b));
    }
  }

 private:
  Tensor tensor(std::string_view b) {
    return read_tensor_proto(ctx_, bytes(b), b.size(), base_dir_);
  }
  SparseTensor sparse(std::string_view b) {
    return read_sparse_tensor(ctx_, bytes(b), b.size(), base_dir_);
  }
  static const uint8_t* bytes(std::string_view b) {
    return reinterpret_cast<const uint8_t*>(b.data());
  }

  // Reads a nested field as the value kind its field number implies (the
  // SequenceProto and OptionalProto layouts agree: 3 tensor ... 7 optional).
  Value element(WireReader& r, const Field& f, const char* name, int64_t index,
                const ir::TypeInfo* type) {
    PathGuard g(ctx_, name, index);
    std::string_view b = r.as_bytes(f, name);
    switch (f.number) {
      case 3:
        return Value(tensor(b));
      case 4:
        return Value::sparse(sparse(b));
      case 5:
        return sequence(b, type && type->kind == Kind::kSequence ? type->inner.get() : nullptr);
      case 6:
        return map(b, type && type->kind == Kind::kMap ? type : nullptr);
      default:
        return optional(b, type && type->kind == Kind::kOptional ? type->inner.get() : nullptr);
    }
  }

  Value sequence(std::string_view b, const ir::TypeInfo* elem) {
    static const char* kNames[] = {"",
                                   "",
                                   "",
                                   "tensor_values",
                                   "sparse_tensor_values",
                                   "sequence_values",
                                   "map_values",
                                   "optional_values"};
    Sequence items;
    WireReader r(ctx_, b.data(), b.size());
    Field f;
    while (r.next(f)) {
      if (f.number >= 3 && f.number <= 7)
        items.push_back(element(r, f, kNames[f.number], int64_t(items.size()), elem));
    }
    DataType dt = DataType::kUndefined;
    if (elem && (elem->kind == Kind::kTensor || elem->kind == Kind::kSparseTensor))
      dt = elem->elem_type;
    if (dt == DataType::kUndefined && !items.empty() && items[0].is_tensor())
      dt = items[0].tensor().dtype();
    return Value::sequence(std::move(items), dt);
  }

  Value optional(std::string_view b, const ir::TypeInfo* elem) {
    static const char* kNames[] = {"",
                                   "",
                                   "",
                                   "tensor_value",
                                   "sparse_tensor_value",
                                   "sequence_value",
                                   "map_value",
                                   "optional_value"};
    int64_t elem_type = kElemUndefined;
    Value v;
    WireReader r(ctx_, b.data(), b.size());
    Field f;
    while (r.next(f)) {
      if (f.number == 2)
        elem_type = r.as_int32(f, "elem_type");
      else if (f.number >= 3 && f.number <= 7)
        v = element(r, f, kNames[f.number], -1, elem);
    }
    if (elem_type == kElemUndefined) return Value();
    return v;
  }

  Value map(std::string_view b, const ir::TypeInfo* type) {
    int64_t key_type = 0;
    std::vector<int64_t> keys;
    std::vector<std::string> string_keys;
    Value values;
    bool has_values = false;
    WireReader r(ctx_, b.data(), b.size());
    Field f;
    while (r.next(f)) {
      switch (f.number) {
        case 2:
          key_type = r.as_int32(f, "key_type");
          break;
        case 3:
          r.append_varints(f, "keys", keys);
          break;
        case 4:
          string_keys.push_back(r.as_string(f, "string_keys"));
          break;
        case 5: {
          PathGuard g(ctx_, "values");
          values = sequence(r.as_bytes(f, "values"), type ? type->inner.get() : nullptr);
          has_values = true;
          break;
        }
        default:
          break;
      }
    }
    DataType kt = key_type ? checked_data_type(ctx_, key_type, "key_type")
                           : (string_keys.empty() ? DataType::kInt64 : DataType::kString);
    MapValue m;
    size_t n = kt == DataType::kString ? string_keys.size() : keys.size();
    if (kt == DataType::kString) {
      m.keys = Tensor(kt, Shape{int64_t(n)});
      for (size_t i = 0; i < n; ++i) m.keys.mutable_data<std::string>()[i] = string_keys[i];
    } else {
      if (!is_integer_type(kt) || is_sub_byte_type(kt))
        ctx_.fail("map key_type ", data_type_name(kt), " is not an integer or string type");
      m.keys = Tensor(kt, Shape{int64_t(n)});
      auto* dst = static_cast<uint8_t*>(m.keys.mutable_raw_data());
      size_t w = size_t(data_type_bits(kt) / 8);
      for (size_t i = 0; i < n; ++i) std::memcpy(dst + i * w, &keys[i], w);  // little-endian
    }
    const Sequence empty;
    const Sequence& items = has_values ? values.seq() : empty;
    if (items.size() != n) ctx_.fail("map has ", n, " keys but ", items.size(), " values");
    DataType vt = type && type->inner && type->inner->is_tensor() ? type->inner->elem_type
                                                                  : DataType::kUndefined;
    m.values = concat_tensors(items, vt);
    return Value::map(std::move(m));
  }

  // Map values as one 1-D tensor: the value tensors flattened, end to end.
  Tensor concat_tensors(const Sequence& items, DataType dt) {
    int64_t total = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_tensor())
        ctx_.fail_code(ErrorCode::kNotImplemented, "map value ", i, " is a ", items[i].kind_name(),
                       "; only tensor-valued maps are supported");
      const Tensor& t = items[i].tensor();
      if (dt == DataType::kUndefined) dt = t.dtype();
      if (t.dtype() != dt)
        ctx_.fail("map value ", i, " is ", t.description(), ", expected ", data_type_name(dt));
      total += t.num_elements();
    }
    if (dt == DataType::kUndefined) dt = DataType::kFloat;
    if (is_sub_byte_type(dt))
      ctx_.fail_code(ErrorCode::kNotImplemented, "maps of ", data_type_name(dt),
                     " values are not supported");
    Tensor out(dt, Shape{total});
    int64_t at = 0;
    for (const auto& item : items) {
      const Tensor& t = item.tensor();
      if (dt == DataType::kString) {
        for (int64_t j = 0; j < t.num_elements(); ++j)
          out.mutable_data<std::string>()[at + j] = t.data<std::string>()[j];
      } else if (t.byte_size()) {
        std::memcpy(
            static_cast<uint8_t*>(out.mutable_raw_data()) + data_type_storage_bytes(dt, size_t(at)),
            t.raw_data(), t.byte_size());
      }
      at += t.num_elements();
    }
    return out;
  }

  ParseContext& ctx_;
  const std::string& base_dir_;
};

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Value parse_value(const void* data, size_t size, const ir::TypeInfo& type,
                  const std::string& source_name, const std::string& base_dir) {
  ParseContext ctx(source_name);
  ValueReader reader(ctx, base_dir);
  return reader.value(std::string_view(static_cast<const char*>(data), size), &type);
}

Value load_value(const std::string& path, const ir::TypeInfo& type) {
  auto bytes = map_whole_file(path, "value file");
  return parse_value(bytes->data(), bytes->size(), type, path, dir_of(path));
}

}  // namespace tessera::onnx
