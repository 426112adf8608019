// A request that cannot be served, with a message naming the model, the
// tensor and what is wrong. `status` is the HTTP status the protocol gives
// it; `code` is the transport-neutral kind, which the gRPC transport answers
// as the matching gRPC status code. Two cases share HTTP 503 and differ in
// kind: a model that is not loaded (kUnavailable) and a full queue
// (kResourceExhausted).
#pragma once
#include <stdexcept>
#include <string>

namespace tessera::serve {

enum class ErrorCode {
  kInvalidArgument,
  kNotFound,
  kUnavailable,
  kResourceExhausted,
  kDeadlineExceeded,
  kFailedPrecondition,  // asked of a server whose set-up refuses it
  kInternal,
};

class ServeError : public std::runtime_error {
 public:
  ServeError(int status, const std::string& message)
      : std::runtime_error(message), status_(status), code_(code_of(status)) {}
  ServeError(int status, ErrorCode code, const std::string& message)
      : std::runtime_error(message), status_(status), code_(code) {}
  int status() const noexcept { return status_; }
  ErrorCode code() const noexcept { return code_; }

 private:
  static ErrorCode code_of(int status) {
    switch (status) {
      case 400:
        return ErrorCode::kInvalidArgument;
      case 404:
        return ErrorCode::kNotFound;
      case 413:
      case 429:
        return ErrorCode::kResourceExhausted;
      case 503:
        return ErrorCode::kUnavailable;
      case 504:
        return ErrorCode::kDeadlineExceeded;
      default:
        return ErrorCode::kInternal;
    }
  }
  int status_;
  ErrorCode code_;
};

}  // namespace tessera::serve
