// Thread creation hooks (per session and for the global pools) and the
// per-session thread-pool work callbacks, through the C ABI alone.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

// The application's threads: what the create function started, and joined.
struct AppThreads {
  std::mutex mu;
  std::vector<std::unique_ptr<std::thread>> threads;
  std::atomic<int> created{0}, joined{0};
  std::atomic<int> wrong_options{0};
  bool refuse = false;  // the create function starts nothing and returns null
};
AppThreads* g_app = nullptr;

OrtCustomThreadHandle create_thread(void* options, OrtThreadWorkerFn fn, void* param) {
  if (options != g_app) g_app->wrong_options.fetch_add(1);
  if (g_app->refuse) return nullptr;
  std::lock_guard<std::mutex> lock(g_app->mu);
  g_app->threads.push_back(std::make_unique<std::thread>(fn, param));
  g_app->created.fetch_add(1);
  return reinterpret_cast<OrtCustomThreadHandle>(g_app->threads.back().get());
}

void join_thread(OrtCustomThreadHandle handle) {
  auto* t = reinterpret_cast<std::thread*>(const_cast<OrtCustomHandleType*>(handle));
  t->join();
  g_app->joined.fetch_add(1);
}

// Runs add_mul over `rows` rows (large enough for the pool to split the Add).
void run_add_mul(OrtSession* s, int64_t rows) {
  std::vector<float> x(size_t(rows * 3), 1.5f), y(size_t(rows * 3), 2.0f);
  OrtValue* in[2] = {float_tensor(x, {rows, 3}), float_tensor(y, {rows, 3})};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[1] = {"sum"};
  OrtValue* out[1] = {nullptr};
  CAPI_OK(api()->Run(s, nullptr, in_names, in, 2, out_names, 1, out));
  const std::vector<float> sum = floats(out[0]);
  ASSERT_EQ(sum.size(), x.size());
  for (size_t i = 0; i < sum.size(); i += 997) ASSERT_EQ(sum[i], 3.5f) << "element " << i;
  for (OrtValue* v : {in[0], in[1], out[0]}) api()->ReleaseValue(v);
}

OrtSessionOptions* hooked_options(AppThreads& app, int threads) {
  OrtSessionOptions* o = nullptr;
  EXPECT_EQ(result(api()->CreateSessionOptions(&o)).first, ORT_OK);
  EXPECT_EQ(result(api()->SetIntraOpNumThreads(o, threads)).first, ORT_OK);
  EXPECT_EQ(result(api()->SessionOptionsSetCustomCreateThreadFn(o, create_thread)).first, ORT_OK);
  EXPECT_EQ(result(api()->SessionOptionsSetCustomThreadCreationOptions(o, &app)).first, ORT_OK);
  EXPECT_EQ(result(api()->SessionOptionsSetCustomJoinThreadFn(o, join_thread)).first, ORT_OK);
  return o;
}

TEST(CApiThreadHooks, ASessionsWorkersRunOnTheApplicationsThreads) {
  AppThreads app;
  g_app = &app;
  OrtSessionOptions* o = hooked_options(app, 3);
  OrtSession* s = open_session("add_mul.onnx", o);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(app.created.load(), 2);  // three threads: the caller and two workers
  EXPECT_EQ(app.wrong_options.load(), 0) << "the create function was not handed its options";
  for (int r = 0; r < 5; ++r) run_add_mul(s, 100000);
  EXPECT_EQ(app.joined.load(), 0);
  api()->ReleaseSession(s);
  EXPECT_EQ(app.joined.load(), 2) << "releasing the session did not join its workers";
  api()->ReleaseSessionOptions(o);
  g_app = nullptr;
}

TEST(CApiThreadHooks, ACreateFunctionNeedsAJoinFunctionAndMustStartThreads) {
  AppThreads app;
  g_app = &app;
  OrtSessionOptions* o = hooked_options(app, 2);
  CAPI_OK(api()->SessionOptionsSetCustomJoinThreadFn(o, nullptr));
  OrtSession* s = nullptr;
  auto r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), o, &s));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("create-thread function but no join-thread function"), std::string::npos)
      << r.second;
  EXPECT_EQ(s, nullptr);

  CAPI_OK(api()->SessionOptionsSetCustomJoinThreadFn(o, join_thread));
  app.refuse = true;
  r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), o, &s));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("returned no thread handle"), std::string::npos) << r.second;
  EXPECT_EQ(s, nullptr);
  api()->ReleaseSessionOptions(o);
  g_app = nullptr;
}

TEST(CApiThreadHooks, NullHandlesAreErrorsNamingThem) {
  auto r = result(api()->SessionOptionsSetCustomCreateThreadFn(nullptr, create_thread));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("options is null"), std::string::npos) << r.second;
  r = result(api()->SessionOptionsSetCustomThreadCreationOptions(nullptr, nullptr));
  EXPECT_NE(r.second.find("options is null"), std::string::npos) << r.second;
  r = result(api()->SessionOptionsSetCustomJoinThreadFn(nullptr, join_thread));
  EXPECT_NE(r.second.find("options is null"), std::string::npos) << r.second;
  for (OrtStatus* st : {api()->SetGlobalCustomCreateThreadFn(nullptr, create_thread),
                        api()->SetGlobalCustomThreadCreationOptions(nullptr, nullptr),
                        api()->SetGlobalCustomJoinThreadFn(nullptr, join_thread)}) {
    r = result(st);
    EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
    EXPECT_NE(r.second.find("threading options is null"), std::string::npos) << r.second;
  }
  OrtThreadPoolCallbacksConfig config{};
  config.version = ORT_API_VERSION;
  r = result(api()->SetPerSessionThreadPoolCallbacks(nullptr, &config));
  EXPECT_NE(r.second.find("env is null"), std::string::npos) << r.second;
  r = result(api()->SetPerSessionThreadPoolCallbacks(env(), nullptr));
  EXPECT_NE(r.second.find("config is null"), std::string::npos) << r.second;
  config.version = 0;
  r = result(api()->SetPerSessionThreadPoolCallbacks(env(), &config));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("config->version is 0"), std::string::npos) << r.second;
}

struct Counts {
  std::atomic<int> enqueued{0}, started{0}, stopped{0}, abandoned{0}, bad{0};
};
int g_item;  // what on_enqueue hands the other callbacks

void* on_enqueue(void* ctx) noexcept {
  static_cast<Counts*>(ctx)->enqueued.fetch_add(1);
  return &g_item;
}
void on_start(void* ctx, void* data) noexcept {
  if (data != &g_item) static_cast<Counts*>(ctx)->bad.fetch_add(1);
  static_cast<Counts*>(ctx)->started.fetch_add(1);
}
void on_stop(void* ctx, void* data) noexcept {
  if (data != &g_item) static_cast<Counts*>(ctx)->bad.fetch_add(1);
  static_cast<Counts*>(ctx)->stopped.fetch_add(1);
}
void on_abandon(void* ctx, void* data) noexcept {
  if (data != &g_item) static_cast<Counts*>(ctx)->bad.fetch_add(1);
  static_cast<Counts*>(ctx)->abandoned.fetch_add(1);
}

TEST(CApiThreadHooks, PerSessionPoolsReportTheirWorkToTheEnvironmentsCallbacks) {
  Counts counts;
  OrtThreadPoolCallbacksConfig config{};
  config.version = ORT_API_VERSION;
  config.on_enqueue = on_enqueue;
  config.on_start_work = on_start;
  config.on_stop_work = on_stop;
  config.on_abandon = on_abandon;
  config.user_context = &counts;
  CAPI_OK(api()->SetPerSessionThreadPoolCallbacks(env(), &config));
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  CAPI_OK(api()->SetIntraOpNumThreads(o, 4));
  OrtSession* s = open_session("add_mul.onnx", o);
  ASSERT_NE(s, nullptr);
  // Runs until a worker has taken an item (a loaded machine may schedule the
  // workers only after the caller has done a region alone), for at most 2 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  do run_add_mul(s, 200000);
  while (counts.started.load() == 0 && std::chrono::steady_clock::now() < deadline);
  EXPECT_GT(counts.enqueued.load(), 0) << "the Add handed no work to the pool";
  EXPECT_GT(counts.started.load(), 0) << "no worker took an item in 2 s of runs";
  EXPECT_EQ(counts.started.load(), counts.stopped.load());
  EXPECT_EQ(counts.enqueued.load(), counts.started.load() + counts.abandoned.load());
  EXPECT_EQ(counts.bad.load(), 0);
  api()->ReleaseSession(s);

  // A config without callbacks turns them off for later sessions.
  OrtThreadPoolCallbacksConfig none{};
  none.version = ORT_API_VERSION;
  CAPI_OK(api()->SetPerSessionThreadPoolCallbacks(env(), &none));
  const int before = counts.enqueued.load();
  s = open_session("add_mul.onnx", o);
  ASSERT_NE(s, nullptr);
  run_add_mul(s, 200000);
  EXPECT_EQ(counts.enqueued.load(), before);
  api()->ReleaseSession(s);
  api()->ReleaseSessionOptions(o);
}

// The global pools: created once per process, so this runs in a process of
// its own (a death test re-runs the binary for it).
void global_pools_start_their_threads_through_the_hooks() {
  AppThreads app;
  g_app = &app;
  OrtThreadingOptions* threads = nullptr;
  CAPI_OK(api()->CreateThreadingOptions(&threads));
  CAPI_OK(api()->SetGlobalIntraOpNumThreads(threads, 3));
  CAPI_OK(api()->SetGlobalInterOpNumThreads(threads, 2));
  CAPI_OK(api()->SetGlobalCustomCreateThreadFn(threads, create_thread));
  CAPI_OK(api()->SetGlobalCustomThreadCreationOptions(threads, &app));
  CAPI_OK(api()->SetGlobalCustomJoinThreadFn(threads, join_thread));
  OrtEnv* global = nullptr;
  CAPI_OK(
      api()->CreateEnvWithGlobalThreadPools(ORT_LOGGING_LEVEL_WARNING, "hooked", threads, &global));
  api()->ReleaseThreadingOptions(threads);
  EXPECT_EQ(app.created.load(), 3);  // two intra-op workers and one inter-op
  EXPECT_EQ(app.wrong_options.load(), 0);
  OrtSessionOptions* shared = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&shared));
  CAPI_OK(api()->DisablePerSessionThreads(shared));
  OrtSession* s = nullptr;
  CAPI_OK(api()->CreateSession(global, model_path("add_mul.onnx").c_str(), shared, &s));
  run_add_mul(s, 100000);
  EXPECT_EQ(app.created.load(), 3) << "a session on the global pools started threads";
  api()->ReleaseSession(s);
  api()->ReleaseSessionOptions(shared);
  api()->ReleaseEnv(global);
  std::exit(::testing::Test::HasFailure() ? 1 : 0);
}

TEST(CApiThreadHooks, TheGlobalPoolsStartTheirThreadsThroughTheHooks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(global_pools_start_their_threads_through_the_hooks(), ::testing::ExitedWithCode(0),
              "");
}

}  // namespace
