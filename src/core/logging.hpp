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
void log_line(Severity s, const std::string& tag, const std::string& message);

template <typename... Args>
void log(Severity s, const std::string& tag, Args&&... args) {
  if (s >= log_severity()) log_line(s, tag, str_cat(std::forward<Args>(args)...));
}

}  // namespace tessera
