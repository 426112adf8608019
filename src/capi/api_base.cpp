// The exported entry point and the table of each API version.
#include "capi/api_status.hpp"
#include "runtime/runtime_api.hpp"

namespace tessera::capi {

extern const OrtApi kOrtApi;

namespace {

const OrtApi* ORT_API_CALL get_api(uint32_t version) noexcept {
  // The table only grows: version v's entries are a prefix of the newest one.
  return version >= 1 && version <= ORT_API_VERSION ? &kOrtApi : nullptr;
}

const char* ORT_API_CALL get_version_string() noexcept { return version_string(); }

const OrtApiBase kApiBase = {get_api, get_version_string};

}  // namespace

const char* ORT_API_CALL GetBuildInfoString() noexcept {
  static const std::string info = std::string("Tessera ") + version_string() + ", OrtApi version " +
                                  std::to_string(ORT_API_VERSION);
  return info.c_str();
}

// The getters of the training, compile, EP and interop tables are not
// defined here: Tessera provides none of those tables, so the generated
// table answers them with NULL and docs/c_api.md lists them as not
// implemented.
OrtExperimentalFnPtr ORT_API_CALL GetExperimentalFunction(const char*) noexcept { return nullptr; }

}  // namespace tessera::capi

extern "C" ORT_EXPORT const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) noexcept {
  return &tessera::capi::kApiBase;
}
