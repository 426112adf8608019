// The environment's global thread pools: sessions that disable per-session
// threads run on them and start no threads of their own. The process has one
// environment, made by its first creator, so each scenario runs in a fresh
// process of its own (a death test in the "threadsafe" style re-runs this
// binary for just that scenario), whatever ran before it in this one.
#include <dirent.h>

#include <cstdlib>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

int thread_count() {
  int n = 0;
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr) return -1;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

void run_add_mul(OrtSession* s) {
  std::vector<float> x = {1, 2, 3}, y = {10, 20, 30};
  OrtValue* in[2] = {float_tensor(x, {1, 3}), float_tensor(y, {1, 3})};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[1] = {"sum"};
  OrtValue* out[1] = {nullptr};
  CAPI_OK(api()->Run(s, nullptr, in_names, in, 2, out_names, 1, out));
  EXPECT_EQ(floats(out[0]), (std::vector<float>{11, 22, 33}));
  for (OrtValue* v : {in[0], in[1], out[0]}) api()->ReleaseValue(v);
}

}  // namespace

void sessions_share_the_global_pools() {
  OrtThreadingOptions* threads = nullptr;
  CAPI_OK(api()->CreateThreadingOptions(&threads));
  CAPI_OK(api()->SetGlobalIntraOpNumThreads(threads, 2));
  CAPI_OK(api()->SetGlobalInterOpNumThreads(threads, 1));
  OrtEnv* global = nullptr;
  CAPI_OK(api()->CreateEnvWithGlobalThreadPools(ORT_LOGGING_LEVEL_WARNING, "global-threads",
                                                threads, &global));
  api()->ReleaseThreadingOptions(threads);

  OrtSessionOptions* shared = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&shared));
  CAPI_OK(api()->DisablePerSessionThreads(shared));
  const int before = thread_count();
  std::vector<OrtSession*> sessions(3, nullptr);
  for (OrtSession*& s : sessions)
    CAPI_OK(api()->CreateSession(global, model_path("add_mul.onnx").c_str(), shared, &s));
  EXPECT_EQ(thread_count(), before);
  for (OrtSession* s : sessions) run_add_mul(s);

  // A session with its own two-thread pool starts one worker.
  OrtSessionOptions* own = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&own));
  CAPI_OK(api()->SetIntraOpNumThreads(own, 2));
  OrtSession* owning = nullptr;
  CAPI_OK(api()->CreateSession(global, model_path("add_mul.onnx").c_str(), own, &owning));
  EXPECT_EQ(thread_count(), before + 1);
  run_add_mul(owning);

  api()->ReleaseSession(owning);
  for (OrtSession* s : sessions) api()->ReleaseSession(s);
  api()->ReleaseSessionOptions(own);
  api()->ReleaseSessionOptions(shared);
  api()->ReleaseEnv(global);
  std::exit(::testing::Test::HasFailure() ? 1 : 0);
}

void disabling_per_session_threads_needs_global_pools() {
  OrtSessionOptions* shared = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&shared));
  CAPI_OK(api()->DisablePerSessionThreads(shared));
  OrtSession* s = nullptr;
  auto r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), shared, &s));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("created without global thread pools"), std::string::npos) << r.second;
  EXPECT_EQ(s, nullptr);
  api()->ReleaseSessionOptions(shared);
  std::exit(::testing::Test::HasFailure() ? 1 : 0);
}

TEST(CApiGlobalThreads, SessionsWithoutTheirOwnShareTheEnvironmentsPools) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(sessions_share_the_global_pools(), ::testing::ExitedWithCode(0), "");
}

TEST(CApiGlobalThreads, DisablingPerSessionThreadsNeedsGlobalPools) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(disabling_per_session_threads_needs_global_pools(), ::testing::ExitedWithCode(0), "");
}
