// A bounds-checked protobuf wire decoder. Every length is checked against the
// bytes actually left, nesting depth is capped so hostile input cannot exhaust
// the stack, and errors name the source and the message path being read
// (e.g. "model.onnx: graph.node[3].attribute[1]: ...").
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace tessera::onnx {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Nested messages deeper than this are refused (a graph inside a node inside an
// attribute costs three levels, so this allows ~20 levels of subgraphs).
constexpr int kMaxNestingDepth = 64;

struct SuppliedExternalData;  // external_data.hpp

// Shared across one parse: where the bytes came from and the message path.
class ParseContext {
 public:
  explicit ParseContext(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }
  // What the application hands in for external data (none: nullptr).
  void set_supplied(const SuppliedExternalData* s) { supplied_ = s; }
  const SuppliedExternalData* supplied() const { return supplied_; }
  // The folder of the model file's real path (its symlinks resolved), where
  // external data may also live; "" when the model did not come from a file.
  void set_model_real_dir(std::string dir) { model_real_dir_ = std::move(dir); }
  const std::string& model_real_dir() const { return model_real_dir_; }
  // A model read from a mapped file: raw tensor bytes, once copied out, are
  // handed back through this so the file's pages do not stay resident next
  // to the copies (which doubled the peak memory of loading a model).
  void set_done_with(std::function<void(const void*, size_t)> fn) { done_with_ = std::move(fn); }
  void done_with(const void* p, size_t n) const {
    if (done_with_) done_with_(p, n);
  }
  // "graph.node[3].attribute[1]"
  std::string path() const;
  int depth() const { return int(path_.size()); }

  void push(const char* field, int64_t index);
  void pop() { path_.pop_back(); }

  template <typename... Args>
  [[noreturn]] void fail(Args&&... args) const {
    fail_code(ErrorCode::kInvalidProtobuf, std::forward<Args>(args)...);
  }
  template <typename... Args>
  [[noreturn]] void fail_code(ErrorCode code, Args&&... args) const {
    std::string where = path();
    tessera::fail(code, source_, ": ", where.empty() ? std::string() : where + ": ",
                  std::forward<Args>(args)...);
  }

 private:
  struct Segment {
    const char* field;
    int64_t index;  // -1 when the field is not repeated
  };
  std::string source_;
  std::vector<Segment> path_;
  std::function<void(const void*, size_t)> done_with_;
  const SuppliedExternalData* supplied_ = nullptr;
  std::string model_real_dir_;
};

// Enters a nested message for the lifetime of the guard (path + depth check).
class PathGuard {
 public:
  PathGuard(ParseContext& ctx, const char* field, int64_t index = -1) : ctx_(ctx) {
    ctx_.push(field, index);
  }
  ~PathGuard() { ctx_.pop(); }
  PathGuard(const PathGuard&) = delete;
  PathGuard& operator=(const PathGuard&) = delete;

 private:
  ParseContext& ctx_;
};

struct Field {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;             // varint, fixed64 or fixed32 payload
  const uint8_t* data = nullptr;  // length-delimited payload
  size_t size = 0;
};

// Iterates the fields of one message. Unknown fields are the caller's to ignore:
// every field is fully consumed by next(), so skipping is just not looking.
class WireReader {
 public:
  WireReader(ParseContext& ctx, const void* data, size_t size)
      : ctx_(ctx), p_(static_cast<const uint8_t*>(data)), end_(p_ + size) {}

  bool next(Field& f);
  size_t remaining() const { return size_t(end_ - p_); }

  // Typed views of the current field; each checks the wire type.
  ParseContext& ctx() const { return ctx_; }
  uint64_t as_varint(const Field& f, const char* name) const;
  int64_t as_int64(const Field& f, const char* name) const { return int64_t(as_varint(f, name)); }
  int32_t as_int32(const Field& f, const char* name) const;
  bool as_bool(const Field& f, const char* name) const { return as_varint(f, name) != 0; }
  float as_float(const Field& f, const char* name) const;
  double as_double(const Field& f, const char* name) const;
  std::string_view as_bytes(const Field& f, const char* name) const;
  std::string as_string(const Field& f, const char* name) const {
    return std::string(as_bytes(f, name));
  }

  // Repeated scalars, packed (one length-delimited field) or not (one field per
  // element); values are appended.
  void append_varints(const Field& f, const char* name, std::vector<int64_t>& out) const;
  void append_varints(const Field& f, const char* name, std::vector<int32_t>& out) const;
  void append_varints(const Field& f, const char* name, std::vector<uint64_t>& out) const;
  void append_floats(const Field& f, const char* name, std::vector<float>& out) const;
  void append_doubles(const Field& f, const char* name, std::vector<double>& out) const;

  [[noreturn]] void wrong_type(const Field& f, const char* name, const char* expected) const;

 private:
  uint64_t read_varint(const uint8_t*& p, const uint8_t* end, const char* what) const;
  void skip_group(uint32_t number);

  ParseContext& ctx_;
  const uint8_t* p_;
  const uint8_t* end_;
};

const char* wire_type_name(WireType t);

}  // namespace tessera::onnx
