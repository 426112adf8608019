// Session options: every setter maps onto tessera::SessionOptions.
#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {
namespace {

OrtSessionOptions& opts(OrtSessionOptions* o) {
  need(o, "session options");
  return *o;
}
const OrtSessionOptions& opts(const OrtSessionOptions* o) {
  need(o, "session options");
  return *o;
}

}  // namespace

OrtStatus* ORT_API_CALL CreateSessionOptions(OrtSessionOptions** options) noexcept {
  return guard("CreateSessionOptions", [&] {
    need(options, "out");
    *options = new OrtSessionOptions();
  });
}

OrtStatus* ORT_API_CALL CloneSessionOptions(const OrtSessionOptions* in_options,
                                            OrtSessionOptions** out_options) noexcept {
  return guard("CloneSessionOptions", [&] {
    need(out_options, "out");
    *out_options = new OrtSessionOptions(opts(in_options));
  });
}

void ORT_API_CALL ReleaseSessionOptions(OrtSessionOptions* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL SessionOptionsSetLoadCancellationFlag(OrtSessionOptions* options,
                                                              bool cancel) noexcept {
  return guard("SessionOptionsSetLoadCancellationFlag", [&] {
    need(options, "options");
    options->load_canceled.set.store(cancel);
  });
}

OrtStatus* ORT_API_CALL SetOptimizedModelFilePath(
    OrtSessionOptions* options, const ORTCHAR_T* optimized_model_filepath) noexcept {
  return guard("SetOptimizedModelFilePath", [&] {
    need(optimized_model_filepath, "optimized_model_filepath");
    opts(options).options.optimized_model_filepath = optimized_model_filepath;
  });
}

OrtStatus* ORT_API_CALL SetSessionExecutionMode(OrtSessionOptions* options,
                                                ::ExecutionMode execution_mode) noexcept {
  return guard("SetSessionExecutionMode", [&] {
    const int mode = raw_enum(execution_mode);
    check(mode == ::ORT_SEQUENTIAL || mode == ::ORT_PARALLEL, "execution mode ", mode,
          " is not ORT_SEQUENTIAL (0) or ORT_PARALLEL (1)");
    opts(options).options.execution_mode = static_cast<tessera::ExecutionMode>(mode);
  });
}

OrtStatus* ORT_API_CALL GetSessionExecutionMode(const OrtSessionOptions* options,
                                                ::ExecutionMode* out) noexcept {
  return guard("GetSessionExecutionMode", [&] {
    need(out, "out");
    *out = static_cast<::ExecutionMode>(opts(options).options.execution_mode);
  });
}

OrtStatus* ORT_API_CALL EnableProfiling(OrtSessionOptions* options,
                                        const ORTCHAR_T* profile_file_prefix) noexcept {
  return guard("EnableProfiling", [&] {
    need(profile_file_prefix, "profile_file_prefix");
    auto& o = opts(options).options;
    o.enable_profiling = true;
    o.profile_file_prefix = profile_file_prefix;
  });
}

OrtStatus* ORT_API_CALL DisableProfiling(OrtSessionOptions* options) noexcept {
  return guard("DisableProfiling", [&] { opts(options).options.enable_profiling = false; });
}

// The session's own logger: what a session created with these options logs
// on the creating and running threads goes to it (at or above the session's
// severity level) instead of the environment's logger.
OrtStatus* ORT_API_CALL SetUserLoggingFunction(OrtSessionOptions* options,
                                               OrtLoggingFunction user_logging_function,
                                               void* user_logging_param) noexcept {
  return guard("SetUserLoggingFunction", [&] {
    auto& o = opts(options).options;
    need(reinterpret_cast<const void*>(user_logging_function), "user_logging_function");
    o.logger = std::make_shared<const LogRecordSink>(
        [fn = user_logging_function, param = user_logging_param](Severity s, const std::string& tag,
                                                                 const std::string& message) {
          fn(param, static_cast<OrtLoggingLevel>(s), "tessera", tag.c_str(), "", message.c_str());
        });
  });
}

// Tessera always plans memory ahead from value lifetimes; the flag is kept
// for GetMemPatternEnabled and has no other effect.
OrtStatus* ORT_API_CALL EnableMemPattern(OrtSessionOptions* options) noexcept {
  return guard("EnableMemPattern", [&] { opts(options).mem_pattern = true; });
}
OrtStatus* ORT_API_CALL DisableMemPattern(OrtSessionOptions* options) noexcept {
  return guard("DisableMemPattern", [&] { opts(options).mem_pattern = false; });
}
OrtStatus* ORT_API_CALL GetMemPatternEnabled(const OrtSessionOptions* options, int* out) noexcept {
  return guard("GetMemPatternEnabled", [&] {
    need(out, "out");
    *out = opts(options).mem_pattern ? 1 : 0;
  });
}

OrtStatus* ORT_API_CALL EnableCpuMemArena(OrtSessionOptions* options) noexcept {
  return guard("EnableCpuMemArena", [&] { opts(options).options.enable_cpu_mem_arena = true; });
}
OrtStatus* ORT_API_CALL DisableCpuMemArena(OrtSessionOptions* options) noexcept {
  return guard("DisableCpuMemArena", [&] { opts(options).options.enable_cpu_mem_arena = false; });
}

OrtStatus* ORT_API_CALL SetSessionLogId(OrtSessionOptions* options, const char* logid) noexcept {
  return guard("SetSessionLogId", [&] {
    need(logid, "logid");
    opts(options).options.log_id = logid;
  });
}

OrtStatus* ORT_API_CALL SetSessionLogVerbosityLevel(OrtSessionOptions* options,
                                                    int session_log_verbosity_level) noexcept {
  return guard("SetSessionLogVerbosityLevel", [&] {
    check(session_log_verbosity_level >= 0, "verbosity level ", session_log_verbosity_level,
          " is negative");
    opts(options).options.log_verbosity_level = session_log_verbosity_level;
  });
}

OrtStatus* ORT_API_CALL SetSessionLogSeverityLevel(OrtSessionOptions* options,
                                                   int session_log_severity_level) noexcept {
  return guard("SetSessionLogSeverityLevel", [&] {
    check(session_log_severity_level >= 0 && session_log_severity_level <= 4, "severity level ",
          session_log_severity_level, " is not between 0 (verbose) and 4 (fatal)");
    opts(options).options.log_severity_level = session_log_severity_level;
  });
}

OrtStatus* ORT_API_CALL SetSessionGraphOptimizationLevel(
    OrtSessionOptions* options, ::GraphOptimizationLevel graph_optimization_level) noexcept {
  return guard("SetSessionGraphOptimizationLevel", [&] {
    tessera::GraphOptimizationLevel level;
    switch (raw_enum(graph_optimization_level)) {
      case ::ORT_DISABLE_ALL:
        level = tessera::GraphOptimizationLevel::kDisableAll;
        break;
      case ::ORT_ENABLE_BASIC:
        level = tessera::GraphOptimizationLevel::kBasic;
        break;
      case ::ORT_ENABLE_EXTENDED:
        level = tessera::GraphOptimizationLevel::kExtended;
        break;
      // Layout transformation is part of Tessera's highest level.
      case ::ORT_ENABLE_LAYOUT:
      case ::ORT_ENABLE_ALL:
        level = tessera::GraphOptimizationLevel::kAll;
        break;
      default:
        fail(ErrorCode::kInvalidArgument, "graph optimization level ",
             raw_enum(graph_optimization_level), " is not 0, 1, 2, 3 or 99");
    }
    opts(options).options.graph_optimization_level = level;
  });
}

OrtStatus* ORT_API_CALL SetIntraOpNumThreads(OrtSessionOptions* options,
                                             int intra_op_num_threads) noexcept {
  return guard("SetIntraOpNumThreads", [&] {
    check(intra_op_num_threads >= 0, "intra_op_num_threads ", intra_op_num_threads, " is negative");
    opts(options).options.intra_op_num_threads = intra_op_num_threads;
  });
}

OrtStatus* ORT_API_CALL SetInterOpNumThreads(OrtSessionOptions* options,
                                             int inter_op_num_threads) noexcept {
  return guard("SetInterOpNumThreads", [&] {
    check(inter_op_num_threads >= 0, "inter_op_num_threads ", inter_op_num_threads, " is negative");
    opts(options).options.inter_op_num_threads = inter_op_num_threads;
  });
}

OrtStatus* ORT_API_CALL DisablePerSessionThreads(OrtSessionOptions* options) noexcept {
  return guard("DisablePerSessionThreads", [&] { opts(options).per_session_threads = false; });
}

OrtStatus* ORT_API_CALL AddFreeDimensionOverride(OrtSessionOptions* options,
                                                 const char* dim_denotation,
                                                 int64_t dim_value) noexcept {
  return guard("AddFreeDimensionOverride", [&] {
    need(dim_denotation, "dim_denotation");
    check(dim_value >= 0, "dimension value ", dim_value, " for denotation '", dim_denotation,
          "' is negative");
    opts(options).options.free_dimension_overrides_by_denotation[dim_denotation] = dim_value;
  });
}

OrtStatus* ORT_API_CALL AddFreeDimensionOverrideByName(OrtSessionOptions* options,
                                                       const char* dim_name,
                                                       int64_t dim_value) noexcept {
  return guard("AddFreeDimensionOverrideByName", [&] {
    need(dim_name, "dim_name");
    check(dim_value >= 0, "dimension value ", dim_value, " for '", dim_name, "' is negative");
    opts(options).options.free_dimension_overrides[dim_name] = dim_value;
  });
}

OrtStatus* ORT_API_CALL AddSessionConfigEntry(OrtSessionOptions* options, const char* config_key,
                                              const char* config_value) noexcept {
  return guard("AddSessionConfigEntry", [&] {
    need(config_key, "config_key");
    need(config_value, "config_value");
    const std::string key = config_key;
    check(!key.empty() && key.size() <= 128, "config key '", key,
          "' must have between 1 and 128 characters");
    opts(options).options.config_entries[key] = config_value;
  });
}

OrtStatus* ORT_API_CALL HasSessionConfigEntry(const OrtSessionOptions* options,
                                              const char* config_key, int* out) noexcept {
  return guard("HasSessionConfigEntry", [&] {
    need(config_key, "config_key");
    need(out, "out");
    *out = opts(options).options.config_entries.count(config_key) ? 1 : 0;
  });
}

OrtStatus* ORT_API_CALL GetSessionConfigEntry(const OrtSessionOptions* options,
                                              const char* config_key, char* config_value,
                                              size_t* size) noexcept {
  return guard("GetSessionConfigEntry", [&] {
    need(config_key, "config_key");
    const auto& entries = opts(options).options.config_entries;
    auto it = entries.find(config_key);
    check_code(it != entries.end(), ErrorCode::kInvalidArgument, "session configuration entry '",
               config_key, "' is not set");
    copy_string_out(it->second, config_value, size, "the configuration value");
  });
}

OrtStatus* ORT_API_CALL GetSessionOptionsConfigEntries(const OrtSessionOptions* options,
                                                       OrtKeyValuePairs** out) noexcept {
  return guard("GetSessionOptionsConfigEntries", [&] {
    need(out, "out");
    auto kv = std::make_unique<OrtKeyValuePairs>();
    for (const auto& [k, v] : opts(options).options.config_entries) kv->set(k, v);
    *out = kv.release();
  });
}

OrtStatus* ORT_API_CALL AddInitializer(OrtSessionOptions* options, const char* name,
                                       const OrtValue* val) noexcept {
  return guard("AddInitializer", [&] {
    need(name, "name");
    need(val, "value");
    check(val->value.is_tensor(), "initializer '", name, "' is a ", val->value.kind_name(),
          ", not a tensor");
    opts(options).options.add_initializer(name, val->value.tensor());
  });
}

OrtStatus* ORT_API_CALL AddExternalInitializers(OrtSessionOptions* options,
                                                const char* const* initializer_names,
                                                const OrtValue* const* initializers,
                                                size_t num_initializers) noexcept {
  return guard("AddExternalInitializers", [&] {
    auto& o = opts(options);
    const auto names = string_list(initializer_names, num_initializers, "initializer_names");
    if (num_initializers > 0) need(initializers, "initializers");
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < num_initializers; ++i) {
      check(initializers[i] != nullptr, "initializers[", i, "] is null");
      check(initializers[i]->value.is_tensor(), "initializer '", names[i], "' is not a tensor");
      tensors.push_back(initializers[i]->value.tensor());
    }
    o.options.add_external_initializers(names, tensors);
  });
}

OrtStatus* ORT_API_CALL AddExternalInitializersFromFilesInMemory(
    OrtSessionOptions* options, const ORTCHAR_T* const* external_initializer_file_names,
    char* const* external_initializer_file_buffer_array,
    const size_t* external_initializer_file_lengths,
    size_t num_external_initializer_files) noexcept {
  return guard("AddExternalInitializersFromFilesInMemory", [&] {
    auto& o = opts(options);
    const size_t n = num_external_initializer_files;
    const auto names =
        string_list(external_initializer_file_names, n, "external_initializer_file_names");
    if (n > 0) {
      need(external_initializer_file_buffer_array, "external_initializer_file_buffer_array");
      need(external_initializer_file_lengths, "external_initializer_file_lengths");
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t len = external_initializer_file_lengths[i];
      check(len == 0 || external_initializer_file_buffer_array[i] != nullptr,
            "external_initializer_file_buffer_array[", i, "] is null");
      // Copied: the caller's buffers need not outlive the call.
      o.options.add_external_file_in_memory(
          names[i],
          len ? std::string(external_initializer_file_buffer_array[i], len) : std::string());
    }
  });
}

OrtStatus* ORT_API_CALL SetDeterministicCompute(OrtSessionOptions* options, bool value) noexcept {
  // Tessera's kernels give the same result run after run; there is no
  // faster nondeterministic mode to turn off.
  return guard("SetDeterministicCompute", [&] { opts(options).deterministic_compute = value; });
}

OrtStatus* ORT_API_CALL SessionOptionsSetEpSelectionPolicy(
    OrtSessionOptions* session_options, OrtExecutionProviderDevicePolicy policy) noexcept {
  return guard("SessionOptionsSetEpSelectionPolicy", [&] {
    const int p = raw_enum(policy);
    check(p >= OrtExecutionProviderDevicePolicy_DEFAULT &&
              p <= OrtExecutionProviderDevicePolicy_MIN_OVERALL_POWER,
          "selection policy ", p, " is unknown");
    // The enums list the same policies in the same order.
    opts(session_options).options.provider_selection_policy =
        static_cast<ProviderSelectionPolicy>(p);
  });
}

OrtStatus* ORT_API_CALL SessionOptionsSetEpSelectionPolicyDelegate(
    OrtSessionOptions* session_options, EpSelectionDelegate delegate,
    void* delegate_state) noexcept {
  return guard("SessionOptionsSetEpSelectionPolicyDelegate", [&] {
    need(reinterpret_cast<const void*>(delegate), "delegate");
    auto& o = opts(session_options);
    o.selection_delegate = delegate;
    o.selection_state = delegate_state;
  });
}

}  // namespace tessera::capi
