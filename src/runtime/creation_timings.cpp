// Rendering of a session's creation timings, for `tessera inspect --timings`.
#include <cstdio>

#include "runtime/session.hpp"

namespace tessera {

std::string CreationTimings::to_text() const {
  size_t width = 5;
  for (const auto& p : phases) width = std::max(width, p.name.size());
  std::string out;
  char buf[64];
  double sum = 0;
  for (const auto& p : phases) {
    sum += p.ms;
    std::snprintf(buf, sizeof buf, "%10.3f ms", p.ms);
    out += str_cat("  ", p.name, std::string(width - p.name.size(), ' '), "  ", buf, "\n");
  }
  std::snprintf(buf, sizeof buf, "%10.3f ms", total_ms - sum);
  out += str_cat("  ", "(between phases)", std::string(width > 16 ? width - 16 : 0, ' '), "  ", buf,
                 "\n");
  std::snprintf(buf, sizeof buf, "%10.3f ms", total_ms);
  out += str_cat("  ", "total", std::string(width - 5, ' '), "  ", buf, "\n");
  return out;
}

}  // namespace tessera
