// The Open Inference Protocol over gRPC (src/serve/proto/grpc_predict_v2.proto):
// the service's RPCs on the model repository, inference through the same
// run_inference as HTTP, and failures as the gRPC status codes of their
// ServeError kinds; and gRPC's health checking service (health_service.hpp).
#pragma once
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace tessera::serve {

class AccessLog;
class Metrics;
class ModelRepository;

class GrpcServer {
 public:
  // Listens on host:port (0: any free port); null after printing why not.
  static std::unique_ptr<GrpcServer> start(const std::string& host, int port,
                                           ModelRepository& repository, Metrics& metrics,
                                           AccessLog& log, size_t max_message_bytes);
  virtual ~GrpcServer() = default;
  virtual int port() const = 0;
  // Refuses new calls, lets those in flight finish for up to `grace`, then
  // cancels what is left; returns when every call has ended. Health watches
  // end at once (with NOT_SERVING).
  virtual void shutdown(std::chrono::milliseconds grace) = 0;
};

}  // namespace tessera::serve
