// ScopedLogSink: a thread's records go to the scope's sink at its severity,
// scopes nest, other threads and the time after the scope are untouched.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/log_scope.hpp"

namespace tessera {
namespace {

struct Collected {
  std::vector<std::string> messages;
  std::shared_ptr<const LogRecordSink> sink() {
    return std::make_shared<const LogRecordSink>(
        [this](Severity, const std::string& tag, const std::string& message) {
          messages.push_back(tag + ":" + message);
        });
  }
};

// Restores the process's sink and severity whatever a test set.
class LogScope : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = log_severity();
    set_log_record_sink([this](Severity, const std::string& tag, const std::string& message) {
      process_.push_back(tag + ":" + message);
    });
    set_log_severity(Severity::kWarning);
  }
  void TearDown() override {
    set_log_record_sink(nullptr);
    set_log_severity(saved_);
  }
  std::vector<std::string> process_;
  Severity saved_ = Severity::kWarning;
};

TEST_F(LogScope, RecordsGoToTheScopesSinkAtItsSeverity) {
  Collected own;
  {
    const ScopedLogSink scope(own.sink(), Severity::kVerbose);
    EXPECT_EQ(active_log_severity(), Severity::kVerbose);
    log(Severity::kVerbose, "s", "detail");
    log(Severity::kError, "s", "bad");
  }
  EXPECT_EQ(own.messages, (std::vector<std::string>{"s:detail", "s:bad"}));
  EXPECT_TRUE(process_.empty()) << "the process's sink got a scoped record";
  EXPECT_EQ(log_severity(), Severity::kWarning);
  log(Severity::kWarning, "p", "after");
  EXPECT_EQ(process_, (std::vector<std::string>{"p:after"}));
  EXPECT_EQ(own.messages.size(), 2u);
}

TEST_F(LogScope, ScopesNestAndANullSinkChangesNothing) {
  Collected outer, inner;
  {
    const ScopedLogSink a(outer.sink(), Severity::kInfo);
    {
      const ScopedLogSink b(inner.sink(), Severity::kError);
      log(Severity::kWarning, "t", "filtered");
      log(Severity::kError, "t", "inner");
      const ScopedLogSink none(nullptr, Severity::kVerbose);
      log(Severity::kError, "t", "still inner");
    }
    log(Severity::kInfo, "t", "outer");
  }
  EXPECT_EQ(inner.messages, (std::vector<std::string>{"t:inner", "t:still inner"}));
  EXPECT_EQ(outer.messages, (std::vector<std::string>{"t:outer"}));
  EXPECT_TRUE(process_.empty());
}

TEST_F(LogScope, AScopeCoversItsOwnThreadOnly) {
  Collected own;
  const ScopedLogSink scope(own.sink(), Severity::kVerbose);
  std::thread other([] { log(Severity::kError, "o", "elsewhere"); });
  other.join();
  EXPECT_TRUE(own.messages.empty());
  EXPECT_EQ(process_, (std::vector<std::string>{"o:elsewhere"}));
}

}  // namespace
}  // namespace tessera
