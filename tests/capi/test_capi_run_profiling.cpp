// Per-run profiling (RunOptionsEnableProfiling): a run writes its own Chrome
// trace, whether or not its session profiles, and only while it is enabled.
#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

// Files in `dir` whose names start with `prefix`.
std::vector<std::string> files_with_prefix(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name).rfind(prefix, 0) == 0) out.push_back(dir + "/" + e->d_name);
  closedir(d);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void run_add_mul(OrtSession* s, const OrtRunOptions* ro) {
  std::vector<float> x = {1, 2, 3}, y = {10, 20, 30};
  OrtValue* in[2] = {float_tensor(x, {1, 3}), float_tensor(y, {1, 3})};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[2] = {"sum", "product"};
  OrtValue* out[2] = {nullptr, nullptr};
  CAPI_OK(api()->Run(s, ro, in_names, in, 2, out_names, 2, out));
  EXPECT_EQ(floats(out[0]), (std::vector<float>{11, 22, 33}));
  for (OrtValue* v : {in[0], in[1], out[0], out[1]}) api()->ReleaseValue(v);
}

class CApiRunProfiling : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tessera_run_profile_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const auto& f : files_with_prefix(dir_, "")) unlink(f.c_str());
    rmdir(dir_.c_str());
  }
  std::string dir_;
};

TEST_F(CApiRunProfiling, AProfiledRunWritesItsOwnTrace) {
  OrtSession* s = open_session("add_mul.onnx");
  ASSERT_NE(s, nullptr);
  OrtRunOptions* ro = nullptr;
  CAPI_OK(api()->CreateRunOptions(&ro));
  CAPI_OK(api()->RunOptionsSetRunTag(ro, "tagged_run"));
  const std::string prefix = dir_ + "/run";
  CAPI_OK(api()->RunOptionsEnableProfiling(ro, prefix.c_str()));
  run_add_mul(s, ro);
  auto traces = files_with_prefix(dir_, "run_");
  ASSERT_EQ(traces.size(), 1u) << "one profiled run, one trace";
  const std::string trace = read_file(traces[0]);
  EXPECT_EQ(trace.front(), '[');
  EXPECT_NE(trace.find("\"op_name\":\"Add\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"op_name\":\"Mul\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"name\":\"tagged_run\",\"cat\":\"Session\""), std::string::npos) << trace;

  // The session itself does not profile: ending its profiling writes nothing.
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* path = nullptr;
  CAPI_OK(api()->SessionEndProfiling(s, a, &path));
  EXPECT_STREQ(path, "");
  a->Free(a, path);

  // Disabled again: the next run writes no trace.
  CAPI_OK(api()->RunOptionsDisableProfiling(ro));
  for (const auto& f : traces) unlink(f.c_str());
  run_add_mul(s, ro);
  EXPECT_TRUE(files_with_prefix(dir_, "run_").empty());
  api()->ReleaseRunOptions(ro);
  api()->ReleaseSession(s);
}

TEST_F(CApiRunProfiling, ARunsTraceIsIndependentOfTheSessionsProfile) {
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  const std::string session_prefix = dir_ + "/session";
  CAPI_OK(api()->EnableProfiling(o, session_prefix.c_str()));
  OrtSession* s = open_session("add_mul.onnx", o);
  ASSERT_NE(s, nullptr);
  OrtRunOptions* ro = nullptr;
  CAPI_OK(api()->CreateRunOptions(&ro));
  const std::string prefix = dir_ + "/one_run";
  CAPI_OK(api()->RunOptionsEnableProfiling(ro, prefix.c_str()));
  run_add_mul(s, ro);
  EXPECT_EQ(files_with_prefix(dir_, "one_run_").size(), 1u);
  EXPECT_TRUE(files_with_prefix(dir_, "session_").empty()) << "the session's profile ends later";
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* path = nullptr;
  CAPI_OK(api()->SessionEndProfiling(s, a, &path));
  // The session's trace still holds the run's nodes.
  EXPECT_NE(read_file(path).find("\"op_name\":\"Add\""), std::string::npos);
  a->Free(a, path);
  api()->ReleaseRunOptions(ro);
  api()->ReleaseSession(s);
  api()->ReleaseSessionOptions(o);
}

TEST_F(CApiRunProfiling, BadArgumentsAreErrorsNamingThem) {
  auto r = result(api()->RunOptionsEnableProfiling(nullptr, "x"));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("run options is null"), std::string::npos) << r.second;
  r = result(api()->RunOptionsDisableProfiling(nullptr));
  EXPECT_NE(r.second.find("run options is null"), std::string::npos) << r.second;
  OrtRunOptions* ro = nullptr;
  CAPI_OK(api()->CreateRunOptions(&ro));
  r = result(api()->RunOptionsEnableProfiling(ro, nullptr));
  EXPECT_NE(r.second.find("profile_file_prefix is null"), std::string::npos) << r.second;
  r = result(api()->RunOptionsEnableProfiling(ro, ""));
  EXPECT_NE(r.second.find("profile_file_prefix is empty"), std::string::npos) << r.second;
  // A prefix in a folder that does not exist: the run fails naming the file.
  CAPI_OK(api()->RunOptionsEnableProfiling(ro, (dir_ + "/absent/run").c_str()));
  OrtSession* s = open_session("add_mul.onnx");
  std::vector<float> x = {1, 2, 3}, y = {10, 20, 30};
  OrtValue* in[2] = {float_tensor(x, {1, 3}), float_tensor(y, {1, 3})};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[1] = {"sum"};
  OrtValue* out[1] = {nullptr};
  r = result(api()->Run(s, ro, in_names, in, 2, out_names, 1, out));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("cannot write profile file"), std::string::npos) << r.second;
  for (OrtValue* v : {in[0], in[1]}) api()->ReleaseValue(v);
  api()->ReleaseSession(s);
  api()->ReleaseRunOptions(ro);
}

}  // namespace
