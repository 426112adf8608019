// A session's own logger (SetUserLoggingFunction): what the session logs
// while it is created and while it runs goes to it, at its severity level.
#include <mutex>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

struct Record {
  OrtLoggingLevel severity;
  std::string category, logid, message;
};
struct Log {
  std::mutex mu;
  std::vector<Record> records;
  bool has(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& r : records)
      if (r.message.find(text) != std::string::npos) return true;
    return false;
  }
};

void ORT_API_CALL log_to(void* param, OrtLoggingLevel severity, const char* category,
                         const char* logid, const char*, const char* message) {
  auto* log = static_cast<Log*>(param);
  std::lock_guard<std::mutex> lock(log->mu);
  log->records.push_back({severity, category, logid, message});
}

void run_add_mul(OrtSession* s, const OrtRunOptions* ro) {
  std::vector<float> x = {1, 2, 3}, y = {10, 20, 30};
  OrtValue* in[2] = {float_tensor(x, {1, 3}), float_tensor(y, {1, 3})};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[1] = {"sum"};
  OrtValue* out[1] = {nullptr};
  CAPI_OK(api()->Run(s, ro, in_names, in, 2, out_names, 1, out));
  EXPECT_EQ(floats(out[0]), (std::vector<float>{11, 22, 33}));
  for (OrtValue* v : {in[0], in[1], out[0]}) api()->ReleaseValue(v);
}

TEST(CApiSessionLogger, TheSessionsRecordsGoToItsOwnLogger) {
  Log log;
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  CAPI_OK(api()->SetSessionLogSeverityLevel(o, ORT_LOGGING_LEVEL_VERBOSE));
  CAPI_OK(api()->SetSessionLogId(o, "own-logger"));
  CAPI_OK(api()->SetUserLoggingFunction(o, log_to, &log));
  OrtSession* s = open_session("add_mul.onnx", o);
  ASSERT_NE(s, nullptr);
  run_add_mul(s, nullptr);
  EXPECT_TRUE(log.has("run started")) << "the run's verbose records did not reach the logger";
  EXPECT_TRUE(log.has("run finished"));
  {
    std::lock_guard<std::mutex> lock(log.mu);
    ASSERT_FALSE(log.records.empty());
    for (const auto& r : log.records) {
      EXPECT_GE(r.severity, ORT_LOGGING_LEVEL_VERBOSE);
      EXPECT_LE(r.severity, ORT_LOGGING_LEVEL_FATAL);
      EXPECT_EQ(r.category, "tessera");
    }
  }
  // A run at warning level: its verbose records are filtered out.
  const size_t before = log.records.size();
  OrtRunOptions* ro = nullptr;
  CAPI_OK(api()->CreateRunOptions(&ro));
  CAPI_OK(api()->RunOptionsSetRunLogSeverityLevel(ro, ORT_LOGGING_LEVEL_WARNING));
  run_add_mul(s, ro);
  EXPECT_EQ(log.records.size(), before);
  api()->ReleaseRunOptions(ro);
  api()->ReleaseSession(s);

  // A session without the logger sends it nothing.
  OrtSessionOptions* plain = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&plain));
  CAPI_OK(api()->SetSessionLogSeverityLevel(plain, ORT_LOGGING_LEVEL_WARNING));
  OrtSession* other = open_session("add_mul.onnx", plain);
  run_add_mul(other, nullptr);
  EXPECT_EQ(log.records.size(), before);
  api()->ReleaseSession(other);
  api()->ReleaseSessionOptions(plain);
  api()->ReleaseSessionOptions(o);
}

TEST(CApiSessionLogger, BadArgumentsAreErrorsNamingThem) {
  Log log;
  auto r = result(api()->SetUserLoggingFunction(nullptr, log_to, &log));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("session options is null"), std::string::npos) << r.second;
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  r = result(api()->SetUserLoggingFunction(o, nullptr, &log));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("user_logging_function is null"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(o);
}

}  // namespace
