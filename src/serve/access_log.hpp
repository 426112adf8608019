// The access log: one JSON object per line for each inference request, on
// standard error or appended to a file (--access-log), written whole with
// one write so that lines of concurrent requests never interleave:
//
//   {"time":"2026-11-28T10:06:10.029436Z","transport":"http","model":"add_mul",
//    "version":"2","id":"req-7","status":200,"batch_size":1,"queue_us":1,
//    "compute_us":91,"total_us":236,"bytes_in":198,"bytes_out":137}
//
// gRPC lines add "grpc_code"; failed requests add "error".
#pragma once
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

namespace tessera::serve {

struct RequestRecord;

class AccessLog {
 public:
  // "stderr", "none" (nothing is written) or a file to append to; throws
  // std::runtime_error naming a file that cannot be opened.
  explicit AccessLog(const std::string& where);
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  void write(const RequestRecord& record, std::chrono::steady_clock::duration total);

 private:
  int fd_ = -1;  // -1: off
  bool owned_ = false;
  std::mutex mutex_;
};

// The line write() writes for `record` (without its newline).
std::string access_log_line(const RequestRecord& record, std::chrono::steady_clock::duration total);

}  // namespace tessera::serve
