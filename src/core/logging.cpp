#include "core/logging.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace tessera {

namespace {
std::atomic<int> g_severity{int(Severity::kWarning)};
std::mutex g_mu;
std::function<void(Severity, const std::string&)> g_sink;
const char* sev_letter(Severity s) {
  static const char* names[] = {"V", "I", "W", "E", "F"};
  return names[int(s)];
}
}  // namespace

void set_log_severity(Severity s) { g_severity = int(s); }
Severity log_severity() { return Severity(g_severity.load()); }

void set_log_sink(std::function<void(Severity, const std::string&)> sink) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_sink = std::move(sink);
}

void log_line(Severity s, const std::string& tag, const std::string& message) {
  std::lock_guard<std::mutex> lock(g_mu);
  std::string line = str_cat("[tessera ", sev_letter(s), (tag.empty() ? "" : " "), tag, "] ",
                             message);
  if (g_sink) {
    g_sink(s, line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace tessera
