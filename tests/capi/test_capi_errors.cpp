// Bad input through the C ABI: each gets a status naming what is wrong,
// never a crash.
#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

void expect_error(OrtStatus* s, OrtErrorCode code, const std::string& fragment) {
  auto r = result(s);
  EXPECT_EQ(r.first, code) << r.second;
  EXPECT_NE(r.second.find(fragment), std::string::npos) << "message: " << r.second;
}

}  // namespace

TEST(CApiErrors, NullHandlesAndOutPointers) {
  size_t n = 0;
  expect_error(api()->SessionGetInputCount(nullptr, &n), ORT_INVALID_ARGUMENT,
               "SessionGetInputCount: session is null");
  expect_error(api()->CreateSessionOptions(nullptr), ORT_INVALID_ARGUMENT, "out is null");
  expect_error(api()->SetIntraOpNumThreads(nullptr, 1), ORT_INVALID_ARGUMENT,
               "session options is null");
  OrtSession* s = open_session("add_mul.onnx");
  expect_error(api()->SessionGetInputCount(s, nullptr), ORT_INVALID_ARGUMENT, "out is null");
  expect_error(api()->Run(s, nullptr, nullptr, nullptr, 1, nullptr, 0, nullptr),
               ORT_INVALID_ARGUMENT, "input_names is null");
  expect_error(api()->GetTensorMutableData(nullptr, nullptr), ORT_INVALID_ARGUMENT, "is null");
  api()->ReleaseSession(s);
  // Releasing NULL is allowed for every handle.
  api()->ReleaseSession(nullptr);
  api()->ReleaseValue(nullptr);
  api()->ReleaseSessionOptions(nullptr);
  api()->ReleaseEnv(nullptr);
}

TEST(CApiErrors, MissingFileAndMalformedBytes) {
  OrtSession* s = nullptr;
  expect_error(api()->CreateSession(env(), "/no/such/model.onnx", nullptr, &s), ORT_NO_SUCHFILE,
               "/no/such/model.onnx");
  const char junk[] = "this is not a model";
  auto r = result(api()->CreateSessionFromArray(env(), junk, sizeof junk, nullptr, &s));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_FALSE(r.second.empty());
  EXPECT_EQ(s, nullptr);
}

TEST(CApiErrors, SizesThatDoNotMatchTheShape) {
  OrtMemoryInfo* cpu = nullptr;
  CAPI_OK(api()->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  std::vector<float> data(5);
  const int64_t shape[2] = {2, 3};
  OrtValue* v = nullptr;
  expect_error(api()->CreateTensorWithDataAsOrtValue(cpu, data.data(), data.size() * 4, shape, 2,
                                                     ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v),
               ORT_INVALID_ARGUMENT, "holds 20 bytes but a float tensor of shape [2,3] needs 24");
  const int64_t negative[1] = {-4};
  expect_error(api()->CreateTensorWithDataAsOrtValue(cpu, data.data(), 20, negative, 1,
                                                     ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v),
               ORT_INVALID_ARGUMENT, "negative");
  expect_error(api()->CreateTensorWithDataAsOrtValue(
                   cpu, data.data(), 20, shape, 0, static_cast<ONNXTensorElementDataType>(99), &v),
               ORT_INVALID_ARGUMENT, "element type 99");
  api()->ReleaseMemoryInfo(cpu);
}

TEST(CApiErrors, WrongElementTypeAndUnknownNamesInARun) {
  OrtSession* s = open_session("add_mul.onnx");
  std::vector<float> x = {1, 2, 3};
  std::vector<int32_t> wrong = {1, 2, 3};
  OrtMemoryInfo* cpu = nullptr;
  CAPI_OK(api()->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  const int64_t shape[2] = {1, 3};
  OrtValue* as_int = nullptr;
  CAPI_OK(api()->CreateTensorWithDataAsOrtValue(cpu, wrong.data(), 12, shape, 2,
                                                ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, &as_int));
  OrtValue* in[2] = {float_tensor(x, {1, 3}), as_int};
  const char* names[2] = {"x", "y"};
  const char* out_names[1] = {"sum"};
  OrtValue* out[1] = {nullptr};
  auto r = result(api()->Run(s, nullptr, names, in, 2, out_names, 1, out));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT) << r.second;
  EXPECT_NE(r.second.find("'y'"), std::string::npos) << r.second;

  const char* unknown[2] = {"x", "\xff\xfe not utf-8"};
  r = result(api()->Run(s, nullptr, unknown, in, 2, out_names, 1, out));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_NE(r.second.find("not utf-8"), std::string::npos) << r.second;

  const char* bad_out[1] = {"nope"};
  in[1] = in[0];
  r = result(api()->Run(s, nullptr, names, in, 2, bad_out, 1, out));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_NE(r.second.find("nope"), std::string::npos) << r.second;
  EXPECT_EQ(out[0], nullptr);
  api()->ReleaseValue(in[0]);
  api()->ReleaseValue(as_int);
  api()->ReleaseMemoryInfo(cpu);
  api()->ReleaseSession(s);
}

TEST(CApiErrors, UnknownProvidersAndOptions) {
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  expect_error(api()->SessionOptionsAppendExecutionProvider(o, "WarpDrive", nullptr, nullptr, 0),
               ORT_INVALID_ARGUMENT, "provider 'WarpDrive' is not one this build of Tessera has");
  expect_error(api()->SessionOptionsAppendExecutionProvider_TensorRT(o, nullptr), ORT_FAIL,
               "TensorRT execution provider is not part of Tessera");
  expect_error(api()->SetSessionGraphOptimizationLevel(o, static_cast<GraphOptimizationLevel>(5)),
               ORT_INVALID_ARGUMENT, "graph optimization level 5");
  expect_error(api()->SetIntraOpNumThreads(o, -2), ORT_INVALID_ARGUMENT, "-2 is negative");
  char value[4];
  size_t size = sizeof value;
  expect_error(api()->GetSessionConfigEntry(o, "absent.key", value, &size), ORT_INVALID_ARGUMENT,
               "'absent.key' is not set");
  CAPI_OK(api()->AddSessionConfigEntry(o, "some.key", "a longer value"));
  expect_error(api()->GetSessionConfigEntry(o, "some.key", value, &size), ORT_INVALID_ARGUMENT,
               "needs a buffer of 15 bytes");
  EXPECT_EQ(size, 15u);
  // The CPU provider checks its options when the session creates it.
  const char* keys[1] = {"no_such_option"};
  const char* vals[1] = {"1"};
  CAPI_OK(api()->SessionOptionsAppendExecutionProvider(o, "CPU", keys, vals, 1));
  OrtSession* s = nullptr;
  auto r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), o, &s));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_NE(r.second.find("no_such_option"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(o);
}
