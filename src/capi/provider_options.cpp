// Appending execution providers to session options: by name with key/value
// options, through ONNX Runtime's provider-specific structs, and the option
// objects some of those take. Providers Tessera does not have are refused
// with the list of those it has.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/provider_option_maps.hpp"

namespace tessera::capi {
namespace {

// Tessera's name for a provider named the ways ONNX Runtime's users name it.
std::string provider_name(const std::string& name) {
  static const std::vector<std::pair<std::string, std::string>> aliases = {
      {"CPU", "CPUExecutionProvider"},   {"cpu", "CPUExecutionProvider"},
      {"CUDA", "CUDAExecutionProvider"}, {"cuda", "CUDAExecutionProvider"},
      {"DNNL", "DnnlExecutionProvider"}, {"Dnnl", "DnnlExecutionProvider"},
      {"dnnl", "DnnlExecutionProvider"}, {"OneDNN", "DnnlExecutionProvider"},
  };
  for (const auto& [alias, real] : aliases)
    if (name == alias) return real;
  return name;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void append(OrtSessionOptions* options, const std::string& requested,
            std::map<std::string, std::string> provider_options) {
  need(options, "session options");
  const std::string name = provider_name(requested);
  const auto known = all_providers();
  check(std::find(known.begin(), known.end(), name) != known.end(), "provider '", requested,
        "' is not one this build of Tessera has (it has: ", joined(known),
        "; plugins add theirs through RegisterExecutionProviderLibrary)");
  options->providers.push_back({name, std::move(provider_options)});
}

}  // namespace

[[noreturn]] void refuse(const char* provider, const char* instead) {
  fail(ErrorCode::kFail, "the ", provider,
       " execution provider is not part of Tessera (it has: ", joined(all_providers()), ")",
       instead[0] ? "; " : "", instead);
}

namespace {}  // namespace

std::string options_string(const std::map<std::string, std::string>& options) {
  std::string out;
  for (const auto& [k, v] : options) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

void update(std::map<std::string, std::string>& options, const char* const* keys,
            const char* const* values, size_t n) {
  const auto k = string_list(keys, n, "provider_options_keys");
  const auto v = string_list(values, n, "provider_options_values");
  for (size_t i = 0; i < n; ++i) check(!k[i].empty(), "provider_options_keys[", i, "] is empty");
  for (size_t i = 0; i < n; ++i) options[k[i]] = v[i];
}

std::string address_string(const void* p) {
  std::ostringstream os;
  os << "0x" << std::hex << reinterpret_cast<uintptr_t>(p);
  return os.str();
}

void* address_from_string(const std::string& s) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 16);
  check(!s.empty() && end != nullptr && *end == 0 && errno == 0, "'", s,
        "' is not an address (a hexadecimal number such as 0x7f00deadbeef)");
  return reinterpret_cast<void*>(static_cast<uintptr_t>(v));
}

OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider(
    OrtSessionOptions* options, const char* provider_name, const char* const* provider_options_keys,
    const char* const* provider_options_values, size_t num_keys) noexcept {
  return guard("SessionOptionsAppendExecutionProvider", [&] {
    need(provider_name, "provider_name");
    std::map<std::string, std::string> o;
    update(o, provider_options_keys, provider_options_values, num_keys);
    append(options, provider_name, std::move(o));
  });
}

OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_CUDA(
    OrtSessionOptions* options, const OrtCUDAProviderOptions* cuda_options) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_CUDA", [&] {
    need(cuda_options, "cuda_options");
    const OrtCUDAProviderOptions& c = *cuda_options;
    check(c.tunable_op_enable == 0 && c.tunable_op_tuning_enable == 0,
          "tunable ops are not part of Tessera's CUDA provider");
    check(c.arena_extend_strategy == 0 || c.arena_extend_strategy == 1, "arena_extend_strategy ",
          c.arena_extend_strategy, " is not 0 or 1");
    const int search = raw_enum(c.cudnn_conv_algo_search);
    check(search >= OrtCudnnConvAlgoSearchExhaustive && search <= OrtCudnnConvAlgoSearchDefault,
          "cudnn_conv_algo_search ", search, " is unknown");
    static const char* kSearch[] = {"EXHAUSTIVE", "HEURISTIC", "DEFAULT"};
    std::map<std::string, std::string> o;
    o["device_id"] = std::to_string(c.device_id);
    if (c.gpu_mem_limit != SIZE_MAX) o["gpu_mem_limit"] = std::to_string(c.gpu_mem_limit);
    o["arena_extend_strategy"] =
        c.arena_extend_strategy == 1 ? "kSameAsRequested" : "kNextPowerOfTwo";
    o["cudnn_conv_algo_search"] = kSearch[search];
    o["do_copy_in_default_stream"] = c.do_copy_in_default_stream ? "1" : "0";
    if (c.has_user_compute_stream) {
      need(c.user_compute_stream, "user_compute_stream");
      o["user_compute_stream"] = address_string(c.user_compute_stream);
    }
    append(options, "CUDAExecutionProvider", std::move(o));
  });
}

OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_CUDA_V2(
    OrtSessionOptions* options, const OrtCUDAProviderOptionsV2* cuda_options) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_CUDA_V2", [&] {
    need(cuda_options, "cuda_options");
    append(options, "CUDAExecutionProvider", cuda_options->options);
  });
}

OrtStatus* ORT_API_CALL CreateCUDAProviderOptions(OrtCUDAProviderOptionsV2** out) noexcept {
  return guard("CreateCUDAProviderOptions", [&] {
    need(out, "out");
    *out = new OrtCUDAProviderOptionsV2();
  });
}

OrtStatus* ORT_API_CALL UpdateCUDAProviderOptions(OrtCUDAProviderOptionsV2* cuda_options,
                                                  const char* const* provider_options_keys,
                                                  const char* const* provider_options_values,
                                                  size_t num_keys) noexcept {
  return guard("UpdateCUDAProviderOptions", [&] {
    need(cuda_options, "cuda_options");
    update(cuda_options->options, provider_options_keys, provider_options_values, num_keys);
  });
}

OrtStatus* ORT_API_CALL UpdateCUDAProviderOptionsWithValue(OrtCUDAProviderOptionsV2* cuda_options,
                                                           const char* key, void* value) noexcept {
  return guard("UpdateCUDAProviderOptionsWithValue", [&] {
    need(cuda_options, "cuda_options");
    need(key, "key");
    check(std::string(key) == "user_compute_stream", "option '", key,
          "' is not one that takes a pointer (only user_compute_stream does)");
    need(value, "value");
    cuda_options->options[key] = address_string(value);
  });
}

OrtStatus* ORT_API_CALL GetCUDAProviderOptionsByName(const OrtCUDAProviderOptionsV2* cuda_options,
                                                     const char* key, void** ptr) noexcept {
  return guard("GetCUDAProviderOptionsByName", [&] {
    need(cuda_options, "cuda_options");
    need(key, "key");
    need(ptr, "ptr");
    check(std::string(key) == "user_compute_stream", "option '", key, "' does not hold a pointer");
    auto it = cuda_options->options.find(key);
    *ptr = it == cuda_options->options.end() ? nullptr : address_from_string(it->second);
  });
}

OrtStatus* ORT_API_CALL GetCUDAProviderOptionsAsString(const OrtCUDAProviderOptionsV2* cuda_options,
                                                       OrtAllocator* allocator,
                                                       char** ptr) noexcept {
  return guard("GetCUDAProviderOptionsAsString", [&] {
    need(cuda_options, "cuda_options");
    need(ptr, "ptr");
    *ptr = allocate_string(allocator, options_string(cuda_options->options));
  });
}

void ORT_API_CALL ReleaseCUDAProviderOptions(OrtCUDAProviderOptionsV2* input) noexcept {
  delete input;
}

OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_Dnnl(
    OrtSessionOptions* options, const OrtDnnlProviderOptions* dnnl_options) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_Dnnl", [&] {
    need(dnnl_options, "dnnl_options");
    append(options, "DnnlExecutionProvider", dnnl_options->options);
  });
}

OrtStatus* ORT_API_CALL CreateDnnlProviderOptions(OrtDnnlProviderOptions** out) noexcept {
  return guard("CreateDnnlProviderOptions", [&] {
    need(out, "out");
    *out = new OrtDnnlProviderOptions();
  });
}

OrtStatus* ORT_API_CALL UpdateDnnlProviderOptions(OrtDnnlProviderOptions* dnnl_options,
                                                  const char* const* provider_options_keys,
                                                  const char* const* provider_options_values,
                                                  size_t num_keys) noexcept {
  return guard("UpdateDnnlProviderOptions", [&] {
    need(dnnl_options, "dnnl_options");
    update(dnnl_options->options, provider_options_keys, provider_options_values, num_keys);
  });
}

OrtStatus* ORT_API_CALL GetDnnlProviderOptionsAsString(const OrtDnnlProviderOptions* dnnl_options,
                                                       OrtAllocator* allocator,
                                                       char** ptr) noexcept {
  return guard("GetDnnlProviderOptionsAsString", [&] {
    need(dnnl_options, "dnnl_options");
    need(ptr, "ptr");
    *ptr = allocate_string(allocator, options_string(dnnl_options->options));
  });
}

void ORT_API_CALL ReleaseDnnlProviderOptions(OrtDnnlProviderOptions* input) noexcept {
  delete input;
}

// Providers of other vendors' hardware and toolkits: refused, naming what
// Tessera has instead.
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_ROCM(
    OrtSessionOptions* options, const OrtROCMProviderOptions* rocm_options) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_ROCM", [&] {
    need(options, "options");
    need(rocm_options, "rocm_options");
    refuse("ROCm", "");
  });
}
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_OpenVINO(
    OrtSessionOptions*, const OrtOpenVINOProviderOptions*) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_OpenVINO", [] { refuse("OpenVINO", ""); });
}
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_OpenVINO_V2(OrtSessionOptions*,
                                                                          const char* const*,
                                                                          const char* const*,
                                                                          size_t) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_OpenVINO_V2", [] { refuse("OpenVINO", ""); });
}
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_TensorRT(
    OrtSessionOptions*, const OrtTensorRTProviderOptions*) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_TensorRT",
               [] { refuse("TensorRT", kInsteadOfTensorRT); });
}
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_TensorRT_V2(
    OrtSessionOptions* options, const OrtTensorRTProviderOptionsV2* tensorrt_options) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_TensorRT_V2", [&] {
    need(options, "options");
    need(tensorrt_options, "tensorrt_options");
    refuse("TensorRT", kInsteadOfTensorRT);
  });
}
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_MIGraphX(
    OrtSessionOptions*, const OrtMIGraphXProviderOptions*) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_MIGraphX", [] { refuse("MIGraphX", ""); });
}
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_CANN(
    OrtSessionOptions* options, const OrtCANNProviderOptions* cann_options) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_CANN", [&] {
    need(options, "options");
    need(cann_options, "cann_options");
    refuse("CANN", "");
  });
}
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_VitisAI(OrtSessionOptions*,
                                                                      const char* const*,
                                                                      const char* const*,
                                                                      size_t) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_VitisAI", [] { refuse("VitisAI", ""); });
}

}  // namespace tessera::capi
