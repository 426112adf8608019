#include "onnx/wire_reader.hpp"

#include <cstring>

namespace tessera::onnx {

const char* wire_type_name(WireType t) {
  switch (t) {
    case WireType::kVarint: return "varint";
    case WireType::kFixed64: return "fixed64";
    case WireType::kLen: return "length-delimited";
    case WireType::kStartGroup: return "start-group";
    case WireType::kEndGroup: return "end-group";
    case WireType::kFixed32: return "fixed32";
  }
  return "invalid";
}

std::string ParseContext::path() const {
  std::string out;
  for (const auto& s : path_) {
    if (!out.empty()) out += '.';
    out += s.field;
    if (s.index >= 0) {
      out += '[';
      out += std::to_string(s.index);
      out += ']';
    }
  }
  return out;
}

void ParseContext::push(const char* field, int64_t index) {
  path_.push_back({field, index});
  if (int(path_.size()) > kMaxNestingDepth) {
    path_.pop_back();
    fail("messages nested deeper than ", kMaxNestingDepth, " levels (at '", field, "')");
  }
}

uint64_t WireReader::read_varint(const uint8_t*& p, const uint8_t* end, const char* what) const {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) ctx_.fail("truncated varint in ", what, " (", size_t(end_ - p_), " bytes left)");
    uint8_t b = *p++;
    if (shift == 63 && (b & 0x7e)) ctx_.fail("varint in ", what, " overflows 64 bits");
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  ctx_.fail("varint in ", what, " longer than 10 bytes");
}

bool WireReader::next(Field& f) {
  if (p_ >= end_) return false;
  uint64_t tag = read_varint(p_, end_, "field tag");
  uint64_t number = tag >> 3;
  uint32_t wt = uint32_t(tag & 7);
  if (number == 0 || number > 0x1fffffff) ctx_.fail("invalid field number ", number);
  f.number = uint32_t(number);
  f.type = static_cast<WireType>(wt);
  f.value = 0;
  f.data = nullptr;
  f.size = 0;
  switch (f.type) {
    case WireType::kVarint:
      f.value = read_varint(p_, end_, "field value");
      return true;
    case WireType::kFixed64:
      if (remaining() < 8)
        ctx_.fail("field ", number, ": fixed64 past end of data (", remaining(), " bytes left)");
      std::memcpy(&f.value, p_, 8);
      p_ += 8;
      return true;
    case WireType::kFixed32: {
      if (remaining() < 4)
        ctx_.fail("field ", number, ": fixed32 past end of data (", remaining(), " bytes left)");
      uint32_t v;
      std::memcpy(&v, p_, 4);
      f.value = v;
      p_ += 4;
      return true;
    }
    case WireType::kLen: {
      uint64_t len = read_varint(p_, end_, "field length");
      if (len > remaining())
        ctx_.fail("field ", number, ": length ", len, " past end of data (", remaining(),
                  " bytes left)");
      f.data = p_;
      f.size = size_t(len);
      p_ += len;
      return true;
    }
    case WireType::kStartGroup:
      skip_group(f.number);
      return true;
    case WireType::kEndGroup:
      ctx_.fail("field ", number, ": unexpected end-group tag");
  }
  ctx_.fail("field ", number, ": invalid wire type ", wt);
}

// Deprecated groups never appear in ONNX files, but an unknown field may be
// one; skip it with an explicit depth counter rather than recursion.
void WireReader::skip_group(uint32_t number) {
  std::vector<uint32_t> open{number};
  while (!open.empty()) {
    if (p_ >= end_) ctx_.fail("group ", open.back(), " not closed before end of data");
    uint64_t tag = read_varint(p_, end_, "field tag");
    uint32_t n = uint32_t(tag >> 3);
    switch (static_cast<WireType>(tag & 7)) {
      case WireType::kVarint: read_varint(p_, end_, "field value"); break;
      case WireType::kFixed64:
        if (remaining() < 8) ctx_.fail("fixed64 in group past end of data");
        p_ += 8;
        break;
      case WireType::kFixed32:
        if (remaining() < 4) ctx_.fail("fixed32 in group past end of data");
        p_ += 4;
        break;
      case WireType::kLen: {
        uint64_t len = read_varint(p_, end_, "field length");
        if (len > remaining())
          ctx_.fail("field ", n, ": length ", len, " past end of data (", remaining(),
                    " bytes left)");
        p_ += len;
        break;
      }
      case WireType::kStartGroup:
        if (open.size() >= size_t(kMaxNestingDepth))
          ctx_.fail("groups nested deeper than ", kMaxNestingDepth, " levels");
        open.push_back(n);
        break;
      case WireType::kEndGroup:
        if (n != open.back()) ctx_.fail("end-group ", n, " does not match group ", open.back());
        open.pop_back();
        break;
      default: ctx_.fail("field ", n, ": invalid wire type ", tag & 7);
    }
  }
}

void WireReader::wrong_type(const Field& f, const char* name, const char* expected) const {
  ctx_.fail("field ", f.number, " (", name, ") has wire type ", wire_type_name(f.type),
            ", expected ", expected);
}

uint64_t WireReader::as_varint(const Field& f, const char* name) const {
  if (f.type != WireType::kVarint) wrong_type(f, name, "varint");
  return f.value;
}

int32_t WireReader::as_int32(const Field& f, const char* name) const {
  // int32 on the wire is a sign-extended 64-bit varint; keep the low 32 bits.
  return int32_t(uint32_t(as_varint(f, name)));
}

float WireReader::as_float(const Field& f, const char* name) const {
  if (f.type != WireType::kFixed32) wrong_type(f, name, "fixed32");
  uint32_t bits = uint32_t(f.value);
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

double WireReader::as_double(const Field& f, const char* name) const {
  if (f.type != WireType::kFixed64) wrong_type(f, name, "fixed64");
  double v;
  std::memcpy(&v, &f.value, 8);
  return v;
}

std::string_view WireReader::as_bytes(const Field& f, const char* name) const {
  if (f.type != WireType::kLen) wrong_type(f, name, "length-delimited");
  return std::string_view(reinterpret_cast<const char*>(f.data), f.size);
}

namespace {
template <typename T>
void append_varints_impl(const WireReader& r, const Field& f, const char* name,
                         std::vector<T>& out) {
  if (f.type == WireType::kVarint) {
    out.push_back(T(f.value));
    return;
  }
  if (f.type != WireType::kLen) r.wrong_type(f, name, "varint or packed varints");
  const uint8_t* p = f.data;
  const uint8_t* end = f.data + f.size;
  // No reserve: the count is unknown until decoded and a short varint would let
  // a small input ask for a large allocation.
  while (p < end) {
    uint64_t v = 0;
    int shift = 0;
    for (;; shift += 7) {
      if (p >= end) r.ctx().fail("truncated packed varint in '", name, "'");
      if (shift >= 64) r.ctx().fail("packed varint in '", name, "' longer than 10 bytes");
      uint8_t b = *p++;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    out.push_back(T(v));
  }
}

template <typename T, WireType kScalar, size_t kSize>
void append_fixed_impl(const WireReader& r, const Field& f, const char* name,
                       std::vector<T>& out) {
  if (f.type == kScalar) {
    T v;
    if constexpr (kSize == 4) {
      uint32_t bits = uint32_t(f.value);
      std::memcpy(&v, &bits, 4);
    } else {
      std::memcpy(&v, &f.value, 8);
    }
    out.push_back(v);
    return;
  }
  if (f.type != WireType::kLen) r.wrong_type(f, name, "packed fixed-size values");
  if (f.size % kSize)
    r.ctx().fail("packed '", name, "' has ", f.size, " bytes, not a multiple of ", kSize);
  size_t n = f.size / kSize;
  size_t old = out.size();
  out.resize(old + n);  // the bytes are present, so this is bounded by the input
  if (n) std::memcpy(out.data() + old, f.data, f.size);
}
}  // namespace

void WireReader::append_varints(const Field& f, const char* name,
                                std::vector<int64_t>& out) const {
  append_varints_impl(*this, f, name, out);
}
void WireReader::append_varints(const Field& f, const char* name,
                                std::vector<int32_t>& out) const {
  append_varints_impl(*this, f, name, out);
}
void WireReader::append_varints(const Field& f, const char* name,
                                std::vector<uint64_t>& out) const {
  append_varints_impl(*this, f, name, out);
}
void WireReader::append_floats(const Field& f, const char* name, std::vector<float>& out) const {
  append_fixed_impl<float, WireType::kFixed32, 4>(*this, f, name, out);
}
void WireReader::append_doubles(const Field& f, const char* name,
                                std::vector<double>& out) const {
  append_fixed_impl<double, WireType::kFixed64, 8>(*this, f, name, out);
}

}  // namespace tessera::onnx
