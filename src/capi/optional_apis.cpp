// Entries for parts ONNX Runtime builds only on request (the training API,
// onnxruntime-extensions' custom ops, provider-specific tables such as
// DirectML's). Tessera has none of them, so each answers exactly as an ONNX
// Runtime build without that part does: applications already handle those
// answers, and a different one (a not-implemented status, say) would break
// their checks.
#include <string>

#include "capi/api_status.hpp"

namespace tessera::capi {

// No training table: NULL for every version, without a message, as a build
// without training answers.
const OrtTrainingApi* ORT_API_CALL GetTrainingApi(uint32_t version) noexcept {
  (void)version;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetExecutionProviderApi(const char* provider_name, uint32_t version,
                                                const void** provider_api) noexcept {
  (void)version;
  return guard("GetExecutionProviderApi", [&] {
    need(provider_api, "provider_api");
    *provider_api = nullptr;
    need(provider_name, "provider_name");
    fail(ErrorCode::kInvalidArgument, "provider '", provider_name,
         "' has no provider-specific API table in Tessera (none of its providers has one)");
  });
}

// Session options of NULL succeed (there is nothing to register into), as in
// ONNX Runtime; real options fail because the extensions' operators are not
// part of Tessera.
OrtStatus* ORT_API_CALL EnableOrtCustomOps(OrtSessionOptions* options) noexcept {
  if (options == nullptr) return nullptr;
  return make_status(ORT_FAIL,
                     "EnableOrtCustomOps: Tessera is built without onnxruntime-extensions, so "
                     "its custom operators cannot be registered");
}

}  // namespace tessera::capi
