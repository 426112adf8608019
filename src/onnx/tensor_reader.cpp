#include "onnx/tensor_reader.hpp"

#include <complex>
#include <cstring>
#include <map>
#include <string_view>
#include <vector>

#include "onnx/external_data.hpp"
#include "onnx/mapped_file.hpp"

namespace tessera::onnx {

namespace {

// Field numbers of TensorProto (onnx.proto).
enum : uint32_t {
  kDims = 1,
  kDataType = 2,
  kSegment = 3,
  kFloatData = 4,
  kInt32Data = 5,
  kStringData = 6,
  kInt64Data = 7,
  kName = 8,
  kRawData = 9,
  kDoubleData = 10,
  kUInt64Data = 11,
  kDocString = 12,
  kExternalData = 13,
  kDataLocation = 14,
};

// The fields of one TensorProto, pointing into the input bytes.
struct TensorFields {
  std::vector<int64_t> dims;
  int64_t data_type = 0;
  std::string name;
  bool has_raw = false;
  std::string_view raw;
  std::vector<float> floats;
  std::vector<int32_t> int32s;
  std::vector<std::string_view> strings;
  std::vector<int64_t> int64s;
  std::vector<double> doubles;
  std::vector<uint64_t> uint64s;
  std::vector<std::pair<std::string, std::string>> external;
  int64_t data_location = 0;
};

void read_string_entry(WireReader& outer, const Field& f,
                       std::vector<std::pair<std::string, std::string>>& out, size_t index) {
  ParseContext& ctx = outer.ctx();
  PathGuard guard(ctx, "external_data", int64_t(index));
  std::string_view bytes = outer.as_bytes(f, "external_data");
  WireReader r(ctx, bytes.data(), bytes.size());
  std::pair<std::string, std::string> kv;
  Field g;
  while (r.next(g)) {
    if (g.number == 1) kv.first = r.as_string(g, "key");
    else if (g.number == 2) kv.second = r.as_string(g, "value");
  }
  out.push_back(std::move(kv));
}

TensorFields read_fields(ParseContext& ctx, const uint8_t* data, size_t size) {
  TensorFields t;
  WireReader r(ctx, data, size);
  Field f;
  while (r.next(f)) {
    switch (f.number) {
      case kDims: r.append_varints(f, "dims", t.dims); break;
      case kDataType: t.data_type = r.as_int32(f, "data_type"); break;
      case kFloatData: r.append_floats(f, "float_data", t.floats); break;
      case kInt32Data: r.append_varints(f, "int32_data", t.int32s); break;
      case kStringData: t.strings.push_back(r.as_bytes(f, "string_data")); break;
      case kInt64Data: r.append_varints(f, "int64_data", t.int64s); break;
      case kName: t.name = r.as_string(f, "name"); break;
      case kRawData:
        t.raw = r.as_bytes(f, "raw_data");
        t.has_raw = true;
        break;
      case kDoubleData: r.append_doubles(f, "double_data", t.doubles); break;
      case kUInt64Data: r.append_varints(f, "uint64_data", t.uint64s); break;
      case kExternalData: read_string_entry(r, f, t.external, t.external.size()); break;
      case kDataLocation: t.data_location = r.as_int32(f, "data_location"); break;
      default: break;  // segment, doc_string, metadata_props, unknown fields
    }
  }
  return t;
}

std::string describe(const TensorFields& t, DataType dt) {
  std::string dims;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (i) dims += ',';
    dims += std::to_string(t.dims[i]);
  }
  return str_cat("tensor '", t.name, "' (", data_type_name(dt), "[", dims, "])");
}

// Element count of the dims, refusing negative dims and overflow (also of the
// byte size, so later size arithmetic cannot wrap).
int64_t checked_count(ParseContext& ctx, const std::vector<int64_t>& dims, const std::string& who) {
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) ctx.fail(who, ": dims[", i, "] is negative (", dims[i], ")");
    if (dims[i] != 0 && n > (int64_t(1) << 56) / dims[i])
      ctx.fail(who, ": element count overflows (dims too large)");
    n *= dims[i];
  }
  return n;
}

uint64_t parse_decimal(ParseContext& ctx, const std::string& who, const std::string& key,
                       const std::string& s) {
  if (s.empty() || s.size() > 19) ctx.fail(who, ": external_data ", key, " '", s, "' is not a number");
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') ctx.fail(who, ": external_data ", key, " '", s, "' is not a number");
    v = v * 10 + uint64_t(c - '0');
  }
  return v;
}

Tensor read_external(ParseContext& ctx, const TensorFields& t, DataType dt, const Shape& shape,
                     size_t expected_bytes, const std::string& base_dir, const std::string& who) {
  if (dt == DataType::kString) ctx.fail(who, ": string tensors cannot use external data");
  std::string location;
  uint64_t offset = 0, length = kToEndOfFile;
  bool has_location = false;
  for (const auto& [k, v] : t.external) {
    if (k == "location") {
      location = v;
      has_location = true;
    } else if (k == "offset") {
      offset = parse_decimal(ctx, who, k, v);
    } else if (k == "length") {
      length = parse_decimal(ctx, who, k, v);
    }
  }
  if (!has_location)
    ctx.fail(who, ": data_location is EXTERNAL but external_data has no 'location'");
  if (length != kToEndOfFile && length != expected_bytes)
    ctx.fail_code(ErrorCode::kInvalidGraph, who, ": external data length ", length,
                  " does not match the ", expected_bytes, " bytes the dims need");
  // A file the application handed in memory is read from there, the file
  // system never touched (so no path of it needs checking).
  if (const SuppliedExternalData* s = ctx.supplied(); s && s->files) {
    auto it = s->files->find(location);
    if (it != s->files->end()) {
      const std::string& file = *it->second;
      if (offset > file.size() || file.size() - offset < expected_bytes)
        ctx.fail_code(ErrorCode::kInvalidGraph, who, ": external data '", location,
                      "' (handed in memory, ", file.size(), " bytes) holds ",
                      offset > file.size() ? 0 : file.size() - offset, " bytes from offset ",
                      offset, ", the dims need ", expected_bytes);
      if (length == kToEndOfFile && file.size() - offset != expected_bytes)
        ctx.fail_code(ErrorCode::kInvalidGraph, who, ": external data '", location, "' holds ",
                      file.size() - offset, " bytes from offset ", offset, ", the dims need ",
                      expected_bytes);
      Tensor out(dt, shape);
      if (expected_bytes) std::memcpy(out.mutable_raw_data(), file.data() + offset, expected_bytes);
      return out;
    }
  }
  std::string path = resolve_external_location(base_dir, location, t.name, ctx.model_real_dir());
  auto bytes = map_file_range(path, offset, length == kToEndOfFile ? kToEndOfFile : length,
                              str_cat(who, ": external data '", location, "'"));
  if (bytes->size() != expected_bytes)
    ctx.fail_code(ErrorCode::kInvalidGraph, who, ": external data '", location, "' holds ",
                  bytes->size(), " bytes from offset ", offset, ", the dims need ",
                  expected_bytes);
  if (expected_bytes == 0) return Tensor(dt, shape);
  auto* p = const_cast<uint8_t*>(bytes->data());
  auto buffer = std::make_shared<Buffer>(p, expected_bytes, cpu_memory_info(), bytes);
  return Tensor(dt, shape, std::move(buffer));
}

// Copies the low `width` bytes of each int32 (little-endian host).
void store_int32s(const std::vector<int32_t>& src, uint8_t* dst, size_t width, bool is_bool) {
  for (size_t i = 0; i < src.size(); ++i) {
    uint32_t v = is_bool ? (src[i] != 0) : uint32_t(src[i]);
    std::memcpy(dst + i * width, &v, width);
  }
}

template <typename T>
void check_count(ParseContext& ctx, const std::string& who, const char* field,
                 const std::vector<T>& v, int64_t expected) {
  if (int64_t(v.size()) != expected)
    ctx.fail(who, ": ", field, " has ", v.size(), " values, expected ", expected);
}

Tensor from_typed_fields(ParseContext& ctx, const TensorFields& t, DataType dt,
                         const Shape& shape, int64_t n, const std::string& who) {
  switch (dt) {
    case DataType::kFloat:
    case DataType::kComplex64: {
      int64_t k = dt == DataType::kFloat ? n : 2 * n;
      check_count(ctx, who, "float_data", t.floats, k);
      Tensor out(dt, shape);
      if (k) std::memcpy(out.mutable_raw_data(), t.floats.data(), size_t(k) * 4);
      return out;
    }
    case DataType::kDouble:
    case DataType::kComplex128: {
      int64_t k = dt == DataType::kDouble ? n : 2 * n;
      check_count(ctx, who, "double_data", t.doubles, k);
      Tensor out(dt, shape);
      if (k) std::memcpy(out.mutable_raw_data(), t.doubles.data(), size_t(k) * 8);
      return out;
    }
    case DataType::kInt64: {
      check_count(ctx, who, "int64_data", t.int64s, n);
      Tensor out(dt, shape);
      if (n) std::memcpy(out.mutable_raw_data(), t.int64s.data(), size_t(n) * 8);
      return out;
    }
    case DataType::kUInt32:
    case DataType::kUInt64: {
      check_count(ctx, who, "uint64_data", t.uint64s, n);
      Tensor out(dt, shape);
      auto* dst = static_cast<uint8_t*>(out.mutable_raw_data());
      size_t width = dt == DataType::kUInt32 ? 4 : 8;
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + size_t(i) * width, &t.uint64s[size_t(i)], width);
      return out;
    }
    case DataType::kString: {
      check_count(ctx, who, "string_data", t.strings, n);
      Tensor out(dt, shape);
      auto* dst = out.mutable_data<std::string>();
      for (int64_t i = 0; i < n; ++i) dst[i] = std::string(t.strings[size_t(i)]);
      return out;
    }
    default: break;
  }
  // Everything else travels in int32_data: one element per value for types of
  // 8 bits or more, one packed byte per value for 4- and 2-bit types.
  int bits = data_type_bits(dt);
  if (bits == 0) ctx.fail(who, ": cannot decode data of type ", data_type_name(dt));
  size_t width = bits >= 8 ? size_t(bits / 8) : 1;
  int64_t k = bits >= 8 ? n : int64_t(data_type_storage_bytes(dt, size_t(n)));
  check_count(ctx, who, "int32_data", t.int32s, k);
  Tensor out(dt, shape);
  if (k) store_int32s(t.int32s, static_cast<uint8_t*>(out.mutable_raw_data()), width,
                      dt == DataType::kBool);
  return out;
}

}  // namespace

DataType checked_data_type(ParseContext& ctx, int64_t v, const char* what) {
  if (v < 0 || v > kMaxDataType || !is_valid_data_type(int32_t(v)))
    ctx.fail(what, " ", v, " is not a valid data type");
  return static_cast<DataType>(v);
}

Tensor read_tensor_proto(ParseContext& ctx, const uint8_t* data, size_t size,
                         const std::string& base_dir, std::string* name,
                         const std::map<std::string, Tensor>* supplied) {
  TensorFields t = read_fields(ctx, data, size);
  if (name) *name = t.name;
  if (t.data_type == 0) ctx.fail("tensor '", t.name, "' has no data_type");
  DataType dt = checked_data_type(ctx, t.data_type, "data_type");
  std::string who = describe(t, dt);
  int64_t n = checked_count(ctx, t.dims, who);
  Shape shape(t.dims);
  if (supplied) {
    // The application's tensor wins: the model's data is not read at all.
    auto it = supplied->find(t.name);
    if (it != supplied->end()) {
      if (it->second.dtype() != dt || it->second.shape() != shape)
        ctx.fail_code(ErrorCode::kInvalidArgument, "initializer '", t.name, "' is ",
                      data_type_name(dt), shape.to_string(),
                      " in the model but the tensor handed in for it is ",
                      it->second.description());
      return it->second;
    }
  }
  size_t expected_bytes =
      dt == DataType::kString ? 0 : data_type_storage_bytes(dt, size_t(n));

  if (t.data_location == 1)
    return read_external(ctx, t, dt, shape, expected_bytes, base_dir, who);
  if (t.data_location != 0) ctx.fail(who, ": invalid data_location ", t.data_location);

  if (t.has_raw) {
    if (dt == DataType::kString) ctx.fail(who, ": string tensors cannot use raw_data");
    if (t.raw.size() != expected_bytes)
      ctx.fail(who, ": raw_data has ", t.raw.size(), " bytes, expected ", expected_bytes);
    Tensor out(dt, shape);
    if (expected_bytes) std::memcpy(out.mutable_raw_data(), t.raw.data(), expected_bytes);
    ctx.done_with(t.raw.data(), expected_bytes);
    return out;
  }
  return from_typed_fields(ctx, t, dt, shape, n, who);
}

namespace {

constexpr uint64_t kMaxDensifiedBytes = uint64_t(4) << 30;

}  // namespace

SparseTensor read_sparse_tensor(ParseContext& ctx, const uint8_t* data, size_t size,
                                const std::string& base_dir, std::string* name) {
  SparseTensor out;
  out.format = SparseFormat::kCoo;
  bool has_values = false;
  std::vector<int64_t> dims;
  std::string values_name;
  WireReader r(ctx, data, size);
  Field f;
  while (r.next(f)) {
    if (f.number == 1) {
      PathGuard g(ctx, "values");
      std::string_view b = r.as_bytes(f, "values");
      out.values = read_tensor_proto(ctx, reinterpret_cast<const uint8_t*>(b.data()), b.size(),
                                     base_dir, &values_name);
      has_values = true;
    } else if (f.number == 2) {
      PathGuard g(ctx, "indices");
      std::string_view b = r.as_bytes(f, "indices");
      out.indices =
          read_tensor_proto(ctx, reinterpret_cast<const uint8_t*>(b.data()), b.size(), base_dir);
    } else if (f.number == 3) {
      r.append_varints(f, "dims", dims);
    }
  }
  if (name) *name = values_name;
  std::string who = str_cat("sparse tensor '", values_name, "'");
  if (!has_values) ctx.fail(who, " has no values");
  checked_count(ctx, dims, who);
  out.dense_shape = Shape(dims);
  const int64_t nnz = out.values.num_elements();
  if (out.values.rank() != 1) ctx.fail(who, ": values must be 1-D, got ", out.values.description());
  if (nnz > 0 && !out.indices.defined()) ctx.fail(who, " has values but no indices");
  if (out.indices.defined() && out.indices.dtype() != DataType::kInt64) {
    // ONNX allows any integer type; the runtime keeps int64.
    if (!is_integer_type(out.indices.dtype()))
      ctx.fail(who, ": indices must be integers, got ", out.indices.description());
    out.indices = Tensor::from_vector(out.indices.to_int64_vector(), out.indices.shape());
  }
  try {
    out.validate(who);
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
  return out;
}

Tensor read_sparse_tensor_proto(ParseContext& ctx, const uint8_t* data, size_t size,
                                const std::string& base_dir, std::string* name) {
  std::string values_name;
  SparseTensor s = read_sparse_tensor(ctx, data, size, base_dir, &values_name);
  if (name) *name = values_name;
  const int64_t n = s.dense_shape.num_elements();
  if (data_type_storage_bytes(s.dtype(), size_t(n)) > kMaxDensifiedBytes)
    ctx.fail("sparse tensor '", values_name, "': densified size of ", n,
             " elements exceeds the 4 GiB limit");
  return s.to_dense(str_cat("sparse tensor '", values_name, "'"));
}

}  // namespace tessera::onnx
