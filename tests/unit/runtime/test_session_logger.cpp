// Each session and run logs through its own logger: its severity filters its
// records only, and its records carry its id; the default logger's severity
// is left as the application set it.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "core/logging.hpp"
#include "runtime/session.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;

namespace {

ir::Model relu_model() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.name = "relu";
  const std::vector<ir::Dim> dims{ir::Dim{3, ""}};
  m.graph.inputs.push_back({"x", ir::TypeInfo::tensor(DataType::kFloat, dims), ""});
  m.graph.nodes.push_back(test::make_node("Relu", {"x"}, {"y"}));
  m.graph.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kFloat, dims), ""});
  return m;
}

struct Record {
  Severity severity;
  std::string logid, message;
};

// Collects records through the record sink while alive; restores the
// default logger afterwards.
struct RecordCapture {
  std::mutex mu;
  std::vector<Record> records;
  RecordCapture() {
    set_log_severity(Severity::kWarning);
    set_log_record_sink([this](Severity s, const std::string& logid, const std::string& message) {
      std::lock_guard<std::mutex> lock(mu);
      records.push_back({s, logid, message});
    });
  }
  ~RecordCapture() {
    set_log_record_sink(nullptr);
    set_log_severity(Severity::kWarning);
  }
  std::vector<std::string> messages_of(const std::string& logid) {
    std::vector<std::string> out;
    for (const auto& r : records)
      if (r.logid == logid) out.push_back(r.message);
    return out;
  }
};

void run_once(const Session& s, const RunOptions& ro = {}) {
  auto out = s.run({{"x", Tensor::from_vector<float>({-1, 0, 2}, Shape{3})}}, {}, ro);
  EXPECT_EQ(out[0].tensor().data<float>()[2], 2.0f);
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST(SessionLogger, TwoSessionsKeepTheirOwnSeverity) {
  RecordCapture capture;
  SessionOptions verbose;
  verbose.log_severity_level = 0;
  verbose.log_id = "verbose-session";
  SessionOptions quiet;
  quiet.log_severity_level = 3;
  quiet.log_id = "quiet-session";
  auto a = Session::create_from_model(relu_model(), verbose);
  auto b = Session::create_from_model(relu_model(), quiet);
  // Creating a session changes no other logger.
  EXPECT_EQ(log_severity(), Severity::kWarning);
  run_once(*a);
  run_once(*b);
  run_once(*a);
  const auto from_a = capture.messages_of("verbose-session");
  EXPECT_TRUE(has(from_a, "run started"));
  EXPECT_TRUE(has(from_a, "run finished"));
  // The verbose session's creation logged its partition at info level.
  bool partition = false;
  for (const auto& m : from_a) partition |= m.find("partition") != std::string::npos;
  EXPECT_TRUE(partition);
  EXPECT_TRUE(capture.messages_of("quiet-session").empty());
  for (const auto& r : capture.records)
    if (r.logid != "verbose-session") {
      EXPECT_GE(int(r.severity), 2) << r.logid << ": " << r.message;
    }
}

TEST(SessionLogger, UnsetSeverityFollowsTheDefaultLogger) {
  RecordCapture capture;
  SessionOptions o;
  o.log_id = "follower";
  auto s = Session::create_from_model(relu_model(), o);
  run_once(*s);
  EXPECT_TRUE(capture.messages_of("follower").empty());
  set_log_severity(Severity::kVerbose);
  run_once(*s);
  EXPECT_TRUE(has(capture.messages_of("follower"), "run finished"));
}

TEST(SessionLogger, RunLoggerHasItsOwnIdAndSeverity) {
  RecordCapture capture;
  SessionOptions o;
  o.log_severity_level = 3;
  o.log_id = "sess";
  auto s = Session::create_from_model(relu_model(), o);
  RunOptions loud;
  loud.log_severity_level = 0;
  loud.log_tag = "loud-run";
  run_once(*s, loud);
  RunOptions plain;
  plain.log_tag = "plain-run";
  run_once(*s, plain);
  EXPECT_TRUE(has(capture.messages_of("loud-run"), "run finished"));
  // Without a severity of its own, a run logs at its session's.
  EXPECT_TRUE(capture.messages_of("plain-run").empty());
  EXPECT_TRUE(capture.messages_of("sess").empty());
}

TEST(SessionLogger, BadSeverityLevelsAreErrors) {
  SessionOptions o;
  o.log_severity_level = 5;
  try {
    Session::create_from_model(relu_model(), o);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Invalid session log severity level"), std::string::npos)
        << e.what();
  }
  auto s = Session::create_from_model(relu_model());
  RunOptions ro;
  ro.log_severity_level = 7;
  try {
    run_once(*s, ro);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRuntimeException);
    EXPECT_NE(std::string(e.what()).find("Invalid run log severity level"), std::string::npos)
        << e.what();
  }
}

TEST(SessionLogger, ScopesNestAndRestore) {
  RecordCapture capture;
  Logger outer{0, 0, "outer"};
  Logger inner{4, 0, "inner"};
  EXPECT_EQ(current_logger(), nullptr);
  {
    LoggerScope a(outer);
    EXPECT_EQ(active_log_severity(), Severity::kVerbose);
    {
      LoggerScope b(inner);
      EXPECT_EQ(current_logger(), &inner);
      log(Severity::kError, "t", "filtered by inner");
    }
    log(Severity::kVerbose, "t", "kept by outer");
  }
  EXPECT_EQ(current_logger(), nullptr);
  log(Severity::kInfo, "t", "filtered by the default");
  ASSERT_EQ(capture.records.size(), 1u);
  EXPECT_EQ(capture.records[0].logid, "outer");
  EXPECT_EQ(capture.records[0].message, "kept by outer");
}
