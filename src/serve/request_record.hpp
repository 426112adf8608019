// The account of one inference request once it is answered, on either
// transport: what the metrics count and the access log writes.
#pragma once
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "serve/inference.hpp"

namespace tessera::serve {

class AccessLog;
class Metrics;

struct RequestRecord {
  RequestRecord(std::string transport, std::string model, std::string version);

  std::string transport;  // "http" or "grpc"
  std::string model;
  // The version that served it; the version asked for until one was chosen
  // (and when none could be: an unknown model, one not loaded).
  std::string version;
  bool model_found = false;  // a loaded version was chosen (only then is it counted)
  // That version, whose statistics count the request.
  std::shared_ptr<const LoadedModel> served;
  int status = 200;       // the HTTP status of the answer (gRPC: of its error's kind)
  std::string grpc_code;  // gRPC only: the status code's name
  std::string error;      // the error message, when it failed
  RequestTrace trace;
  std::chrono::system_clock::time_point wall_arrival;
  Clock::time_point arrival;
  size_t bytes_in = 0, bytes_out = 0;
};

// Counts `record` in `metrics` (when a model version was chosen) and writes
// its access-log line, the total time ending now.
void finish_request(const RequestRecord& record, Metrics& metrics, AccessLog& log);

}  // namespace tessera::serve
