// `tessera serve`: loads a model repository and serves it with the Open
// Inference Protocol over HTTP and, when built with gRPC, over gRPC, until
// SIGINT or SIGTERM (docs/serving.md).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "serve/model_control.hpp"

namespace tessera::serve {

// Whether this build has the gRPC transport (cmake/serve.cmake).
#ifdef TESSERA_SERVE_GRPC
inline constexpr bool kGrpcBuilt = true;
#else
inline constexpr bool kGrpcBuilt = false;
#endif

struct ServeOptions {
  std::string model_repository;
  std::string host = "0.0.0.0";
  int http_port = 8080;   // 0: any free port (printed at start)
  int grpc_port = -1;     // -1: not served, 0: any free port (needs kGrpcBuilt)
  int metrics_port = -1;  // GET /metrics (Prometheus); -1: not served, 0: any free port
  size_t max_body_bytes = size_t{64} << 20;
  // Threads answering HTTP requests (each holds one request, and waits with
  // it while its batch gathers); 0: cpp-httplib's default, max(8, cores - 1).
  int http_threads = 0;
  // After a stop signal: how long calls in flight may take to finish before
  // what is left of them is cancelled (gRPC; HTTP requests in flight always
  // finish).
  int grace_seconds = 30;
  // Where each inference request's access-log line goes: "stderr", "none"
  // or a file to append to (access_log.hpp).
  std::string access_log = "stderr";
  // How the served models may change (model_control.hpp).
  ModelControl model_control = ModelControl::kNone;
  // With ModelControl::kPoll: every this many seconds the repository folder
  // is read again and the models brought in line with it
  // (ModelRepository::poll).
  int repository_poll_secs = 0;
  // With ModelControl::kExplicit: the models to load at start ("*": all).
  std::vector<std::string> load_models;
};

// Serves until a stop signal; returns the process exit status.
int serve(const ServeOptions& options);

}  // namespace tessera::serve
