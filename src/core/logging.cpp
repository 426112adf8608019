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
thread_local const Logger* t_logger = nullptr;
// The innermost ScopedLogSink of this thread (null: none) and its severity.
thread_local std::shared_ptr<const LogRecordSink> t_scoped_sink;
thread_local Severity t_scoped_min = Severity::kWarning;
const char* sev_letter(Severity s) {
  static const char* names[] = {"V", "I", "W", "E", "F"};
  return names[int(s)];
}
}  // namespace

void set_log_severity(Severity s) { g_severity = int(s); }
Severity log_severity() { return Severity(g_severity.load()); }

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

LoggerScope::LoggerScope(const Logger& logger) : previous_(t_logger) { t_logger = &logger; }
LoggerScope::~LoggerScope() { t_logger = previous_; }
const Logger* current_logger() { return t_logger; }

// Within a ScopedLogSink the scope's severity filters (a session may log
// more, or less, than the process); else the thread's logger's, else the
// default's.
Severity active_log_severity() {
  if (t_scoped_sink) return t_scoped_min;
  if (t_logger != nullptr && t_logger->severity >= 0) return Severity(t_logger->severity);
  return log_severity();
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
  const std::string& id = t_logger != nullptr ? t_logger->id : tag;
  const bool own_id = t_logger != nullptr && !id.empty();
  if (record_sink) {
    (*record_sink)(s, own_id ? id : tag, message);
    return;
  }
  // The line names the logger's id and the part of the runtime that logged.
  std::string prefix = own_id && !tag.empty() && tag != id ? str_cat(id, " ", tag)
                       : own_id                            ? id
                                                           : tag;
  std::lock_guard<std::mutex> lock(g_mu);
  std::string line =
      str_cat("[tessera ", sev_letter(s), (prefix.empty() ? "" : " "), prefix, "] ", message);
  if (g_sink) {
    g_sink(s, line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace tessera
