// Option objects of providers Tessera does not have (TensorRT, CANN, ROCm):
// they hold and print what is set, and appending them to session options is
// refused naming the provider and what Tessera has instead.
#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

// What an option object's GetXProviderOptionsAsString answers.
template <typename Get, typename T>
std::string as_string(Get get, const T* o) {
  OrtAllocator* a = nullptr;
  EXPECT_EQ(result(api()->GetAllocatorWithDefaultOptions(&a)).first, ORT_OK);
  char* s = nullptr;
  auto r = result(get(o, a, &s));
  EXPECT_EQ(r.first, ORT_OK) << r.second;
  std::string out = s ? s : "";
  if (s) a->Free(a, s);
  return out;
}

TEST(CApiForeignProviderOptions, TensorRTOptionsHoldWhatIsSetAndAreRefusedOnAppend) {
  OrtTensorRTProviderOptionsV2* trt = nullptr;
  CAPI_OK(api()->CreateTensorRTProviderOptions(&trt));
  EXPECT_EQ(as_string(api()->GetTensorRTProviderOptionsAsString, trt), "");
  const char* keys[] = {"device_id", "trt_fp16_enable"};
  const char* values[] = {"1", "1"};
  CAPI_OK(api()->UpdateTensorRTProviderOptions(trt, keys, values, 2));
  const char* again[] = {"trt_fp16_enable"};
  const char* zero[] = {"0"};
  CAPI_OK(api()->UpdateTensorRTProviderOptions(trt, again, zero, 1));
  EXPECT_EQ(as_string(api()->GetTensorRTProviderOptionsAsString, trt),
            "device_id=1;trt_fp16_enable=0");

  int stream_object = 0;
  void* got = reinterpret_cast<void*>(1);
  CAPI_OK(api()->GetTensorRTProviderOptionsByName(trt, "user_compute_stream", &got));
  EXPECT_EQ(got, nullptr);
  CAPI_OK(
      api()->UpdateTensorRTProviderOptionsWithValue(trt, "user_compute_stream", &stream_object));
  CAPI_OK(api()->GetTensorRTProviderOptionsByName(trt, "user_compute_stream", &got));
  EXPECT_EQ(got, &stream_object);
  auto r = result(api()->UpdateTensorRTProviderOptionsWithValue(trt, "device_id", &stream_object));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("'device_id' is not one that takes a pointer"), std::string::npos)
      << r.second;
  r = result(api()->GetTensorRTProviderOptionsByName(trt, "device_id", &got));
  EXPECT_NE(r.second.find("does not hold a pointer"), std::string::npos) << r.second;

  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  r = result(api()->SessionOptionsAppendExecutionProvider_TensorRT_V2(o, trt));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("TensorRT execution provider is not part of Tessera"), std::string::npos)
      << r.second;
  EXPECT_NE(r.second.find("use Tessera's CUDA provider"), std::string::npos) << r.second;
  r = result(api()->SessionOptionsAppendExecutionProvider_TensorRT_V2(o, nullptr));
  EXPECT_NE(r.second.find("tensorrt_options is null"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(o);
  api()->ReleaseTensorRTProviderOptions(trt);
  api()->ReleaseTensorRTProviderOptions(nullptr);
}

TEST(CApiForeignProviderOptions, CannOptionsHoldWhatIsSetAndAreRefusedOnAppend) {
  OrtCANNProviderOptions* cann = nullptr;
  CAPI_OK(api()->CreateCANNProviderOptions(&cann));
  const char* keys[] = {"device_id", "npu_mem_limit"};
  const char* values[] = {"0", "1073741824"};
  CAPI_OK(api()->UpdateCANNProviderOptions(cann, keys, values, 2));
  EXPECT_EQ(as_string(api()->GetCANNProviderOptionsAsString, cann),
            "device_id=0;npu_mem_limit=1073741824");
  const char* empty_key[] = {""};
  auto r = result(api()->UpdateCANNProviderOptions(cann, empty_key, values, 1));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("provider_options_keys[0] is empty"), std::string::npos) << r.second;
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  r = result(api()->SessionOptionsAppendExecutionProvider_CANN(o, cann));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("CANN execution provider is not part of Tessera"), std::string::npos)
      << r.second;
  api()->ReleaseSessionOptions(o);
  api()->ReleaseCANNProviderOptions(cann);
}

TEST(CApiForeignProviderOptions, RocmOptionsAreTheStructsFields) {
  OrtROCMProviderOptions* rocm = nullptr;
  CAPI_OK(api()->CreateROCMProviderOptions(&rocm));
  EXPECT_EQ(rocm->device_id, 0);
  EXPECT_EQ(rocm->do_copy_in_default_stream, 1);
  const char* keys[] = {"device_id", "arena_extend_strategy", "tunable_op_enable", "gpu_mem_limit"};
  const char* values[] = {"2", "kSameAsRequested", "true", "4096"};
  CAPI_OK(api()->UpdateROCMProviderOptions(rocm, keys, values, 4));
  EXPECT_EQ(rocm->device_id, 2);
  EXPECT_EQ(rocm->arena_extend_strategy, 1);
  EXPECT_EQ(rocm->tunable_op_enable, 1);
  EXPECT_EQ(rocm->gpu_mem_limit, 4096u);
  const std::string text = as_string(api()->GetROCMProviderOptionsAsString, rocm);
  EXPECT_NE(text.find("device_id=2"), std::string::npos) << text;
  EXPECT_NE(text.find("arena_extend_strategy=kSameAsRequested"), std::string::npos) << text;

  // A bad key or value changes nothing.
  const char* bad_keys[] = {"device_id", "not_an_option"};
  const char* bad_values[] = {"5", "1"};
  auto r = result(api()->UpdateROCMProviderOptions(rocm, bad_keys, bad_values, 2));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("'not_an_option' is not a ROCm provider option"), std::string::npos)
      << r.second;
  EXPECT_EQ(rocm->device_id, 2);
  const char* id[] = {"device_id"};
  const char* minus[] = {"-1"};
  r = result(api()->UpdateROCMProviderOptions(rocm, id, minus, 1));
  EXPECT_NE(r.second.find("option 'device_id' = '-1' is not an integer in [0, "), std::string::npos)
      << r.second;

  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  r = result(api()->SessionOptionsAppendExecutionProvider_ROCM(o, rocm));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("ROCm execution provider is not part of Tessera"), std::string::npos)
      << r.second;
  api()->ReleaseSessionOptions(o);
  api()->ReleaseROCMProviderOptions(rocm);
}

TEST(CApiForeignProviderOptions, NullHandlesAndOutPointersAreErrorsNamingThem) {
  auto expect = [](OrtStatus* st, const char* what) {
    auto r = result(st);
    EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT) << what;
    EXPECT_NE(r.second.find(std::string(what) + " is null"), std::string::npos) << r.second;
  };
  expect(api()->CreateTensorRTProviderOptions(nullptr), "out");
  expect(api()->CreateCANNProviderOptions(nullptr), "out");
  expect(api()->CreateROCMProviderOptions(nullptr), "out");
  const char* k[] = {"a"};
  const char* v[] = {"b"};
  expect(api()->UpdateTensorRTProviderOptions(nullptr, k, v, 1), "tensorrt_options");
  expect(api()->UpdateCANNProviderOptions(nullptr, k, v, 1), "cann_options");
  expect(api()->UpdateROCMProviderOptions(nullptr, k, v, 1), "rocm_options");
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* s = nullptr;
  expect(api()->GetTensorRTProviderOptionsAsString(nullptr, a, &s), "tensorrt_options");
  expect(api()->GetCANNProviderOptionsAsString(nullptr, a, &s), "cann_options");
  expect(api()->GetROCMProviderOptionsAsString(nullptr, a, &s), "rocm_options");
  OrtTensorRTProviderOptionsV2* trt = nullptr;
  CAPI_OK(api()->CreateTensorRTProviderOptions(&trt));
  expect(api()->GetTensorRTProviderOptionsAsString(trt, a, nullptr), "ptr");
  expect(api()->UpdateTensorRTProviderOptions(trt, nullptr, v, 1), "provider_options_keys");
  expect(api()->UpdateTensorRTProviderOptionsWithValue(trt, nullptr, a), "key");
  expect(api()->UpdateTensorRTProviderOptionsWithValue(trt, "user_compute_stream", nullptr),
         "value");
  expect(api()->GetTensorRTProviderOptionsByName(trt, "user_compute_stream", nullptr), "ptr");
  api()->ReleaseTensorRTProviderOptions(trt);
  api()->ReleaseCANNProviderOptions(nullptr);
  api()->ReleaseROCMProviderOptions(nullptr);
}

}  // namespace
