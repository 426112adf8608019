// Option objects of providers Tessera does not have (TensorRT, CANN, ROCm).
// Programs written for ONNX Runtime build them before they append a
// provider, so they are real holders: what is set reads back, and only the
// append (provider_options.cpp) is refused, naming what Tessera has. TensorRT
// is not mapped onto the CUDA provider: its options (engine caches,
// precision flags, profiles) have no meaning there, so a silent mapping
// would run a different configuration than the one asked for.
#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/provider_option_maps.hpp"

namespace tessera::capi {
namespace {

// The option keys that hold a pointer rather than text.
bool is_pointer_key(const std::string& key) { return key == "user_compute_stream"; }

long long parse_integer(const std::string& key, const std::string& value, long long lo,
                        long long hi) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  check(!value.empty() && end != nullptr && *end == 0 && errno == 0 && v >= lo && v <= hi,
        "option '", key, "' = '", value, "' is not an integer in [", lo, ", ", hi, "]");
  return v;
}

int parse_flag(const std::string& key, const std::string& value) {
  if (value == "true" || value == "True") return 1;
  if (value == "false" || value == "False") return 0;
  return int(parse_integer(key, value, 0, 1));
}

void set_rocm_option(OrtROCMProviderOptions& o, const std::string& key, const std::string& value) {
  if (key == "device_id")
    o.device_id = int(parse_integer(key, value, 0, INT32_MAX));
  else if (key == "miopen_conv_exhaustive_search")
    o.miopen_conv_exhaustive_search = parse_flag(key, value);
  else if (key == "gpu_mem_limit")
    o.gpu_mem_limit = size_t(parse_integer(key, value, 1, INT64_MAX));
  else if (key == "arena_extend_strategy") {
    if (value == "kNextPowerOfTwo" || value == "0")
      o.arena_extend_strategy = 0;
    else if (value == "kSameAsRequested" || value == "1")
      o.arena_extend_strategy = 1;
    else
      fail(ErrorCode::kInvalidArgument, "option 'arena_extend_strategy' = '", value,
           "' is not kNextPowerOfTwo (0) or kSameAsRequested (1)");
  } else if (key == "do_copy_in_default_stream")
    o.do_copy_in_default_stream = parse_flag(key, value);
  else if (key == "user_compute_stream") {
    o.user_compute_stream = address_from_string(value);
    o.has_user_compute_stream = o.user_compute_stream != nullptr;
  } else if (key == "enable_hip_graph")
    o.enable_hip_graph = parse_flag(key, value);
  else if (key == "tunable_op_enable")
    o.tunable_op_enable = parse_flag(key, value);
  else if (key == "tunable_op_tuning_enable")
    o.tunable_op_tuning_enable = parse_flag(key, value);
  else if (key == "tunable_op_max_tuning_duration_ms")
    o.tunable_op_max_tuning_duration_ms = int(parse_integer(key, value, 0, INT32_MAX));
  else
    fail(ErrorCode::kInvalidArgument, "'", key,
         "' is not a ROCm provider option (device_id, miopen_conv_exhaustive_search, "
         "gpu_mem_limit, arena_extend_strategy, do_copy_in_default_stream, user_compute_stream, "
         "enable_hip_graph, tunable_op_enable, tunable_op_tuning_enable, "
         "tunable_op_max_tuning_duration_ms)");
}

std::string rocm_string(const OrtROCMProviderOptions& o) {
  std::map<std::string, std::string> m;
  m["device_id"] = std::to_string(o.device_id);
  m["miopen_conv_exhaustive_search"] = std::to_string(o.miopen_conv_exhaustive_search);
  m["gpu_mem_limit"] = std::to_string(o.gpu_mem_limit);
  m["arena_extend_strategy"] =
      o.arena_extend_strategy == 1 ? "kSameAsRequested" : "kNextPowerOfTwo";
  m["do_copy_in_default_stream"] = std::to_string(o.do_copy_in_default_stream);
  m["has_user_compute_stream"] = std::to_string(o.has_user_compute_stream);
  m["user_compute_stream"] = address_string(o.user_compute_stream);
  m["enable_hip_graph"] = std::to_string(o.enable_hip_graph);
  m["tunable_op_enable"] = std::to_string(o.tunable_op_enable);
  m["tunable_op_tuning_enable"] = std::to_string(o.tunable_op_tuning_enable);
  m["tunable_op_max_tuning_duration_ms"] = std::to_string(o.tunable_op_max_tuning_duration_ms);
  return options_string(m);
}

}  // namespace

OrtStatus* ORT_API_CALL CreateTensorRTProviderOptions(OrtTensorRTProviderOptionsV2** out) noexcept {
  return guard("CreateTensorRTProviderOptions", [&] {
    need(out, "out");
    *out = new OrtTensorRTProviderOptionsV2();
  });
}

OrtStatus* ORT_API_CALL UpdateTensorRTProviderOptions(
    OrtTensorRTProviderOptionsV2* tensorrt_options, const char* const* provider_options_keys,
    const char* const* provider_options_values, size_t num_keys) noexcept {
  return guard("UpdateTensorRTProviderOptions", [&] {
    need(tensorrt_options, "tensorrt_options");
    update(tensorrt_options->options, provider_options_keys, provider_options_values, num_keys);
  });
}

OrtStatus* ORT_API_CALL UpdateTensorRTProviderOptionsWithValue(
    OrtTensorRTProviderOptionsV2* tensorrt_options, const char* key, void* value) noexcept {
  return guard("UpdateTensorRTProviderOptionsWithValue", [&] {
    need(tensorrt_options, "tensorrt_options");
    need(key, "key");
    check(is_pointer_key(key), "option '", key,
          "' is not one that takes a pointer (only user_compute_stream does)");
    need(value, "value");
    tensorrt_options->options[key] = address_string(value);
  });
}

OrtStatus* ORT_API_CALL GetTensorRTProviderOptionsByName(
    const OrtTensorRTProviderOptionsV2* tensorrt_options, const char* key, void** ptr) noexcept {
  return guard("GetTensorRTProviderOptionsByName", [&] {
    need(tensorrt_options, "tensorrt_options");
    need(key, "key");
    need(ptr, "ptr");
    check(is_pointer_key(key), "option '", key, "' does not hold a pointer");
    auto it = tensorrt_options->options.find(key);
    *ptr = it == tensorrt_options->options.end() ? nullptr : address_from_string(it->second);
  });
}

OrtStatus* ORT_API_CALL
GetTensorRTProviderOptionsAsString(const OrtTensorRTProviderOptionsV2* tensorrt_options,
                                   OrtAllocator* allocator, char** ptr) noexcept {
  return guard("GetTensorRTProviderOptionsAsString", [&] {
    need(tensorrt_options, "tensorrt_options");
    need(ptr, "ptr");
    *ptr = allocate_string(allocator, options_string(tensorrt_options->options));
  });
}

void ORT_API_CALL ReleaseTensorRTProviderOptions(OrtTensorRTProviderOptionsV2* input) noexcept {
  delete input;
}

OrtStatus* ORT_API_CALL CreateCANNProviderOptions(OrtCANNProviderOptions** out) noexcept {
  return guard("CreateCANNProviderOptions", [&] {
    need(out, "out");
    *out = new OrtCANNProviderOptions();
  });
}

OrtStatus* ORT_API_CALL UpdateCANNProviderOptions(OrtCANNProviderOptions* cann_options,
                                                  const char* const* provider_options_keys,
                                                  const char* const* provider_options_values,
                                                  size_t num_keys) noexcept {
  return guard("UpdateCANNProviderOptions", [&] {
    need(cann_options, "cann_options");
    update(cann_options->options, provider_options_keys, provider_options_values, num_keys);
  });
}

OrtStatus* ORT_API_CALL GetCANNProviderOptionsAsString(const OrtCANNProviderOptions* cann_options,
                                                       OrtAllocator* allocator,
                                                       char** ptr) noexcept {
  return guard("GetCANNProviderOptionsAsString", [&] {
    need(cann_options, "cann_options");
    need(ptr, "ptr");
    *ptr = allocate_string(allocator, options_string(cann_options->options));
  });
}

void ORT_API_CALL ReleaseCANNProviderOptions(OrtCANNProviderOptions* input) noexcept {
  delete input;
}

// OrtROCMProviderOptions is a struct the header defines: the options are its
// fields, so only the keys naming a field are accepted.
OrtStatus* ORT_API_CALL CreateROCMProviderOptions(OrtROCMProviderOptions** out) noexcept {
  return guard("CreateROCMProviderOptions", [&] {
    need(out, "out");
    *out = new OrtROCMProviderOptions();
  });
}

OrtStatus* ORT_API_CALL UpdateROCMProviderOptions(OrtROCMProviderOptions* rocm_options,
                                                  const char* const* provider_options_keys,
                                                  const char* const* provider_options_values,
                                                  size_t num_keys) noexcept {
  return guard("UpdateROCMProviderOptions", [&] {
    need(rocm_options, "rocm_options");
    std::map<std::string, std::string> given;
    update(given, provider_options_keys, provider_options_values, num_keys);
    // All or nothing: a bad key or value leaves the options as they were.
    OrtROCMProviderOptions next = *rocm_options;
    for (const auto& [k, v] : given) set_rocm_option(next, k, v);
    *rocm_options = next;
  });
}

OrtStatus* ORT_API_CALL GetROCMProviderOptionsAsString(const OrtROCMProviderOptions* rocm_options,
                                                       OrtAllocator* allocator,
                                                       char** ptr) noexcept {
  return guard("GetROCMProviderOptionsAsString", [&] {
    need(rocm_options, "rocm_options");
    need(ptr, "ptr");
    *ptr = allocate_string(allocator, rocm_string(*rocm_options));
  });
}

void ORT_API_CALL ReleaseROCMProviderOptions(OrtROCMProviderOptions* input) noexcept {
  delete input;
}

}  // namespace tessera::capi
