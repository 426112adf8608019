// Provider options objects and the struct-based appenders.
#include <cstring>

#include "capi_test_util.hpp"

using namespace capi_test;

TEST(CApiProviders, CudaOptionsObjectsHoldKeysValuesAndTheStreamPointer) {
  OrtCUDAProviderOptionsV2* cuda = nullptr;
  CAPI_OK(api()->CreateCUDAProviderOptions(&cuda));
  const char* keys[2] = {"device_id", "enable_cuda_graph"};
  const char* values[2] = {"0", "1"};
  CAPI_OK(api()->UpdateCUDAProviderOptions(cuda, keys, values, 2));
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* text = nullptr;
  CAPI_OK(api()->GetCUDAProviderOptionsAsString(cuda, a, &text));
  EXPECT_STREQ(text, "device_id=0;enable_cuda_graph=1");
  CAPI_OK(api()->AllocatorFree(a, text));
  int stream_stand_in = 0;
  CAPI_OK(api()->UpdateCUDAProviderOptionsWithValue(cuda, "user_compute_stream", &stream_stand_in));
  void* back = nullptr;
  CAPI_OK(api()->GetCUDAProviderOptionsByName(cuda, "user_compute_stream", &back));
  EXPECT_EQ(back, &stream_stand_in);
  auto r = result(api()->UpdateCUDAProviderOptionsWithValue(cuda, "device_id", &stream_stand_in));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);

  // Appending works wherever CUDA is built; creating the session needs a GPU.
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  r = result(api()->SessionOptionsAppendExecutionProvider_CUDA_V2(o, cuda));
  if (r.first == ORT_OK) {
    OrtSession* s = nullptr;
    r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), o, &s));
    if (r.first == ORT_OK) {
      api()->ReleaseSession(s);  // a GPU is here
    } else {
      EXPECT_NE(r.second.find("CUDAExecutionProvider"), std::string::npos) << r.second;
    }
  } else {
    EXPECT_NE(r.second.find("CUDAExecutionProvider"), std::string::npos) << r.second;
  }
  api()->ReleaseSessionOptions(o);
  api()->ReleaseCUDAProviderOptions(cuda);
}

TEST(CApiProviders, TheCudaStructAppenderChecksItsFields) {
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  OrtCUDAProviderOptions cuda;
  cuda.arena_extend_strategy = 7;
  auto r = result(api()->SessionOptionsAppendExecutionProvider_CUDA(o, &cuda));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("arena_extend_strategy 7"), std::string::npos) << r.second;
  cuda.arena_extend_strategy = 0;
  int bad_search = 9;
  std::memcpy(&cuda.cudnn_conv_algo_search, &bad_search, sizeof bad_search);
  r = result(api()->SessionOptionsAppendExecutionProvider_CUDA(o, &cuda));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("cudnn_conv_algo_search 9"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(o);
}

TEST(CApiProviders, DnnlOptionsObjectsAppendTheDnnlProvider) {
  OrtDnnlProviderOptions* dnnl = nullptr;
  CAPI_OK(api()->CreateDnnlProviderOptions(&dnnl));
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  auto r = result(api()->SessionOptionsAppendExecutionProvider_Dnnl(o, dnnl));
  if (r.first == ORT_OK) {
    OrtSession* s = open_session("add_mul.onnx", o);
    ASSERT_NE(s, nullptr);
    std::vector<float> x = {1, 2, 3}, y = {2, 2, 2};
    OrtValue* in[2] = {float_tensor(x, {1, 3}), float_tensor(y, {1, 3})};
    const char* in_names[2] = {"x", "y"};
    const char* out_names[1] = {"product"};
    OrtValue* out[1] = {nullptr};
    CAPI_OK(api()->Run(s, nullptr, in_names, in, 2, out_names, 1, out));
    EXPECT_EQ(floats(out[0]), (std::vector<float>{2, 4, 6}));
    for (OrtValue* v : {in[0], in[1], out[0]}) api()->ReleaseValue(v);
    api()->ReleaseSession(s);
  } else {
    EXPECT_NE(r.second.find("DnnlExecutionProvider"), std::string::npos) << r.second;
  }
  api()->ReleaseSessionOptions(o);
  api()->ReleaseDnnlProviderOptions(dnnl);
}
