// Sessions through the C ABI: creation from a path and from bytes, the
// model's inputs, outputs and metadata, and runs.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

std::string input_name(OrtSession* s, size_t i) {
  OrtAllocator* a = nullptr;
  EXPECT_EQ(result(api()->GetAllocatorWithDefaultOptions(&a)).first, ORT_OK);
  char* name = nullptr;
  EXPECT_EQ(result(api()->SessionGetInputName(s, i, a, &name)).first, ORT_OK);
  std::string out = name;
  EXPECT_EQ(result(api()->AllocatorFree(a, name)).first, ORT_OK);
  return out;
}

}  // namespace

TEST(CApiSession, InputsOutputsAndTheirTypes) {
  OrtSession* s = open_session("add_mul.onnx");
  ASSERT_NE(s, nullptr);
  size_t n_in = 0, n_out = 0;
  CAPI_OK(api()->SessionGetInputCount(s, &n_in));
  CAPI_OK(api()->SessionGetOutputCount(s, &n_out));
  EXPECT_EQ(n_in, 2u);
  EXPECT_EQ(n_out, 2u);
  EXPECT_EQ(input_name(s, 0), "x");
  EXPECT_EQ(input_name(s, 1), "y");

  OrtTypeInfo* t = nullptr;
  CAPI_OK(api()->SessionGetOutputTypeInfo(s, 1, &t));
  ONNXType kind;
  CAPI_OK(api()->GetOnnxTypeFromTypeInfo(t, &kind));
  EXPECT_EQ(kind, ONNX_TYPE_TENSOR);
  const OrtTensorTypeAndShapeInfo* info = nullptr;
  CAPI_OK(api()->CastTypeInfoToTensorInfo(t, &info));
  ONNXTensorElementDataType elem;
  CAPI_OK(api()->GetTensorElementType(info, &elem));
  EXPECT_EQ(elem, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  size_t rank = 0;
  CAPI_OK(api()->GetDimensionsCount(info, &rank));
  ASSERT_EQ(rank, 2u);
  int64_t dims[2];
  CAPI_OK(api()->GetDimensions(info, dims, 2));
  EXPECT_EQ(dims[0], -1);
  EXPECT_EQ(dims[1], 3);
  const char* names[2];
  CAPI_OK(api()->GetSymbolicDimensions(info, names, 2));
  EXPECT_STREQ(names[0], "batch");
  EXPECT_STREQ(names[1], "");
  api()->ReleaseTypeInfo(t);

  auto r = result(api()->SessionGetInputTypeInfo(s, 5, &t));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("input index 5 is out of range: the model has 2 inputs"),
            std::string::npos)
      << r.second;
  api()->ReleaseSession(s);
}

TEST(CApiSession, RunsWithTensorsOverTheCallersMemory) {
  OrtSession* s = open_session("add_mul.onnx");
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y = {10, 20, 30, 40, 50, 60};
  OrtValue* in[2] = {float_tensor(x, {2, 3}), float_tensor(y, {2, 3})};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[2] = {"product", "sum"};
  OrtValue* out[2] = {nullptr, nullptr};
  CAPI_OK(api()->Run(s, nullptr, in_names, in, 2, out_names, 2, out));
  EXPECT_EQ(floats(out[0]), (std::vector<float>{10, 40, 90, 160, 250, 360}));
  EXPECT_EQ(floats(out[1]), (std::vector<float>{11, 22, 33, 44, 55, 66}));

  // A preallocated output is written into.
  std::vector<float> into(6, -1.f);
  OrtValue* pre[1] = {float_tensor(into, {2, 3})};
  const char* one[1] = {"sum"};
  CAPI_OK(api()->Run(s, nullptr, in_names, in, 2, one, 1, pre));
  EXPECT_EQ(into, (std::vector<float>{11, 22, 33, 44, 55, 66}));

  for (OrtValue* v : {in[0], in[1], out[0], out[1], pre[0]}) api()->ReleaseValue(v);
  api()->ReleaseSession(s);
}

TEST(CApiSession, FromBytesWithOptionsAndMetadata) {
  std::ifstream f(model_path("add_mul.onnx"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  CAPI_OK(api()->SetIntraOpNumThreads(o, 1));
  CAPI_OK(api()->SetSessionGraphOptimizationLevel(o, ORT_ENABLE_EXTENDED));
  CAPI_OK(api()->SetSessionExecutionMode(o, ORT_SEQUENTIAL));
  CAPI_OK(api()->AddSessionConfigEntry(o, "session.keep_packed_initializers", "1"));
  CAPI_OK(api()->SessionOptionsAppendExecutionProvider(o, "CPU", nullptr, nullptr, 0));
  OrtSession* s = nullptr;
  CAPI_OK(api()->CreateSessionFromArray(env(), bytes.data(), bytes.size(), o, &s));

  OrtModelMetadata* m = nullptr;
  CAPI_OK(api()->SessionGetModelMetadata(s, &m));
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* text = nullptr;
  CAPI_OK(api()->ModelMetadataGetProducerName(m, a, &text));
  EXPECT_STREQ(text, "capi-test");
  CAPI_OK(api()->AllocatorFree(a, text));
  CAPI_OK(api()->ModelMetadataGetGraphName(m, a, &text));
  EXPECT_STREQ(text, "add_mul_graph");
  CAPI_OK(api()->AllocatorFree(a, text));
  CAPI_OK(api()->ModelMetadataLookupCustomMetadataMap(m, a, "author", &text));
  EXPECT_STREQ(text, "tessera");
  CAPI_OK(api()->AllocatorFree(a, text));
  CAPI_OK(api()->ModelMetadataLookupCustomMetadataMap(m, a, "absent", &text));
  EXPECT_EQ(text, nullptr);
  int64_t version = 0;
  CAPI_OK(api()->ModelMetadataGetVersion(m, &version));
  EXPECT_EQ(version, 7);
  char** keys = nullptr;
  int64_t n_keys = 0;
  CAPI_OK(api()->ModelMetadataGetCustomMetadataMapKeys(m, a, &keys, &n_keys));
  ASSERT_EQ(n_keys, 2);
  for (int64_t i = 0; i < n_keys; ++i) CAPI_OK(api()->AllocatorFree(a, keys[i]));
  CAPI_OK(api()->AllocatorFree(a, keys));
  api()->ReleaseModelMetadata(m);
  api()->ReleaseSession(s);
  api()->ReleaseSessionOptions(o);
}

TEST(CApiSession, OverridableInitializersAreListedAndReplaceable) {
  OrtSession* s = open_session("overridable.onnx");
  size_t n = 0;
  CAPI_OK(api()->SessionGetOverridableInitializerCount(s, &n));
  ASSERT_EQ(n, 1u);
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* name = nullptr;
  CAPI_OK(api()->SessionGetOverridableInitializerName(s, 0, a, &name));
  EXPECT_STREQ(name, "bias");
  CAPI_OK(api()->AllocatorFree(a, name));

  std::vector<float> x = {1, 2}, bias = {100, 200};
  OrtValue* in[2] = {float_tensor(x, {2}), float_tensor(bias, {2})};
  const char* in_names[2] = {"x", "bias"};
  const char* out_names[1] = {"y"};
  OrtValue* out[1] = {nullptr};
  CAPI_OK(api()->Run(s, nullptr, in_names, in, 1, out_names, 1, out));
  EXPECT_EQ(floats(out[0]), (std::vector<float>{11, 22}));
  api()->ReleaseValue(out[0]);
  out[0] = nullptr;
  CAPI_OK(api()->Run(s, nullptr, in_names, in, 2, out_names, 1, out));
  EXPECT_EQ(floats(out[0]), (std::vector<float>{101, 202}));
  for (OrtValue* v : {in[0], in[1], out[0]}) api()->ReleaseValue(v);
  api()->ReleaseSession(s);
}

TEST(CApiSession, RunOptionsCarryTagLevelsAndConfig) {
  OrtRunOptions* ro = nullptr;
  CAPI_OK(api()->CreateRunOptions(&ro));
  CAPI_OK(api()->RunOptionsSetRunTag(ro, "tagged"));
  const char* tag = nullptr;
  CAPI_OK(api()->RunOptionsGetRunTag(ro, &tag));
  EXPECT_STREQ(tag, "tagged");
  CAPI_OK(api()->RunOptionsSetRunLogSeverityLevel(ro, 3));
  int level = 0;
  CAPI_OK(api()->RunOptionsGetRunLogSeverityLevel(ro, &level));
  EXPECT_EQ(level, 3);
  // Verbosity and severity are separate fields: setting one leaves the other.
  CAPI_OK(api()->RunOptionsSetRunLogVerbosityLevel(ro, 7));
  int verbosity = -1;
  CAPI_OK(api()->RunOptionsGetRunLogVerbosityLevel(ro, &verbosity));
  EXPECT_EQ(verbosity, 7);
  CAPI_OK(api()->RunOptionsGetRunLogSeverityLevel(ro, &level));
  EXPECT_EQ(level, 3);
  CAPI_OK(api()->RunOptionsSetRunLogSeverityLevel(ro, 1));
  CAPI_OK(api()->RunOptionsGetRunLogVerbosityLevel(ro, &verbosity));
  EXPECT_EQ(verbosity, 7);
  CAPI_OK(api()->AddRunConfigEntry(ro, "memory.enable_memory_arena_shrinkage", "cpu:0"));
  EXPECT_STREQ(api()->GetRunConfigEntry(ro, "memory.enable_memory_arena_shrinkage"), "cpu:0");
  EXPECT_EQ(api()->GetRunConfigEntry(ro, "absent"), nullptr);

  // A terminated run stops with an error that says so.
  CAPI_OK(api()->RunOptionsSetTerminate(ro));
  OrtSession* s = open_session("add_mul.onnx");
  std::vector<float> x = {1, 2, 3}, y = {1, 1, 1};
  OrtValue* in[2] = {float_tensor(x, {1, 3}), float_tensor(y, {1, 3})};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[1] = {"sum"};
  OrtValue* out[1] = {nullptr};
  auto r = result(api()->Run(s, ro, in_names, in, 2, out_names, 1, out));
  EXPECT_NE(r.first, ORT_OK);
  CAPI_OK(api()->RunOptionsUnsetTerminate(ro));
  CAPI_OK(api()->Run(s, ro, in_names, in, 2, out_names, 1, out));
  EXPECT_EQ(floats(out[0]), (std::vector<float>{2, 3, 4}));
  for (OrtValue* v : {in[0], in[1], out[0]}) api()->ReleaseValue(v);
  api()->ReleaseSession(s);
  api()->ReleaseRunOptions(ro);
}

TEST(CApiSession, RunAsyncCallsBackWithTheOutputs) {
  OrtSession* s = open_session("add_mul.onnx");
  std::vector<float> x = {1, 2, 3}, y = {4, 5, 6};
  OrtValue* in[2] = {float_tensor(x, {1, 3}), float_tensor(y, {1, 3})};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[1] = {"sum"};
  OrtValue* out[1] = {nullptr};
  struct Done {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    OrtErrorCode code = ORT_FAIL;
    size_t n = 0;
  } done;
  auto cb = [](void* user, OrtValue**, size_t n, OrtStatusPtr status) {
    auto* d = static_cast<Done*>(user);
    std::lock_guard<std::mutex> lock(d->mu);
    d->code = result(status).first;
    d->n = n;
    d->done = true;
    d->cv.notify_all();
  };
  CAPI_OK(api()->RunAsync(s, nullptr, in_names, in, 2, out_names, 1, out, cb, &done));
  std::unique_lock<std::mutex> lock(done.mu);
  ASSERT_TRUE(done.cv.wait_for(lock, std::chrono::seconds(30), [&] { return done.done; }));
  EXPECT_EQ(done.code, ORT_OK);
  EXPECT_EQ(done.n, 1u);
  EXPECT_EQ(floats(out[0]), (std::vector<float>{5, 7, 9}));
  for (OrtValue* v : {in[0], in[1], out[0]}) api()->ReleaseValue(v);
  api()->ReleaseSession(s);
}

TEST(CApiSession, ProfilingStartsWithTheSessionAndEndsInAFile) {
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  const std::string prefix = model_path("capi_profile");
  CAPI_OK(api()->EnableProfiling(o, prefix.c_str()));
  OrtSession* s = open_session("add_mul.onnx", o);
  uint64_t start = 0;
  CAPI_OK(api()->SessionGetProfilingStartTimeNs(s, &start));
  EXPECT_GT(start, 0u);
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* path = nullptr;
  CAPI_OK(api()->SessionEndProfiling(s, a, &path));
  ASSERT_NE(path, nullptr);
  {
    std::ifstream trace(path);
    EXPECT_TRUE(trace.good()) << path;
  }
  EXPECT_EQ(std::string(path).rfind(prefix, 0), 0u) << path;
  EXPECT_EQ(std::remove(path), 0) << path;  // the trace is the test's own
  CAPI_OK(api()->AllocatorFree(a, path));
  api()->ReleaseSession(s);
  api()->ReleaseSessionOptions(o);

  OrtSession* plain = open_session("add_mul.onnx");
  CAPI_OK(api()->SessionGetProfilingStartTimeNs(plain, &start));
  EXPECT_EQ(start, 0u);
  api()->ReleaseSession(plain);
}

TEST(CApiSession, SessionsWithAPrepackedWeightsContainerRunAndShareIt) {
  OrtPrepackedWeightsContainer* container = nullptr;
  CAPI_OK(api()->CreatePrepackedWeightsContainer(&container));
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  // Sharing is on for sessions made with a container, even when the options turn it off.
  CAPI_OK(api()->AddSessionConfigEntry(o, "session.share_initializers", "0"));
  std::ifstream f(model_path("add_mul.onnx"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  OrtSession* a = nullptr;
  OrtSession* b = nullptr;
  CAPI_OK(api()->CreateSessionWithPrepackedWeightsContainer(
      env(), model_path("add_mul.onnx").c_str(), o, container, &a));
  CAPI_OK(api()->CreateSessionFromArrayWithPrepackedWeightsContainer(
      env(), bytes.data(), bytes.size(), o, container, &b));
  for (OrtSession* s : {a, b}) {
    std::vector<float> x = {1, 2, 3}, y = {4, 5, 6};
    OrtValue* in[2] = {float_tensor(x, {1, 3}), float_tensor(y, {1, 3})};
    const char* in_names[2] = {"x", "y"};
    const char* out_names[1] = {"sum"};
    OrtValue* out[1] = {nullptr};
    CAPI_OK(api()->Run(s, nullptr, in_names, in, 2, out_names, 1, out));
    EXPECT_EQ(floats(out[0]), (std::vector<float>{5, 7, 9}));
    for (OrtValue* v : {in[0], in[1], out[0]}) api()->ReleaseValue(v);
    api()->ReleaseSession(s);
  }
  OrtSession* none = nullptr;
  auto r = result(api()->CreateSessionWithPrepackedWeightsContainer(
      env(), model_path("add_mul.onnx").c_str(), o, nullptr, &none));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("prepacked_weights_container"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(o);
  api()->ReleasePrepackedWeightsContainer(container);
}

TEST(CApiSession, ALoadCanceledThroughItsOptionsFailsAsCanceled) {
  OrtSessionOptions* options = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&options));
  CAPI_OK(api()->SessionOptionsSetLoadCancellationFlag(options, true));
  OrtSession* s = nullptr;
  auto r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), options, &s));
  EXPECT_EQ(r.first, ORT_MODEL_LOAD_CANCELED);
  EXPECT_NE(r.second.find("CreateSession"), std::string::npos) << r.second;
  EXPECT_EQ(s, nullptr);
  // A clone keeps the flag; clearing it lets the session be created.
  OrtSessionOptions* clone = nullptr;
  CAPI_OK(api()->CloneSessionOptions(options, &clone));
  r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), clone, &s));
  EXPECT_EQ(r.first, ORT_MODEL_LOAD_CANCELED);
  CAPI_OK(api()->SessionOptionsSetLoadCancellationFlag(options, false));
  CAPI_OK(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), options, &s));
  EXPECT_NE(s, nullptr);
  api()->ReleaseSession(s);
  r = result(api()->SessionOptionsSetLoadCancellationFlag(nullptr, true));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("SessionOptionsSetLoadCancellationFlag"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(clone);
  api()->ReleaseSessionOptions(options);
}
