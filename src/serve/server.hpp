// `tessera serve`: loads a model repository and serves it over HTTP with the
// Open Inference Protocol until SIGINT or SIGTERM (docs/serving.md).
#pragma once
#include <cstddef>
#include <string>

namespace tessera::serve {

struct ServeOptions {
  std::string model_repository;
  std::string host = "0.0.0.0";
  int http_port = 8000;   // 0: any free port (printed at start)
  int metrics_port = -1;  // GET /metrics (Prometheus); -1: not served, 0: any free port
  size_t max_body_bytes = size_t{64} << 20;
  // Threads answering HTTP requests (each holds one request, and waits with
  // it while its batch gathers); 0: cpp-httplib's default, max(8, cores - 1).
  int http_threads = 0;
};

// Serves until a stop signal; returns the process exit status.
int serve(const ServeOptions& options);

}  // namespace tessera::serve
