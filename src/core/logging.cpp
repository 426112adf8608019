#include "core/logging.hpp"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>

#include "core/log_scope.hpp"

namespace tessera {

namespace {
std::atomic<int> g_severity{int(Severity::kWarning)};
std::mutex g_mu;
std::function<void(Severity, const std::string&)> g_sink;
// Shared so that a record being delivered keeps its sink alive while another
// thread replaces it.
std::shared_ptr<const LogRecordSink> g_record_sink;
// The innermost ScopedLogSink of this thread (null: none) and its severity.
thread_local std::shared_ptr<const LogRecordSink> t_scoped_sink;
thread_local Severity t_scoped_min = Severity::kWarning;
const char* sev_letter(Severity s) {
  static const char* names[] = {"V", "I", "W", "E", "F"};
  return names[int(s)];
}
}  // namespace

void set_log_severity(Severity s) { g_severity = int(s); }
// Within a scope the scope's severity filters (a session may log more, or
// less, than the process).
Severity log_severity() { return t_scoped_sink ? t_scoped_min : Severity(g_severity.load()); }

ScopedLogSink::ScopedLogSink(std::shared_ptr<const LogRecordSink> sink, Severity min_severity) {
  if (!sink) return;
  active_ = true;
  previous_ = std::exchange(t_scoped_sink, std::move(sink));
  previous_min_ = std::exchange(t_scoped_min, min_severity);
}

ScopedLogSink::~ScopedLogSink() {
  if (!active_) return;
  t_scoped_sink = std::move(previous_);
  t_scoped_min = previous_min_;
}

void set_log_sink(std::function<void(Severity, const std::string&)> sink) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_sink = std::move(sink);
}

void set_log_record_sink(LogRecordSink sink) {
  std::shared_ptr<const LogRecordSink> next;
  if (sink) next = std::make_shared<const LogRecordSink>(std::move(sink));
  std::shared_ptr<const LogRecordSink> previous;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    previous = std::exchange(g_record_sink, std::move(next));
  }
  // `previous` is released here, outside the lock: its destructor may run
  // host code (dropping an interpreter's reference).
}

void log_line(Severity s, const std::string& tag, const std::string& message) {
  if (t_scoped_sink) {
    if (s >= t_scoped_min) (*t_scoped_sink)(s, tag, message);
    return;
  }
  std::shared_ptr<const LogRecordSink> record_sink;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    record_sink = g_record_sink;
  }
  if (record_sink) {
    (*record_sink)(s, tag, message);
    return;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  std::string line =
      str_cat("[tessera ", sev_letter(s), (tag.empty() ? "" : " "), tag, "] ", message);
  if (g_sink) {
    g_sink(s, line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace tessera
