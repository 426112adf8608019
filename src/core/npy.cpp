#include "core/npy.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace tessera {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;  // numpy pads the header so the data starts 64-aligned

struct NpyType {
  char kind;  // 'f', 'i', 'u', 'b', 'c'
  int size;   // bytes per element
  DataType dtype;
};

constexpr NpyType kTypes[] = {
    {'f', 2, DataType::kFloat16}, {'f', 4, DataType::kFloat},     {'f', 8, DataType::kDouble},
    {'i', 1, DataType::kInt8},    {'i', 2, DataType::kInt16},     {'i', 4, DataType::kInt32},
    {'i', 8, DataType::kInt64},   {'u', 1, DataType::kUInt8},     {'u', 2, DataType::kUInt16},
    {'u', 4, DataType::kUInt32},  {'u', 8, DataType::kUInt64},    {'b', 1, DataType::kBool},
    {'c', 8, DataType::kComplex64}, {'c', 16, DataType::kComplex128},
};

const NpyType* find_by_dtype(DataType t) {
  for (const auto& e : kTypes)
    if (e.dtype == t) return &e;
  return nullptr;
}

// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This parses exactly that subset: string keys; string, bool and int-tuple values.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : s_(text), source_(source) {}

  struct Fields {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<int64_t>> shape;
  };

  Fields parse() {
    Fields f;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      std::string key = parse_string("a dictionary key");
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() == '[')
          error("structured (record) dtypes are not supported; only plain numeric arrays");
        set_once(f.descr, parse_string("the 'descr' value"), key);
      } else if (key == "fortran_order") {
        set_once(f.fortran_order, parse_bool(), key);
      } else if (key == "shape") {
        set_once(f.shape, parse_tuple(), key);
      } else {
        error("unexpected header key '", key, "' (expected descr, fortran_order and shape)");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') break;
      error("expected ',' or '}' at header offset ", pos_);
    }
    ++pos_;  // '}'
    skip_ws();
    if (pos_ != s_.size()) error("unexpected text after the header dictionary at offset ", pos_);
    return f;
  }

 private:
  template <typename... Args>
  [[noreturn]] void error(Args&&... args) const {
    fail(ErrorCode::kInvalidArgument, source_, ": malformed .npy header: ",
         std::forward<Args>(args)..., " (header: ", s_, ")");
  }
  template <typename T>
  void set_once(std::optional<T>& slot, T v, const std::string& key) {
    if (slot) error("key '", key, "' appears twice");
    slot = std::move(v);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) error("expected '", c, "' at header offset ", pos_);
    ++pos_;
  }
  std::string parse_string(const char* what) {
    skip_ws();
    char q = peek();
    if (q != '\'' && q != '"') error("expected ", what, " (a quoted string) at header offset ", pos_);
    size_t start = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != q) {
      if (s_[pos_] == '\\') error("escape sequences in header strings are not supported");
      ++pos_;
    }
    if (pos_ >= s_.size()) error("unterminated string starting at header offset ", start - 1);
    std::string out(s_.substr(start, pos_ - start));
    ++pos_;
    return out;
  }
  bool parse_bool() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    error("expected True or False for 'fortran_order' at header offset ", pos_);
  }
  std::vector<int64_t> parse_tuple() {
    expect('(');
    std::vector<int64_t> dims;
    while (true) {
      skip_ws();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') error("expected a non-negative dimension at header offset ", pos_);
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        int d = peek() - '0';
        if (v > (std::numeric_limits<int64_t>::max() - d) / 10) error("dimension too large");
        v = v * 10 + d;
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 longs
      dims.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') error("expected ',' or ')' in 'shape' at header offset ", pos_);
    }
    ++pos_;
    return dims;
  }

  std::string_view s_;
  const std::string& source_;
  size_t pos_ = 0;
};

const NpyType& parse_descr(const std::string& descr, const std::string& source) {
  auto bad = [&](const std::string& why) -> const NpyType& {
    fail(ErrorCode::kNotImplemented, source, ": .npy dtype '", descr, "' is not supported: ", why,
         " (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 c8 c16, little-endian)");
  };
  std::string_view d = descr;
  char order = '=';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
    order = d[0];
    d.remove_prefix(1);
  }
  if (d.size() < 2) return bad("not a plain numeric dtype");
  char kind = d[0];
  int size = 0;
  for (char c : d.substr(1)) {
    if (c < '0' || c > '9' || size > 1000) return bad("not a plain numeric dtype");
    size = size * 10 + (c - '0');
  }
  for (const auto& e : kTypes) {
    if (e.kind != kind || e.size != size) continue;
    int part = kind == 'c' ? size / 2 : size;  // complex: byte order applies per component
    if (order == '>' && part > 1) return bad("big-endian data (convert with arr.astype('<...'))");
    return e;
  }
  return bad("unknown kind/size");
}

std::string shape_tuple(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.rank(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  if (s.rank() == 1) out += ",";
  return out + ")";
}

}  // namespace

bool npy_supports(DataType t) { return find_by_dtype(t) != nullptr; }

std::string npy_dtype_string(DataType t) {
  const NpyType* e = find_by_dtype(t);
  if (!e) {
    fail(ErrorCode::kNotImplemented, "NumPy .npy has no dtype for ", data_type_name(t),
         t == DataType::kBFloat16 ? " (numpy has no bfloat16; convert to float32 first)"
                                  : " (convert to a plain numeric type first)");
  }
  return str_cat(e->size == 1 ? '|' : '<', e->kind, e->size);
}

Tensor parse_npy(const void* data, size_t size, const std::string& source) {
  const auto* p = static_cast<const unsigned char*>(data);
  auto bad = [&](auto&&... what) {
    fail(ErrorCode::kInvalidArgument, source, ": not a valid .npy file: ", what...);
  };
  if (size < kMagicLen + 2 || std::memcmp(p, kMagic, kMagicLen) != 0)
    bad("missing the \\x93NUMPY magic at the start (", size, " bytes)");
  int major = p[6], minor = p[7];
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    if (size < 10) bad("truncated in the header length");
    header_len = size_t(p[8]) | size_t(p[9]) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) bad("truncated in the header length");
    header_len = size_t(p[8]) | size_t(p[9]) << 8 | size_t(p[10]) << 16 | size_t(p[11]) << 24;
    header_start = 12;
  } else {
    fail(ErrorCode::kNotImplemented, source, ": .npy format version ", major, ".", minor,
         " is not supported (1.0, 2.0 and 3.0 are)");
  }
  if (header_len > size - header_start)
    bad("header length ", header_len, " runs past the end of the file (", size, " bytes)");
  std::string_view header(reinterpret_cast<const char*>(p + header_start), header_len);
  auto fields = HeaderParser(header, source).parse();
  if (!fields.descr) bad("header has no 'descr'");
  if (!fields.fortran_order) bad("header has no 'fortran_order'");
  if (!fields.shape) bad("header has no 'shape'");
  if (*fields.fortran_order)
    fail(ErrorCode::kNotImplemented, source,
         ": Fortran-order arrays are not supported; save with np.ascontiguousarray(a)");
  const NpyType& type = parse_descr(*fields.descr, source);

  Shape shape(*fields.shape);
  uint64_t count = 1;
  for (int64_t d : shape.dims()) {
    if (d != 0 && count > (uint64_t(1) << 56) / uint64_t(d))
      bad("shape ", shape.to_string(), " is too large");
    count *= uint64_t(d);
  }
  size_t data_start = header_start + header_len;
  uint64_t need = count * uint64_t(type.size);
  uint64_t have = size - data_start;
  if (have < need)
    bad("shape ", shape.to_string(), " of ", *fields.descr, " needs ", need,
        " data bytes but the file has ", have);
  if (have > need)
    bad(have - need, " unexpected bytes after the ", need, " data bytes of shape ",
        shape.to_string());

  Tensor t(type.dtype, shape);
  if (need) std::memcpy(t.mutable_raw_data(), p + data_start, size_t(need));
  if (type.dtype == DataType::kBool) {
    // A C++ bool must hold 0 or 1; numpy treats any non-zero byte as true.
    auto* b = static_cast<unsigned char*>(t.mutable_raw_data());
    for (uint64_t i = 0; i < count; ++i) b[i] = b[i] ? 1 : 0;
  }
  return t;
}

Tensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  check_code(bool(in), ErrorCode::kNoSuchFile, "cannot open .npy file '", path, "'");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check_code(!in.bad(), ErrorCode::kNoSuchFile, "error reading .npy file '", path, "'");
  return parse_npy(bytes.data(), bytes.size(), path);
}

std::string serialize_npy(const Tensor& t) {
  check(t.defined(), "serialize_npy: the tensor is undefined");
  check(t.memory_info().host_accessible(), "serialize_npy: tensor ", t.description(),
        " is not in host memory");
  std::string dict = str_cat("{'descr': '", npy_dtype_string(t.dtype()),
                             "', 'fortran_order': False, 'shape': ", shape_tuple(t.shape()), ", }");
  // Pad with spaces so magic + version + length + header (ending in '\n') is
  // a multiple of 64 bytes, as numpy does.
  auto padded = [&](size_t prefix) {
    size_t total = prefix + dict.size() + 1;
    return dict + std::string((kAlign - total % kAlign) % kAlign, ' ') + "\n";
  };
  std::string header = padded(10);
  int major = 1;
  if (header.size() > 0xffff) {
    header = padded(12);
    major = 2;
  }
  std::string out(kMagic, kMagicLen);
  out += char(major);
  out += char(0);
  size_t n = header.size();
  out += char(n & 0xff);
  out += char((n >> 8) & 0xff);
  if (major == 2) {
    out += char((n >> 16) & 0xff);
    out += char((n >> 24) & 0xff);
  }
  out += header;
  out.append(static_cast<const char*>(t.raw_data()), t.byte_size());
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  std::string bytes;
  try {
    bytes = serialize_npy(t);
  } catch (const Error& e) {
    throw Error(e.code(), str_cat("cannot write '", path, "': ", e.what()));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  check_code(bool(out), ErrorCode::kNoSuchFile, "cannot open '", path, "' for writing");
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  check_code(!out.fail(), ErrorCode::kFail, "error writing '", path, "'");
}

}  // namespace tessera
