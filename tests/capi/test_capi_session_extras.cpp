// Entries around a session: dynamic options of a live session, captured
// graphs, compiled-model compatibility strings, and the current GPU device.
#include <fstream>
#include <sstream>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

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

TEST(CApiSessionExtras, TheWorkloadTypeIsADynamicOption) {
  OrtSession* s = open_session("add_mul.onnx");
  ASSERT_NE(s, nullptr);
  const char* key[] = {"ep.dynamic.workload_type"};
  const char* efficient[] = {"Efficient"};
  const char* normal[] = {"Default"};
  CAPI_OK(api()->SetEpDynamicOptions(s, key, efficient, 1));
  run_add_mul(s);
  CAPI_OK(api()->SetEpDynamicOptions(s, key, normal, 1));
  run_add_mul(s);

  const char* unknown[] = {"ep.dynamic.turbo"};
  auto r = result(api()->SetEpDynamicOptions(s, unknown, efficient, 1));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("dynamic option 'ep.dynamic.turbo' is not one Tessera knows"),
            std::string::npos)
      << r.second;
  const char* odd[] = {"Fast"};
  r = result(api()->SetEpDynamicOptions(s, key, odd, 1));
  EXPECT_NE(r.second.find("'Fast' is not Default or Efficient"), std::string::npos) << r.second;
  r = result(api()->SetEpDynamicOptions(nullptr, key, efficient, 1));
  EXPECT_NE(r.second.find("session is null"), std::string::npos) << r.second;
  r = result(api()->SetEpDynamicOptions(s, nullptr, efficient, 1));
  EXPECT_NE(r.second.find("keys is null"), std::string::npos) << r.second;
  r = result(api()->SetEpDynamicOptions(s, key, nullptr, 1));
  EXPECT_NE(r.second.find("values is null"), std::string::npos) << r.second;
  r = result(api()->SetEpDynamicOptions(s, key, efficient, 0));
  EXPECT_NE(r.second.find("kv_len is 0"), std::string::npos) << r.second;
  api()->ReleaseSession(s);
}

TEST(CApiSessionExtras, ASessionWithoutCapturedRunsHasNoGraphToRelease) {
  OrtSession* s = open_session("add_mul.onnx");
  ASSERT_NE(s, nullptr);
  auto r = result(api()->SessionReleaseCapturedGraph(s, 0));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("no captured graph for annotation id 0: it captures no runs"),
            std::string::npos)
      << r.second;
  r = result(api()->SessionReleaseCapturedGraph(nullptr, 0));
  EXPECT_NE(r.second.find("session is null"), std::string::npos) << r.second;
  api()->ReleaseSession(s);
}

std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(CApiSessionExtras, TheCompatibilityStringIsReadFromTheModelsMetadata) {
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  const std::string path = model_path("doubler.onnx");
  char* info = nullptr;
  CAPI_OK(api()->GetCompatibilityInfoFromModel(path.c_str(), "TestEP", a, &info));
  ASSERT_NE(info, nullptr);
  EXPECT_STREQ(info, "test;version=1.2");
  a->Free(a, info);
  info = reinterpret_cast<char*>(1);
  CAPI_OK(api()->GetCompatibilityInfoFromModel(path.c_str(), "CPUExecutionProvider", a, &info));
  EXPECT_EQ(info, nullptr) << "a provider without a string gets null";

  const std::string bytes = file_bytes(path);
  CAPI_OK(
      api()->GetCompatibilityInfoFromModelBytes(bytes.data(), bytes.size(), "TestEP", a, &info));
  ASSERT_NE(info, nullptr);
  EXPECT_STREQ(info, "test;version=1.2");
  a->Free(a, info);

  auto r = result(api()->GetCompatibilityInfoFromModel(nullptr, "TestEP", a, &info));
  EXPECT_NE(r.second.find("model_path is null"), std::string::npos) << r.second;
  r = result(api()->GetCompatibilityInfoFromModel(path.c_str(), nullptr, a, &info));
  EXPECT_NE(r.second.find("ep_type is null"), std::string::npos) << r.second;
  r = result(api()->GetCompatibilityInfoFromModel(path.c_str(), "TestEP", nullptr, &info));
  EXPECT_NE(r.second.find("allocator is null"), std::string::npos) << r.second;
  r = result(api()->GetCompatibilityInfoFromModel(path.c_str(), "TestEP", a, nullptr));
  EXPECT_NE(r.second.find("compatibility_info is null"), std::string::npos) << r.second;
  r = result(api()->GetCompatibilityInfoFromModel((path + ".absent").c_str(), "TestEP", a, &info));
  EXPECT_EQ(r.first, ORT_NO_SUCHFILE) << r.second;
  r = result(api()->GetCompatibilityInfoFromModelBytes("garbage", 7, "TestEP", a, &info));
  EXPECT_EQ(r.first, ORT_INVALID_PROTOBUF) << r.second;
  r = result(api()->GetCompatibilityInfoFromModelBytes(nullptr, 7, "TestEP", a, &info));
  EXPECT_NE(r.second.find("model_data is null"), std::string::npos) << r.second;
}

TEST(CApiSessionExtras, TesserasProvidersFindCompiledModelsNotApplicable) {
  const OrtEpDevice* const* devices = nullptr;
  size_t n = 0;
  CAPI_OK(api()->GetEpDevices(env(), &devices, &n));
  ASSERT_GT(n, 0u);
  OrtCompiledModelCompatibility status = OrtCompiledModelCompatibility_EP_UNSUPPORTED;
  CAPI_OK(api()->GetModelCompatibilityForEpDevices(devices, 1, "test;version=1.2", &status));
  EXPECT_EQ(status, OrtCompiledModelCompatibility_EP_NOT_APPLICABLE);
  auto r = result(api()->GetModelCompatibilityForEpDevices(nullptr, 1, "x", &status));
  EXPECT_NE(r.second.find("ep_devices is null"), std::string::npos) << r.second;
  r = result(api()->GetModelCompatibilityForEpDevices(devices, 0, "x", &status));
  EXPECT_NE(r.second.find("num_ep_devices is 0"), std::string::npos) << r.second;
  r = result(api()->GetModelCompatibilityForEpDevices(devices, 1, nullptr, &status));
  EXPECT_NE(r.second.find("compatibility_info is null"), std::string::npos) << r.second;
  r = result(api()->GetModelCompatibilityForEpDevices(devices, 1, "x", nullptr));
  EXPECT_NE(r.second.find("out_status is null"), std::string::npos) << r.second;
  const OrtEpDevice* with_null[2] = {devices[0], nullptr};
  r = result(api()->GetModelCompatibilityForEpDevices(with_null, 2, "x", &status));
  EXPECT_NE(r.second.find("ep_devices[1] is null"), std::string::npos) << r.second;
}

// With the CUDA provider and a GPU the device round-trips; without them both
// entries fail saying CUDA is not available.
TEST(CApiSessionExtras, TheCurrentGpuDeviceGoesThroughTheCudaRuntime) {
  auto r = result(api()->GetCurrentGpuDeviceId(nullptr));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("device_id is null"), std::string::npos) << r.second;
  r = result(api()->SetCurrentGpuDeviceId(-1));
  EXPECT_NE(r.second.find("device_id -1 is negative"), std::string::npos) << r.second;
  int id = -1;
  r = result(api()->GetCurrentGpuDeviceId(&id));
  if (r.first != ORT_OK) {
    EXPECT_EQ(r.first, ORT_FAIL);
    EXPECT_NE(r.second.find("CUDA is not available"), std::string::npos) << r.second;
    r = result(api()->SetCurrentGpuDeviceId(0));
    EXPECT_EQ(r.first, ORT_FAIL);
    EXPECT_NE(r.second.find("CUDA is not available"), std::string::npos) << r.second;
    return;
  }
  EXPECT_GE(id, 0);
  CAPI_OK(api()->SetCurrentGpuDeviceId(0));
  CAPI_OK(api()->GetCurrentGpuDeviceId(&id));
  EXPECT_EQ(id, 0);
  r = result(api()->SetCurrentGpuDeviceId(4096));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("device_id 4096 is out of range"), std::string::npos) << r.second;
}

}  // namespace
