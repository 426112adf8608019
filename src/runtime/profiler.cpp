#include "runtime/profiler.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>

#include "core/error.hpp"

namespace tessera::runtime {

namespace {
std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      o += ' ';
      continue;
    }
    o += c;
  }
  return o;
}
}  // namespace

void Profiler::start(std::string prefix) {
  enabled_ = true;
  prefix_ = std::move(prefix);
  start_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now().time_since_epoch())
                  .count();
}

int64_t Profiler::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Profiler::record_memory(const std::string& provider, int64_t t, size_t in_use, size_t peak,
                             size_t reserved, size_t num_allocs) {
  std::lock_guard<std::mutex> lock(mu_);
  memory_.push_back({provider, t, in_use, peak, reserved, num_allocs});
}

void Profiler::record(Event e) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(e));
}

std::string Profiler::finish() {
  if (!enabled_) return "";
  std::lock_guard<std::mutex> lock(mu_);
  auto wall = std::chrono::system_clock::now().time_since_epoch();
  std::string path = str_cat(prefix_, "_",
                             std::chrono::duration_cast<std::chrono::milliseconds>(wall).count(),
                             ".json");
  std::ofstream f(path);
  check_code(bool(f), ErrorCode::kFail, "cannot write profile file '", path, "'");
  // Every event carries the fields trace readers (and onnxruntime's profile
  // parsers) index without checking: pid, tid, dur, ts, ph, name, args.
  const long pid = long(::getpid());
  f << "[\n";
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    f << (i ? ",\n" : "") << "{\"name\":\"" << json_escape(e.name) << "\",\"cat\":\"" << e.category
      << "\",\"ph\":\"X\",\"ts\":" << (e.start_ns - start_ns_) / 1000.0
      << ",\"dur\":" << (e.end_ns - e.start_ns) / 1000.0 << ",\"pid\":" << pid
      << ",\"tid\":" << e.thread << ",\"args\":{\"op_name\":\"" << json_escape(e.op_type)
      << "\",\"provider\":\"" << json_escape(e.provider) << "\"}}";
  }
  for (size_t i = 0; i < memory_.size(); ++i) {
    const Memory& m = memory_[i];
    f << (i || !events_.empty() ? ",\n" : "") << "{\"name\":\"memory " << json_escape(m.provider)
      << "\",\"cat\":\"Memory\",\"ph\":\"C\",\"ts\":" << (m.t - start_ns_) / 1000.0
      << ",\"dur\":0,\"pid\":" << pid << ",\"tid\":0,\"args\":{\"in_use\":" << m.in_use
      << ",\"peak\":" << m.peak << ",\"reserved\":" << m.reserved
      << ",\"num_allocs\":" << m.num_allocs << "}}";
  }
  f << "\n]\n";
  events_.clear();
  memory_.clear();
  enabled_ = false;
  return path;
}

}  // namespace tessera::runtime
