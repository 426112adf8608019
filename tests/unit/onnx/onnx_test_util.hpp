// Helpers for the ONNX reader/writer tests: a temp folder and hand-built
// protobuf messages (for fields the writer never emits).
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "onnx/wire_writer.hpp"

namespace tessera::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tessera_onnx_XXXXXX").string();
    char* p = ::mkdtemp(tmpl.data());
    if (!p) throw std::runtime_error("mkdtemp failed");
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

// A message built field by field.
struct Msg {
  std::string bytes;
  Msg& varint(uint32_t field, uint64_t v) {
    onnx::WireWriter(bytes).varint(field, v);
    return *this;
  }
  Msg& str(uint32_t field, const std::string& s) {
    onnx::WireWriter(bytes).bytes(field, s);
    return *this;
  }
  Msg& msg(uint32_t field, const Msg& m) { return str(field, m.bytes); }
  Msg& f32(uint32_t field, float v) {
    onnx::WireWriter(bytes).fixed32_float(field, v);
    return *this;
  }
  Msg& f64(uint32_t field, double v) {
    onnx::WireWriter(bytes).fixed64_double(field, v);
    return *this;
  }
  template <typename T>
  Msg& packed(uint32_t field, const std::vector<T>& v) {
    onnx::WireWriter(bytes).packed_varints(field, v);
    return *this;
  }
  Msg& packed_raw(uint32_t field, const void* p, size_t n) {
    onnx::WireWriter(bytes).packed_fixed(field, p, n);
    return *this;
  }
  // A raw tag + length prefix claiming `len` bytes, followed by `actual`.
  Msg& lying_length(uint32_t field, uint64_t len, const std::string& actual = "") {
    onnx::WireWriter w(bytes);
    w.raw_varint((uint64_t(field) << 3) | 2);
    w.raw_varint(len);
    bytes += actual;
    return *this;
  }
};

// Runs fn, expecting a tessera::Error with `code` whose message contains `needle`.
template <typename Fn>
void expect_error(Fn&& fn, ErrorCode code, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << error_code_name(e.code()) << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' lacks '" << needle << "'";
  }
}

}  // namespace tessera::test
