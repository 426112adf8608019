// The C++ API's foundation: the C table, errors as exceptions, and owning
// handles that give each C object back with its Release entry.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/onnxruntime_c_api.h"

namespace tessera::api {

// A failed C call: the OrtErrorCode and the runtime's full message.
class Error : public std::runtime_error {
 public:
  Error(OrtErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  OrtErrorCode code() const noexcept { return code_; }

 private:
  OrtErrorCode code_;
};

// The C function table this header was written against.
inline const OrtApi& c_api() {
  static const OrtApi* table = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (table == nullptr)
    throw Error(ORT_FAIL, "the loaded Tessera library does not serve API version " +
                              std::to_string(ORT_API_VERSION));
  return *table;
}

// Throws the status as an Error (and gives the status back); does nothing
// for success.
inline void check(OrtStatus* status) {
  if (status == nullptr) return;
  const OrtApi& a = c_api();
  Error e(a.GetErrorCode(status), a.GetErrorMessage(status));
  a.ReleaseStatus(status);
  throw e;
}

// Gives each C object back through its Release entry.
struct Release {
  void operator()(OrtEnv* p) const noexcept { c_api().ReleaseEnv(p); }
  void operator()(OrtSession* p) const noexcept { c_api().ReleaseSession(p); }
  void operator()(OrtSessionOptions* p) const noexcept { c_api().ReleaseSessionOptions(p); }
  void operator()(OrtRunOptions* p) const noexcept { c_api().ReleaseRunOptions(p); }
  void operator()(OrtValue* p) const noexcept { c_api().ReleaseValue(p); }
  void operator()(OrtMemoryInfo* p) const noexcept { c_api().ReleaseMemoryInfo(p); }
  void operator()(OrtTypeInfo* p) const noexcept { c_api().ReleaseTypeInfo(p); }
  void operator()(OrtTensorTypeAndShapeInfo* p) const noexcept {
    c_api().ReleaseTensorTypeAndShapeInfo(p);
  }
  void operator()(OrtIoBinding* p) const noexcept { c_api().ReleaseIoBinding(p); }
  void operator()(OrtModelMetadata* p) const noexcept { c_api().ReleaseModelMetadata(p); }
  void operator()(OrtKeyValuePairs* p) const noexcept { c_api().ReleaseKeyValuePairs(p); }
  void operator()(OrtThreadingOptions* p) const noexcept { c_api().ReleaseThreadingOptions(p); }
};

template <typename T>
using Owned = std::unique_ptr<T, Release>;

// The process's default host allocator (never released).
inline OrtAllocator* default_allocator() {
  OrtAllocator* a = nullptr;
  check(c_api().GetAllocatorWithDefaultOptions(&a));
  return a;
}

// Takes a string the runtime allocated with `a` and frees it.
inline std::string take_string(char* s, OrtAllocator* a) {
  std::string out = s != nullptr ? s : "";
  if (s != nullptr) check(c_api().AllocatorFree(a, s));
  return out;
}

}  // namespace tessera::api
