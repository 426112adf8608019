// A small structured logger: severity-filtered lines to stderr (or a sink a
// test installs). Severity numbers follow ONNX Runtime's: 0 verbose .. 4 fatal.
// The default logger's severity is process-wide; a session or run installs
// its own Logger on the thread doing its work (LoggerScope), so its level and
// id apply to what that thread logs for it and to nothing else.
#pragma once
#include <functional>
#include <string>

#include "core/error.hpp"

namespace tessera {

enum class Severity { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

void set_log_severity(Severity s);  // the default logger's
Severity log_severity();            // the default logger's

// A session's or run's logger. Unset severity follows the default logger's
// (read when a record is filtered, so set_log_severity still reaches it).
// `verbosity` is onnxruntime's log_verbosity_level, kept with the logger.
struct Logger {
  int severity = -1;  // -1: the default logger's, else 0..4
  int verbosity = 0;
  std::string id;
};

// Installs a logger for the current thread until destroyed (nesting restores
// the previous one). The logger must outlive the scope.
class LoggerScope {
 public:
  explicit LoggerScope(const Logger& logger);
  ~LoggerScope();
  LoggerScope(const LoggerScope&) = delete;
  LoggerScope& operator=(const LoggerScope&) = delete;

 private:
  const Logger* previous_;
};

const Logger* current_logger();  // null when none is installed on this thread
Severity active_log_severity();  // the current logger's, else the default's
void set_log_sink(std::function<void(Severity, const std::string&)> sink);  // null: stderr

// A sink for the record's parts rather than the formatted line, for a host
// that hands them to its own logger (the Python package's logger callback).
// `logid` is the current logger's id, or the record's tag when it has none.
// While one is set it receives every record that passes the severity filter
// and the line sink gets none; null removes it. It is called outside the
// logger's lock, so it may take locks of its own (an interpreter's) without
// ordering against threads that log while holding them.
using LogRecordSink =
    std::function<void(Severity, const std::string& logid, const std::string& message)>;
void set_log_record_sink(LogRecordSink sink);
void log_line(Severity s, const std::string& tag, const std::string& message);

template <typename... Args>
void log(Severity s, const std::string& tag, Args&&... args) {
  if (s >= active_log_severity()) log_line(s, tag, str_cat(std::forward<Args>(args)...));
}

}  // namespace tessera
