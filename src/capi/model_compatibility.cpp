// Compiled-model compatibility: the string a provider stores in a model it
// compiled (metadata key "ep_compatibility_info.<provider>") and whether the
// providers of some devices can run a model compiled that way.
#include <algorithm>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/handles.hpp"
#include "onnx/model_reader.hpp"

namespace tessera::capi {
namespace {

constexpr const char* kCompatibilityPrefix = "ep_compatibility_info.";

// The model's compatibility string for `ep_type`, copied with `allocator`,
// or null when the model has none.
char* compatibility_info(const ir::Model& model, const char* ep_type, OrtAllocator* allocator) {
  const std::string key = std::string(kCompatibilityPrefix) + ep_type;
  for (const auto& [k, v] : model.metadata_props)
    if (k == key) return allocate_string(allocator, v);
  return nullptr;
}

void check_args(const char* ep_type, OrtAllocator* allocator, char** out) {
  need(ep_type, "ep_type");
  check(ep_type[0] != 0, "ep_type is empty");
  need(allocator, "allocator");
  need(out, "compatibility_info");
}

}  // namespace

OrtStatus* ORT_API_CALL GetCompatibilityInfoFromModel(const ORTCHAR_T* model_path,
                                                      const char* ep_type, OrtAllocator* allocator,
                                                      char** compatibility_info_out) noexcept {
  return guard("GetCompatibilityInfoFromModel", [&] {
    need(model_path, "model_path");
    check_args(ep_type, allocator, compatibility_info_out);
    *compatibility_info_out = compatibility_info(onnx::load_model(model_path), ep_type, allocator);
  });
}

OrtStatus* ORT_API_CALL GetCompatibilityInfoFromModelBytes(const void* model_data,
                                                           size_t model_data_length,
                                                           const char* ep_type,
                                                           OrtAllocator* allocator,
                                                           char** compatibility_info_out) noexcept {
  return guard("GetCompatibilityInfoFromModelBytes", [&] {
    need(model_data, "model_data");
    check(model_data_length > 0, "model_data_length is 0");
    check_args(ep_type, allocator, compatibility_info_out);
    *compatibility_info_out =
        compatibility_info(onnx::parse_model(model_data, model_data_length), ep_type, allocator);
  });
}

// Tessera's providers compile no models into provider-specific forms (no
// EPContext nodes), so they have no compatibility string to judge: for any
// of their devices the answer is "not applicable", and the model runs as
// the ONNX graph it is.
OrtStatus* ORT_API_CALL GetModelCompatibilityForEpDevices(
    const OrtEpDevice* const* ep_devices, size_t num_ep_devices, const char* compatibility_info,
    OrtCompiledModelCompatibility* out_status) noexcept {
  return guard("GetModelCompatibilityForEpDevices", [&] {
    need(ep_devices, "ep_devices");
    check(num_ep_devices > 0, "num_ep_devices is 0");
    need(compatibility_info, "compatibility_info");
    need(out_status, "out_status");
    for (size_t i = 0; i < num_ep_devices; ++i) {
      check(ep_devices[i] != nullptr, "ep_devices[", i, "] is null");
      check(ep_devices[i]->ep_name == ep_devices[0]->ep_name, "ep_devices[", i, "] is of provider ",
            ep_devices[i]->ep_name, " but ep_devices[0] of ", ep_devices[0]->ep_name,
            ": the devices must share one provider");
    }
    *out_status = OrtCompiledModelCompatibility_EP_NOT_APPLICABLE;
  });
}

}  // namespace tessera::capi
