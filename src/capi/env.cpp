// The environment: one per process, shared by every CreateEnv* call and
// released when the last holder releases it; its logging level and logger,
// and the thread counts of sessions that give up their own pools.
#include <cstring>
#include <mutex>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/thread_hooks.hpp"
#include "core/logging.hpp"
#include "runtime/environment.hpp"

namespace tessera::capi {
namespace {

std::mutex env_mu;
OrtEnv* the_env = nullptr;

void check_level(int level) {
  check(level >= ORT_LOGGING_LEVEL_VERBOSE && level <= ORT_LOGGING_LEVEL_FATAL, "logging level ",
        level, " is not between 0 (verbose) and 4 (fatal)");
}

void apply_logging(const OrtEnv& env) {
  set_log_severity(static_cast<Severity>(env.log_level));
  if (env.logger == nullptr) {
    set_log_sink(nullptr);
    return;
  }
  OrtLoggingFunction fn = env.logger;
  void* param = env.logger_param;
  std::string id = env.log_id;
  set_log_sink([fn, param, id](Severity s, const std::string& line) {
    fn(param, static_cast<OrtLoggingLevel>(s), "tessera", id.c_str(), "", line.c_str());
  });
}

// Creates the environment or hands out the existing one (whose settings the
// first creator chose, as in ONNX Runtime, but for a custom logger when the
// environment has none).
OrtEnv* acquire_env(int level, const char* logid, OrtLoggingFunction logger, void* logger_param,
                    const OrtThreadingOptions* threads) {
  check_level(level);
  std::lock_guard<std::mutex> lock(env_mu);
  if (the_env == nullptr) {
    auto env = std::make_unique<OrtEnv>();
    env->log_level = static_cast<OrtLoggingLevel>(level);
    env->log_id = logid != nullptr ? logid : "";
    env->logger = logger;
    env->logger_param = logger_param;
    if (threads != nullptr) {
      tessera::Environment::global().create_global_thread_pools(
          threads->intra_op_threads, threads->inter_op_threads, threads->allow_spinning,
          make_thread_hooks(threads->create_thread, threads->thread_creation_options,
                            threads->join_thread, nullptr, "the threading options"));
      env->global_thread_pools = true;
    }
    apply_logging(*env);
    the_env = env.release();
  } else if (logger != nullptr && the_env->logger == nullptr) {
    // A later creator's own logger (and its level) is taken when the
    // environment has none; otherwise the first creator's settings stay.
    the_env->logger = logger;
    the_env->logger_param = logger_param;
    the_env->log_level = static_cast<OrtLoggingLevel>(level);
    apply_logging(*the_env);
  }
  ++the_env->references;
  return the_env;
}

}  // namespace

const OrtEnv* current_env() {
  std::lock_guard<std::mutex> lock(env_mu);
  return the_env;
}

OrtStatus* ORT_API_CALL CreateEnv(OrtLoggingLevel log_severity_level, const char* logid,
                                  OrtEnv** out) noexcept {
  return guard("CreateEnv", [&] {
    need(out, "out");
    *out = acquire_env(raw_enum(log_severity_level), logid, nullptr, nullptr, nullptr);
  });
}

OrtStatus* ORT_API_CALL CreateEnvWithCustomLogger(OrtLoggingFunction logging_function,
                                                  void* logger_param,
                                                  OrtLoggingLevel log_severity_level,
                                                  const char* logid, OrtEnv** out) noexcept {
  return guard("CreateEnvWithCustomLogger", [&] {
    need(out, "out");
    need(reinterpret_cast<const void*>(logging_function), "logging_function");
    *out =
        acquire_env(raw_enum(log_severity_level), logid, logging_function, logger_param, nullptr);
  });
}

OrtStatus* ORT_API_CALL CreateEnvWithGlobalThreadPools(OrtLoggingLevel log_severity_level,
                                                       const char* logid,
                                                       const OrtThreadingOptions* tp_options,
                                                       OrtEnv** out) noexcept {
  return guard("CreateEnvWithGlobalThreadPools", [&] {
    need(out, "out");
    need(tp_options, "threading options");
    *out = acquire_env(raw_enum(log_severity_level), logid, nullptr, nullptr, tp_options);
  });
}

OrtStatus* ORT_API_CALL CreateEnvWithCustomLoggerAndGlobalThreadPools(
    OrtLoggingFunction logging_function, void* logger_param, OrtLoggingLevel log_severity_level,
    const char* logid, const struct OrtThreadingOptions* tp_options, OrtEnv** out) noexcept {
  return guard("CreateEnvWithCustomLoggerAndGlobalThreadPools", [&] {
    need(out, "out");
    need(tp_options, "threading options");
    need(reinterpret_cast<const void*>(logging_function), "logging_function");
    *out = acquire_env(raw_enum(log_severity_level), logid, logging_function, logger_param,
                       tp_options);
  });
}

OrtStatus* ORT_API_CALL CreateEnvWithOptions(const OrtEnvCreationOptions* options,
                                             OrtEnv** out) noexcept {
  return guard("CreateEnvWithOptions", [&] {
    need(options, "options");
    need(out, "out");
    check(options->version >= 1 && options->version <= ORT_API_VERSION, "options version ",
          options->version, " is not between 1 and ", ORT_API_VERSION);
    *out = acquire_env(options->logging_severity_level, options->log_id,
                       options->custom_logging_function, options->custom_logging_param,
                       options->threading_options);
  });
}

void ORT_API_CALL ReleaseEnv(OrtEnv* input) noexcept {
  if (input == nullptr) return;
  std::lock_guard<std::mutex> lock(env_mu);
  if (input != the_env || --the_env->references > 0) return;
  set_log_sink(nullptr);  // the application's logger may go with the environment
  delete the_env;
  the_env = nullptr;
}

OrtStatus* ORT_API_CALL UpdateEnvWithCustomLogLevel(OrtEnv* ort_env,
                                                    OrtLoggingLevel log_severity_level) noexcept {
  return guard("UpdateEnvWithCustomLogLevel", [&] {
    need(ort_env, "env");
    const int level = raw_enum(log_severity_level);
    check_level(level);
    std::lock_guard<std::mutex> lock(env_mu);
    ort_env->log_level = static_cast<OrtLoggingLevel>(level);
    apply_logging(*ort_env);
  });
}

// Tessera sends no telemetry; these only check their argument.
OrtStatus* ORT_API_CALL EnableTelemetryEvents(const OrtEnv* env) noexcept {
  return guard("EnableTelemetryEvents", [&] { need(env, "env"); });
}
OrtStatus* ORT_API_CALL DisableTelemetryEvents(const OrtEnv* env) noexcept {
  return guard("DisableTelemetryEvents", [&] { need(env, "env"); });
}

OrtStatus* ORT_API_CALL SetLanguageProjection(const OrtEnv* ort_env,
                                              OrtLanguageProjection projection) noexcept {
  return guard("SetLanguageProjection", [&] {
    need(ort_env, "env");
    const int p = raw_enum(projection);
    check(p >= ORT_PROJECTION_C && p <= ORT_PROJECTION_NODEJS, "projection ", p, " is unknown");
  });
}

OrtStatus* ORT_API_CALL CreateThreadingOptions(OrtThreadingOptions** out) noexcept {
  return guard("CreateThreadingOptions", [&] {
    need(out, "out");
    *out = new OrtThreadingOptions();
  });
}

void ORT_API_CALL ReleaseThreadingOptions(OrtThreadingOptions* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL SetGlobalIntraOpNumThreads(OrtThreadingOptions* tp_options,
                                                   int intra_op_num_threads) noexcept {
  return guard("SetGlobalIntraOpNumThreads", [&] {
    need(tp_options, "threading options");
    check(intra_op_num_threads >= 0, "intra_op_num_threads ", intra_op_num_threads, " is negative");
    tp_options->intra_op_threads = intra_op_num_threads;
  });
}

OrtStatus* ORT_API_CALL SetGlobalInterOpNumThreads(OrtThreadingOptions* tp_options,
                                                   int inter_op_num_threads) noexcept {
  return guard("SetGlobalInterOpNumThreads", [&] {
    need(tp_options, "threading options");
    check(inter_op_num_threads >= 0, "inter_op_num_threads ", inter_op_num_threads, " is negative");
    tp_options->inter_op_threads = inter_op_num_threads;
  });
}

OrtStatus* ORT_API_CALL SetGlobalSpinControl(OrtThreadingOptions* tp_options,
                                             int allow_spinning) noexcept {
  return guard("SetGlobalSpinControl", [&] {
    need(tp_options, "threading options");
    check(allow_spinning == 0 || allow_spinning == 1, "allow_spinning must be 0 or 1, not ",
          allow_spinning);
    tp_options->allow_spinning = allow_spinning == 1;
  });
}

OrtStatus* ORT_API_CALL SetGlobalDenormalAsZero(OrtThreadingOptions* tp_options) noexcept {
  return guard("SetGlobalDenormalAsZero", [&] {
    need(tp_options, "threading options");
    tp_options->denormal_as_zero = true;
  });
}

OrtStatus* ORT_API_CALL SetGlobalIntraOpThreadAffinity(OrtThreadingOptions* tp_options,
                                                       const char* affinity_string) noexcept {
  return guard("SetGlobalIntraOpThreadAffinity", [&] {
    need(tp_options, "threading options");
    need(affinity_string, "affinity string");
    tp_options->intra_op_affinity = affinity_string;
  });
}

OrtStatus* ORT_API_CALL GetAvailableProviders(char*** out_ptr, int* provider_length) noexcept {
  return guard("GetAvailableProviders", [&] {
    need(out_ptr, "out_ptr");
    need(provider_length, "provider_length");
    const std::vector<std::string> names = available_providers();
    auto** list = new char*[names.size()];
    for (size_t i = 0; i < names.size(); ++i) {
      list[i] = new char[names[i].size() + 1];
      std::memcpy(list[i], names[i].c_str(), names[i].size() + 1);
    }
    *out_ptr = list;
    *provider_length = static_cast<int>(names.size());
  });
}

OrtStatus* ORT_API_CALL ReleaseAvailableProviders(char** ptr, int providers_length) noexcept {
  return guard("ReleaseAvailableProviders", [&] {
    if (ptr == nullptr) return;
    check(providers_length >= 0, "providers_length is negative");
    for (int i = 0; i < providers_length; ++i) delete[] ptr[i];
    delete[] ptr;
  });
}

}  // namespace tessera::capi
