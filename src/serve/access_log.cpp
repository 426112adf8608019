#include "serve/access_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "serve/request_record.hpp"

namespace tessera::serve {
namespace {

// RFC 3339 in UTC with microseconds.
std::string utc_time(std::chrono::system_clock::time_point t) {
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(us / 1000000);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[40];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  std::snprintf(text + n, sizeof text - n, ".%06lldZ", static_cast<long long>(us % 1000000));
  return text;
}

int64_t micros(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

}  // namespace

std::string access_log_line(const RequestRecord& r, std::chrono::steady_clock::duration total) {
  nlohmann::ordered_json line = {{"time", utc_time(r.wall_arrival)},
                                 {"transport", r.transport},
                                 {"model", r.model},
                                 {"version", r.version},
                                 {"id", r.trace.id},
                                 {"status", r.status}};
  if (!r.grpc_code.empty()) line["grpc_code"] = r.grpc_code;
  line["batch_size"] = r.trace.batch_size;
  line["queue_us"] = micros(r.trace.queue);
  line["compute_us"] = micros(r.trace.compute);
  line["total_us"] = micros(total);
  line["bytes_in"] = r.bytes_in;
  line["bytes_out"] = r.bytes_out;
  if (!r.error.empty()) line["error"] = r.error;
  // Names and ids come from clients: invalid UTF-8 is replaced, not thrown.
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

AccessLog::AccessLog(const std::string& where) {
  if (where == "none") return;
  if (where == "stderr") {
    fd_ = STDERR_FILENO;
    return;
  }
  fd_ = ::open(where.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("--access-log: cannot open " + where + ": " + std::strerror(errno));
  owned_ = true;
}

AccessLog::~AccessLog() {
  if (owned_) ::close(fd_);
}

void AccessLog::write(const RequestRecord& record, std::chrono::steady_clock::duration total) {
  if (fd_ < 0) return;
  const std::string line = access_log_line(record, total) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a log that cannot be written does not fail requests
    done += static_cast<size_t>(n);
  }
}

}  // namespace tessera::serve
