#include "providers/cuda/cuda_options.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace tessera::cuda {

namespace {

const char* kName = "CUDAExecutionProvider";

struct Key {
  std::string name;
  std::string values;  // what is allowed, in words
};

const std::vector<Key>& keys() {
  static const std::vector<Key> k = {
      {"device_id", "an integer from 0 to the number of CUDA devices - 1"},
      {"gpu_mem_limit", "a positive integer (bytes)"},
      {"arena_extend_strategy", "kNextPowerOfTwo, kSameAsRequested"},
      {"cudnn_conv_algo_search", "EXHAUSTIVE, HEURISTIC, DEFAULT"},
      {"cudnn_conv_use_max_workspace", "0, 1"},
      {"do_copy_in_default_stream", "0, 1"},
      {"user_compute_stream", "the address of a cudaStream_t, decimal or 0x-hex, not 0"},
      {"enable_cuda_graph", "0, 1"},
      {"use_tf32", "0, 1"},
      {"prefer_fp16", "0, 1"},
      {"cudnn_conv_algo_cache", "a file path (created when missing), not empty"},
      {"attention_kernel", "auto, tensor_cores, tiled, rows"},
  };
  return k;
}

std::string all_keys() {
  std::string out;
  for (const auto& k : keys()) out += str_cat(out.empty() ? "" : "; ", k.name, " (", k.values, ")");
  return out;
}

[[noreturn]] void bad_value(const std::string& key, const std::string& value,
                            const std::string& why = "") {
  const auto& k = keys();
  auto it = std::find_if(k.begin(), k.end(), [&](const Key& x) { return x.name == key; });
  fail(ErrorCode::kInvalidArgument, kName, ": option '", key, "' has bad value '", value, "'",
       why.empty() ? "" : str_cat(": ", why), "; allowed: ", it->values);
}

// Digits only (no sign, no spaces), in `base`; false on anything else or overflow.
bool parse_unsigned(const std::string& v, uint64_t& out, int base = 10) {
  if (v.empty()) return false;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
  return ec == std::errc() && end == v.data() + v.size();
}

// A cudaStream_t's address: decimal or 0x-hex, not 0.
bool parse_address(const std::string& v, uint64_t& out) {
  const bool ok = v.size() > 2 && (v.starts_with("0x") || v.starts_with("0X"))
                      ? parse_unsigned(v.substr(2), out, 16)
                      : parse_unsigned(v, out);
  return ok && out != 0;
}

// The enum value `v` names among `names` (each spelling with its value).
template <typename E>
E parse_enum(const std::string& key, const std::string& v,
             std::initializer_list<std::pair<const char*, E>> names) {
  for (const auto& [name, value] : names)
    if (v == name) return value;
  bad_value(key, v);
}

bool parse_bool(const std::string& key, const std::string& v) {
  if (v == "1" || v == "true" || v == "True") return true;
  if (v == "0" || v == "false" || v == "False") return false;
  bad_value(key, v);
}

}  // namespace

const std::vector<std::string>& cuda_option_keys() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& k : keys()) n.push_back(k.name);
    return n;
  }();
  return names;
}

uintptr_t parse_run_stream(const std::string& value) {
  uint64_t address = 0;
  if (!parse_address(value, address))
    fail(ErrorCode::kInvalidArgument, "run configuration entry '", kRunStreamKey,
         "' has bad value '", value, "'; allowed: the address of a cudaStream_t, decimal or ",
         "0x-hex, not 0");
  return uintptr_t(address);
}

CudaOptions parse_cuda_options(const ep::ProviderOptions& options, int device_count) {
  for (const auto& [key, value] : options) {
    const auto& k = cuda_option_keys();
    if (std::find(k.begin(), k.end(), key) == k.end())
      fail(ErrorCode::kInvalidArgument, kName, ": unknown option '", key,
           "'; valid options are: ", all_keys());
  }
  CudaOptions o;
  auto get = [&](const char* key) -> const std::string* {
    auto it = options.find(key);
    return it == options.end() ? nullptr : &it->second;
  };
  if (const auto* v = get("device_id")) {
    uint64_t id = 0;
    if (!parse_unsigned(*v, id) || id > 1024) bad_value("device_id", *v);
    if (device_count > 0 && id >= uint64_t(device_count))
      bad_value(
          "device_id", *v,
          str_cat("out of range: ", device_count, " CUDA device",
                  device_count == 1 ? " was" : "s were", " found (ids 0..", device_count - 1, ")"));
    o.device_id = int(id);
  }
  if (const auto* v = get("gpu_mem_limit")) {
    uint64_t bytes = 0;
    if (!parse_unsigned(*v, bytes) || bytes == 0) bad_value("gpu_mem_limit", *v);
    o.gpu_mem_limit = size_t(bytes);
  }
  using A = ArenaExtendStrategy;
  if (const auto* v = get("arena_extend_strategy"))
    o.arena_extend_strategy = parse_enum<A>("arena_extend_strategy", *v,
                                            {{"kNextPowerOfTwo", A::kNextPowerOfTwo},
                                             {"0", A::kNextPowerOfTwo},
                                             {"kSameAsRequested", A::kSameAsRequested},
                                             {"1", A::kSameAsRequested}});
  using S = ConvAlgoSearch;
  if (const auto* v = get("cudnn_conv_algo_search"))
    o.cudnn_conv_algo_search = parse_enum<S>(
        "cudnn_conv_algo_search", *v,
        {{"EXHAUSTIVE", S::kExhaustive}, {"HEURISTIC", S::kHeuristic}, {"DEFAULT", S::kDefault}});
  if (const auto* v = get("cudnn_conv_use_max_workspace"))
    o.cudnn_conv_use_max_workspace = parse_bool("cudnn_conv_use_max_workspace", *v);
  if (const auto* v = get("do_copy_in_default_stream"))
    o.do_copy_in_default_stream = parse_bool("do_copy_in_default_stream", *v);
  if (const auto* v = get("user_compute_stream")) {
    uint64_t address = 0;
    if (!parse_address(*v, address)) bad_value("user_compute_stream", *v);
    o.user_compute_stream = uintptr_t(address);
  }
  if (const auto* v = get("enable_cuda_graph")) {
    o.enable_cuda_graph = parse_bool("enable_cuda_graph", *v);
  }
  if (const auto* v = get("use_tf32")) o.use_tf32 = parse_bool("use_tf32", *v);
  if (const auto* v = get("prefer_fp16")) o.prefer_fp16 = parse_bool("prefer_fp16", *v);
  if (const auto* v = get("cudnn_conv_algo_cache")) {
    if (v->empty() || v->find('\0') != std::string::npos) bad_value("cudnn_conv_algo_cache", *v);
    o.cudnn_conv_algo_cache = *v;  // opened (and checked) when the provider is made
  }
  using K = AttentionKernel;
  if (const auto* v = get("attention_kernel"))
    o.attention_kernel = parse_enum<K>("attention_kernel", *v,
                                       {{"auto", K::kAuto},
                                        {"tensor_cores", K::kTensorCores},
                                        {"tiled", K::kTiled},
                                        {"rows", K::kRows}});
  return o;
}

}  // namespace tessera::cuda
