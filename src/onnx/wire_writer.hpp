// Appends protobuf wire-format fields to a string. Nested messages are built
// in their own string and then written length-prefixed.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::onnx {

class WireWriter {
 public:
  explicit WireWriter(std::string& out) : out_(out) {}

  void varint(uint32_t field, uint64_t v) {
    tag(field, 0);
    raw_varint(v);
  }
  void int64(uint32_t field, int64_t v) { varint(field, uint64_t(v)); }
  // int32 fields are sign-extended to 64 bits on the wire.
  void int32(uint32_t field, int32_t v) { varint(field, uint64_t(int64_t(v))); }
  void fixed32_float(uint32_t field, float v) {
    tag(field, 5);
    append_raw(&v, 4);
  }
  void fixed64_double(uint32_t field, double v) {
    tag(field, 1);
    append_raw(&v, 8);
  }
  void bytes(uint32_t field, std::string_view b) {
    tag(field, 2);
    raw_varint(b.size());
    out_.append(b.data(), b.size());
  }
  // Skips the field when empty (proto2 optional strings left unset).
  void string_if(uint32_t field, std::string_view s) {
    if (!s.empty()) bytes(field, s);
  }
  void message(uint32_t field, const std::string& encoded) { bytes(field, encoded); }

  template <typename T>
  void packed_varints(uint32_t field, const std::vector<T>& v) {
    if (v.empty()) return;
    std::string body;
    WireWriter w(body);
    for (T x : v) w.raw_varint(uint64_t(int64_t(x)));
    bytes(field, body);
  }
  template <typename T>
  void unpacked_varints(uint32_t field, const std::vector<T>& v) {
    for (T x : v) varint(field, uint64_t(int64_t(x)));
  }
  void packed_fixed(uint32_t field, const void* data, size_t n_bytes) {
    if (!n_bytes) return;
    bytes(field, std::string_view(static_cast<const char*>(data), n_bytes));
  }

  void raw_varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(char(uint8_t(v) | 0x80));
      v >>= 7;
    }
    out_.push_back(char(v));
  }

 private:
  void tag(uint32_t field, uint32_t wire_type) { raw_varint((uint64_t(field) << 3) | wire_type); }
  void append_raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }

  std::string& out_;
};

}  // namespace tessera::onnx
