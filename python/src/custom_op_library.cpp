// SessionOptions.register_custom_ops_library: a custom-op library written
// against ONNX Runtime's C API (it exports RegisterCustomOps) is loaded
// through Tessera's C ABI, which this module carries, so the library's
// kernels run on the same OrtApi table a C program's would.
#include "custom_op_library.hpp"

#include <memory>

#include "capi/handles.hpp"  // OrtSessionOptions: where the registered ops land
#include "core/error.hpp"
#include "tessera/onnxruntime_c_api.h"

namespace tessera::python {

namespace {

ErrorCode error_code(OrtErrorCode code) {
  switch (code) {
    case ORT_INVALID_ARGUMENT:
      return ErrorCode::kInvalidArgument;
    case ORT_NO_SUCHFILE:
      return ErrorCode::kNoSuchFile;
    default:
      return ErrorCode::kFail;
  }
}

}  // namespace

void register_custom_ops_library(SessionOptions& options, const std::string& path) {
  const OrtApi* api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtSessionOptions* raw = nullptr;
  if (OrtStatus* st = api->CreateSessionOptions(&raw)) {
    api->ReleaseStatus(st);
    fail(ErrorCode::kFail, "register_custom_ops_library: could not create session options");
  }
  std::unique_ptr<OrtSessionOptions, void (*)(OrtSessionOptions*)> held(
      raw, [](OrtSessionOptions* o) {
        OrtGetApiBase()->GetApi(ORT_API_VERSION)->ReleaseSessionOptions(o);
      });
  if (OrtStatus* st = api->RegisterCustomOpsLibrary_V2(raw, path.c_str())) {
    const ErrorCode code = error_code(api->GetErrorCode(st));
    std::string message = api->GetErrorMessage(st);
    api->ReleaseStatus(st);
    throw Error(code, message);
  }
  // The ops hold their library loaded; the session options keep the ops.
  auto& ops = options.custom_ops;
  ops.insert(ops.end(), raw->options.custom_ops.begin(), raw->options.custom_ops.end());
}

}  // namespace tessera::python
