// Helpers for tests that use Tessera only through its C ABI: they link
// libtessera.so and include nothing but include/.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tessera/onnxruntime_c_api.h"

namespace capi_test {

inline const OrtApi* api() {
  static const OrtApi* a = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  return a;
}

// The status's code and message (and releases it); ORT_OK for NULL.
inline std::pair<OrtErrorCode, std::string> result(OrtStatus* s) {
  if (s == nullptr) return {ORT_OK, ""};
  std::pair<OrtErrorCode, std::string> r{api()->GetErrorCode(s), api()->GetErrorMessage(s)};
  api()->ReleaseStatus(s);
  return r;
}

#define CAPI_OK(expr)                                                  \
  do {                                                                 \
    auto capi_r = capi_test::result(expr);                             \
    ASSERT_EQ(capi_r.first, ORT_OK) << #expr << ": " << capi_r.second; \
  } while (0)

inline OrtEnv* env() {
  static OrtEnv* e = [] {
    OrtEnv* out = nullptr;
    auto r = result(api()->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "capi-tests", &out));
    EXPECT_EQ(r.first, ORT_OK) << r.second;
    return out;
  }();
  return e;
}

inline std::string model_path(const std::string& name) {
  return std::string(TESSERA_CAPI_MODELS) + "/" + name;
}

inline OrtSession* open_session(const std::string& name, OrtSessionOptions* options = nullptr) {
  OrtSessionOptions* own = nullptr;
  if (options == nullptr) {
    EXPECT_EQ(result(api()->CreateSessionOptions(&own)).first, ORT_OK);
    options = own;
  }
  OrtSession* s = nullptr;
  auto r = result(api()->CreateSession(env(), model_path(name).c_str(), options, &s));
  EXPECT_EQ(r.first, ORT_OK) << r.second;
  if (own != nullptr) api()->ReleaseSessionOptions(own);
  return s;
}

// A float tensor over `data` (which must outlive the value).
inline OrtValue* float_tensor(std::vector<float>& data, const std::vector<int64_t>& shape) {
  OrtMemoryInfo* cpu = nullptr;
  EXPECT_EQ(result(api()->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu)).first,
            ORT_OK);
  OrtValue* v = nullptr;
  auto r = result(api()->CreateTensorWithDataAsOrtValue(
      cpu, data.data(), data.size() * sizeof(float), shape.data(), shape.size(),
      ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v));
  EXPECT_EQ(r.first, ORT_OK) << r.second;
  api()->ReleaseMemoryInfo(cpu);
  return v;
}

inline std::vector<float> floats(OrtValue* v) {
  OrtTensorTypeAndShapeInfo* info = nullptr;
  EXPECT_EQ(result(api()->GetTensorTypeAndShape(v, &info)).first, ORT_OK);
  size_t n = 0;
  EXPECT_EQ(result(api()->GetTensorShapeElementCount(info, &n)).first, ORT_OK);
  api()->ReleaseTensorTypeAndShapeInfo(info);
  float* p = nullptr;
  EXPECT_EQ(result(api()->GetTensorMutableData(v, reinterpret_cast<void**>(&p))).first, ORT_OK);
  return std::vector<float>(p, p + n);
}

}  // namespace capi_test
