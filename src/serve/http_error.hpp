// A request that cannot be served: the HTTP status the protocol gives it and
// a message naming the model, the tensor and what is wrong. Routes turn it
// into {"error": message}.
#pragma once
#include <stdexcept>
#include <string>

namespace tessera::serve {

class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

}  // namespace tessera::serve
