#include "onnx/adapter_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <set>

#include "core/error.hpp"
#include "onnx/mapped_file.hpp"

namespace tessera::onnx {

namespace {

// The schema's tables and their fields, by slot.
enum AdapterField { kFormatVersion = 0, kAdapterVersion = 1, kModelVersion = 2, kParameters = 3 };
enum ParameterField { kName = 0, kDims = 1, kDataType = 2, kRawData = 3 };
constexpr char kIdentifier[] = "TORT";
// The schema's TensorDataType runs from FLOAT (1) to FLOAT8E5M2FNUZ (20),
// ONNX's numbering; it has no strings ("we do not foresee strings").
constexpr int32_t kLastSchemaType = 20;

bool schema_type(DataType t) {
  const auto v = int32_t(t);
  return v >= 1 && v <= kLastSchemaType && t != DataType::kString;
}

// A bounds-checked view of a FlatBuffers buffer.
class FlatReader {
 public:
  FlatReader(const uint8_t* data, size_t size, const std::string& source)
      : b_(data), n_(size), source_(source) {}

  template <typename... Args>
  [[noreturn]] void bad(Args&&... args) const {
    fail(ErrorCode::kInvalidArgument, source_,
         ": not a valid LoRA adapter: ", std::forward<Args>(args)...);
  }

  template <typename T>
  T scalar(size_t at, const char* what) const {
    if (at > n_ || n_ - at < sizeof(T))
      bad(what, " at byte ", at, " is past the end (", n_, " bytes)");
    T v;
    std::memcpy(&v, b_ + at, sizeof(T));
    return v;
  }

  // Follows the unsigned offset stored at `at`.
  size_t follow(size_t at, const char* what) const {
    const uint64_t to = uint64_t(at) + scalar<uint32_t>(at, what);
    if (to >= n_) bad(what, " points past the end");
    return size_t(to);
  }

  struct Table {
    size_t pos = 0, vtable = 0;
    uint16_t vtable_size = 0, table_size = 0;
  };

  Table table(size_t pos, const char* what) const {
    Table t;
    t.pos = pos;
    const int64_t vt = int64_t(pos) - int64_t(scalar<int32_t>(pos, what));
    if (vt < 0 || uint64_t(vt) >= n_) bad(what, ": its vtable lies outside the buffer");
    t.vtable = size_t(vt);
    t.vtable_size = scalar<uint16_t>(t.vtable, what);
    t.table_size = scalar<uint16_t>(t.vtable + 2, what);
    if (t.vtable_size < 4 || t.vtable_size % 2 || t.vtable + t.vtable_size > n_)
      bad(what, ": vtable of ", t.vtable_size, " bytes does not fit");
    if (t.table_size < 4 || pos + t.table_size > n_)
      bad(what, ": table of ", t.table_size, " bytes does not fit");
    return t;
  }

  // Where field `slot` of `t` lies, or 0 when the table does not hold it.
  size_t field(const Table& t, int slot, size_t width, const char* what) const {
    const size_t entry = 4 + 2 * size_t(slot);
    if (entry + 2 > t.vtable_size) return 0;
    const uint16_t off = scalar<uint16_t>(t.vtable + entry, what);
    if (off == 0) return 0;
    if (off < 4 || size_t(off) + width > t.table_size) bad(what, ": field lies outside its table");
    return t.pos + off;
  }

  int32_t int_field(const Table& t, int slot, const char* what) const {
    const size_t at = field(t, slot, 4, what);
    return at ? scalar<int32_t>(at, what) : 0;
  }

  // A vector's element count and where its elements start (0, 0 if absent).
  std::pair<size_t, size_t> vector(const Table& t, int slot, size_t elem, const char* what) const {
    const size_t at = field(t, slot, 4, what);
    if (!at) return {0, 0};
    const size_t v = follow(at, what);
    const uint32_t count = scalar<uint32_t>(v, what);
    if (uint64_t(count) * elem > n_ - v - 4) bad(what, ": ", count, " elements do not fit");
    return {count, v + 4};
  }

  std::string string(const Table& t, int slot, const char* what) const {
    auto [len, start] = vector(t, slot, 1, what);
    return std::string(reinterpret_cast<const char*>(b_ + start), len);
  }

  const uint8_t* bytes() const { return b_; }
  size_t size() const { return n_; }

 private:
  const uint8_t* b_;
  size_t n_;
  const std::string& source_;
};

// Appends little-endian FlatBuffers pieces front to back; offsets always
// point forward (as unsigned offsets must), vtables precede their tables.
class FlatWriter {
 public:
  size_t pos() const { return out_.size(); }
  void align(size_t a, size_t extra = 0) {
    while ((out_.size() + extra) % a) out_.push_back('\0');
  }
  template <typename T>
  size_t put(T v) {
    const size_t at = out_.size();
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
    return at;
  }
  void bytes(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  // Writes at `slot` the offset from there to `target` (target after slot).
  void patch_offset(size_t slot, size_t target) {
    const auto off = uint32_t(target - slot);
    std::memcpy(out_.data() + slot, &off, 4);
  }
  // A vtable for a table of `n` 4-byte fields laid out in slot order.
  size_t vtable(int n) {
    align(4);
    const size_t at = put<uint16_t>(uint16_t(4 + 2 * n));
    put<uint16_t>(uint16_t(4 + 4 * n));
    for (int i = 0; i < n; ++i) put<uint16_t>(uint16_t(4 + 4 * i));
    return at;
  }
  // A table's start: its signed offset back to `vtable`.
  size_t table_start(size_t vtable) {
    align(4);
    const size_t at = pos();
    put<int32_t>(int32_t(at - vtable));
    return at;
  }
  // A vector's length prefix, placed so its elements start `elem_align`-aligned.
  size_t vector_start(uint32_t count, size_t elem_align) {
    align(elem_align < 4 ? 4 : elem_align, 4);
    return put<uint32_t>(count);
  }
  std::string take() {
    align(8);
    return std::move(out_);
  }

 private:
  std::string out_;
};

}  // namespace

Adapter parse_adapter(const void* data, size_t size, const std::string& source) {
  FlatReader r(static_cast<const uint8_t*>(data), size, source);
  if (size < 8) r.bad("only ", size, " bytes");
  if (std::memcmp(r.bytes() + 4, kIdentifier, 4) != 0)
    r.bad("the file identifier is not \"", kIdentifier, "\"");
  const auto root = r.table(r.follow(0, "root"), "the Adapter table");
  Adapter a;
  a.format_version = r.int_field(root, kFormatVersion, "format_version");
  if (a.format_version != kAdapterFormatVersion)
    fail(ErrorCode::kInvalidArgument, source, ": LoRA adapter format version ", a.format_version,
         " is not supported (this runtime reads version ", kAdapterFormatVersion, ")");
  a.adapter_version = r.int_field(root, kAdapterVersion, "adapter_version");
  a.model_version = r.int_field(root, kModelVersion, "model_version");
  auto [count, first] = r.vector(root, kParameters, 4, "parameters");
  std::set<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    const auto p = r.table(r.follow(first + 4 * i, "parameter"), "a Parameter table");
    std::string name = r.string(p, kName, "parameter name");
    if (name.empty()) r.bad("parameter ", i, " has no name");
    if (!names.insert(name).second) r.bad("parameter '", name, "' appears twice");
    const int32_t type = r.int_field(p, kDataType, "data_type");
    if (type < 1 || type > kLastSchemaType || !is_valid_data_type(type) ||
        !schema_type(DataType(type)))
      r.bad("parameter '", name, "' has element type ", type,
            ", which is not a numeric type of the schema");
    auto [rank, dims_at] = r.vector(p, kDims, 8, "dims");
    std::vector<int64_t> dims(rank);
    // Element count, saturating: anything past the buffer's bits cannot match.
    const uint64_t cap = uint64_t(size) * 8 + 1;
    uint64_t elements = 1;
    for (size_t d = 0; d < rank; ++d) {
      dims[d] = r.scalar<int64_t>(dims_at + 8 * d, "dims");
      if (dims[d] < 0) r.bad("parameter '", name, "' has negative dimension ", dims[d]);
      const uint64_t dim = uint64_t(dims[d]);
      if (dim == 0)
        elements = 0;
      else if (elements != 0)
        elements = dim > cap / elements ? cap : std::min(cap, elements * dim);
    }
    auto [raw_len, raw_at] = r.vector(p, kRawData, 1, "raw_data");
    const DataType dt = DataType(type);
    if (elements == cap || data_type_storage_bytes(dt, size_t(elements)) != raw_len)
      r.bad("parameter '", name, "' holds ", raw_len, " bytes of data, which is not what its ",
            data_type_name(dt), Shape(dims).to_string(), " needs");
    Tensor t(dt, Shape(dims));
    if (raw_len) std::memcpy(t.mutable_raw_data(), r.bytes() + raw_at, raw_len);
    a.parameters.emplace_back(std::move(name), std::move(t));
  }
  return a;
}

Adapter load_adapter(const std::string& path) {
  auto bytes = map_whole_file(path, "LoRA adapter file");
  return parse_adapter(bytes->data(), bytes->size(), path);
}

std::string serialize_adapter(const Adapter& a) {
  std::set<std::string> names;
  for (const auto& [name, t] : a.parameters) {
    check_code(!name.empty(), ErrorCode::kInvalidArgument, "a LoRA adapter parameter has no name");
    check_code(names.insert(name).second, ErrorCode::kInvalidArgument, "LoRA adapter parameter '",
               name, "' is given twice");
    // The element type in upper case (STRING, ...), as onnxruntime names element types.
    std::string type_name(data_type_name(t.dtype()));
    for (char& c : type_name) c = char(std::toupper(static_cast<unsigned char>(c)));
    check_code(schema_type(t.dtype()), ErrorCode::kInvalidArgument, "LoRA adapter parameter '",
               name, "' has element type ", type_name,
               "; adapter files hold numeric tensors of ONNX types 1 to 20 only");
    check_code(t.memory_info().host_accessible(), ErrorCode::kInvalidArgument,
               "LoRA adapter parameter '", name, "' is in ", t.memory_info().to_string(),
               "; copy it to host memory to write it");
  }
  FlatWriter w;
  const size_t root_slot = w.put<uint32_t>(0);
  w.bytes(kIdentifier, 4);
  const size_t adapter_vt = w.vtable(4);
  const size_t root = w.table_start(adapter_vt);
  w.patch_offset(root_slot, root);
  w.put<int32_t>(a.format_version);
  w.put<int32_t>(a.adapter_version);
  w.put<int32_t>(a.model_version);
  const size_t params_slot = w.put<uint32_t>(0);
  const size_t params = w.vector_start(uint32_t(a.parameters.size()), 4);
  w.patch_offset(params_slot, params);
  std::vector<size_t> param_slots;
  for (size_t i = 0; i < a.parameters.size(); ++i) param_slots.push_back(w.put<uint32_t>(0));
  for (size_t i = 0; i < a.parameters.size(); ++i) {
    const auto& [name, t] = a.parameters[i];
    const size_t vt = w.vtable(4);
    const size_t table = w.table_start(vt);
    w.patch_offset(param_slots[i], table);
    const size_t name_slot = w.put<uint32_t>(0);
    const size_t dims_slot = w.put<uint32_t>(0);
    w.put<int32_t>(int32_t(t.dtype()));
    const size_t raw_slot = w.put<uint32_t>(0);
    w.patch_offset(name_slot, w.vector_start(uint32_t(name.size()), 1));
    w.bytes(name.data(), name.size());
    w.put<uint8_t>(0);  // strings end with a NUL past their length
    const auto& dims = t.shape().dims();
    w.patch_offset(dims_slot, w.vector_start(uint32_t(dims.size()), 8));
    for (int64_t d : dims) w.put<int64_t>(d);
    const size_t n = t.byte_size();
    w.patch_offset(raw_slot, w.vector_start(uint32_t(n), 8));  // the schema's force_align: 8
    if (n) w.bytes(t.raw_data(), n);
  }
  return w.take();
}

void save_adapter(const Adapter& adapter, const std::string& path) {
  const std::string bytes = serialize_adapter(adapter);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  check_code(bool(f), ErrorCode::kFail, "cannot write LoRA adapter file '", path, "'");
  f.write(bytes.data(), std::streamsize(bytes.size()));
  check_code(bool(f), ErrorCode::kFail, "writing LoRA adapter file '", path, "' failed");
}

}  // namespace tessera::onnx
