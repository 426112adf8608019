// A small structured logger: severity-filtered lines to stderr (or a sink a
// test installs). Severity numbers follow ONNX Runtime's: 0 verbose .. 4 fatal.
#pragma once
#include <functional>
#include <string>

#include "core/error.hpp"

namespace tessera {

enum class Severity { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

void set_log_severity(Severity s);
Severity log_severity();
void set_log_sink(std::function<void(Severity, const std::string&)> sink);  // null: stderr

// A sink for the record's parts rather than the formatted line, for a host
// that hands them to its own logger (the Python package's logger callback).
// While one is set it receives every record that passes the severity filter
// and the line sink gets none; null removes it. It is called outside the
// logger's lock, so it may take locks of its own (an interpreter's) without
// ordering against threads that log while holding them.
using LogRecordSink =
    std::function<void(Severity, const std::string& tag, const std::string& message)>;
void set_log_record_sink(LogRecordSink sink);
void log_line(Severity s, const std::string& tag, const std::string& message);

template <typename... Args>
void log(Severity s, const std::string& tag, Args&&... args) {
  if (s >= log_severity()) log_line(s, tag, str_cat(std::forward<Args>(args)...));
}

}  // namespace tessera
