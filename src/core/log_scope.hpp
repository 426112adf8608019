// A logger of one's own for a stretch of work on one thread: while a
// ScopedLogSink lives, the records this thread logs at or above its severity
// go to its sink instead of the process's (a session's own logger, which the
// C API's SetUserLoggingFunction installs, sees what its session logs while
// it is created and while it runs). Scopes nest; the innermost wins.
#pragma once
#include <memory>

#include "core/logging.hpp"

namespace tessera {

class ScopedLogSink {
 public:
  // sink null: the scope changes nothing (a session without its own logger).
  ScopedLogSink(std::shared_ptr<const LogRecordSink> sink, Severity min_severity);
  ~ScopedLogSink();
  ScopedLogSink(const ScopedLogSink&) = delete;
  ScopedLogSink& operator=(const ScopedLogSink&) = delete;

 private:
  bool active_ = false;
  std::shared_ptr<const LogRecordSink> previous_;
  Severity previous_min_ = Severity::kWarning;
};

}  // namespace tessera
