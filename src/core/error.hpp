// One error mechanism for the whole runtime: tessera::Error carries a code
// (mapped once at each API boundary to a C status or Python exception class)
// and a message that says what and where.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tessera {

enum class ErrorCode {
  kFail,
  kInvalidArgument,
  kNoSuchFile,
  kNoModel,
  kInvalidProtobuf,
  kInvalidGraph,
  kNotImplemented,
  kRuntimeException,
  kEPFail,
  kOutOfMemory,
  kTerminated,
};

const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

template <typename... Args>
std::string str_cat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

template <typename... Args>
[[noreturn]] void fail(ErrorCode code, Args&&... args) {
  throw Error(code, str_cat(std::forward<Args>(args)...));
}

// Checks a condition and throws kInvalidArgument with the concatenated message.
template <typename... Args>
void check(bool condition, Args&&... args) {
  if (!condition) fail(ErrorCode::kInvalidArgument, std::forward<Args>(args)...);
}

template <typename... Args>
void check_code(bool condition, ErrorCode code, Args&&... args) {
  if (!condition) fail(code, std::forward<Args>(args)...);
}

}  // namespace tessera
