// Run options: tag, log levels, termination and configuration entries.
#include "capi/allocators.hpp"
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "runtime/copy_tensors.hpp"

namespace tessera::capi {
namespace {

OrtRunOptions& ro(OrtRunOptions* o) {
  need(o, "run options");
  return *o;
}
const OrtRunOptions& ro(const OrtRunOptions* o) {
  need(o, "run options");
  return *o;
}

}  // namespace

OrtStatus* ORT_API_CALL CreateRunOptions(OrtRunOptions** out) noexcept {
  return guard("CreateRunOptions", [&] {
    need(out, "out");
    *out = new OrtRunOptions();
  });
}

void ORT_API_CALL ReleaseRunOptions(OrtRunOptions* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL RunOptionsSetRunLogVerbosityLevel(OrtRunOptions* options,
                                                          int log_verbosity_level) noexcept {
  return guard("RunOptionsSetRunLogVerbosityLevel", [&] {
    check(log_verbosity_level >= 0, "verbosity level ", log_verbosity_level, " is negative");
    ro(options).options.log_verbosity_level = log_verbosity_level;
  });
}

OrtStatus* ORT_API_CALL RunOptionsSetRunLogSeverityLevel(OrtRunOptions* options,
                                                         int log_severity_level) noexcept {
  return guard("RunOptionsSetRunLogSeverityLevel", [&] {
    check(log_severity_level >= 0 && log_severity_level <= 4, "severity level ", log_severity_level,
          " is not between 0 (verbose) and 4 (fatal)");
    ro(options).options.log_severity_level = log_severity_level;
  });
}

OrtStatus* ORT_API_CALL RunOptionsSetRunTag(OrtRunOptions* options, const char* run_tag) noexcept {
  return guard("RunOptionsSetRunTag", [&] {
    need(run_tag, "run_tag");
    ro(options).options.log_tag = run_tag;
  });
}

OrtStatus* ORT_API_CALL RunOptionsGetRunLogVerbosityLevel(const OrtRunOptions* options,
                                                          int* log_verbosity_level) noexcept {
  return guard("RunOptionsGetRunLogVerbosityLevel", [&] {
    need(log_verbosity_level, "log_verbosity_level");
    *log_verbosity_level = ro(options).options.log_verbosity_level;
  });
}

OrtStatus* ORT_API_CALL RunOptionsGetRunLogSeverityLevel(const OrtRunOptions* options,
                                                         int* log_severity_level) noexcept {
  return guard("RunOptionsGetRunLogSeverityLevel", [&] {
    need(log_severity_level, "log_severity_level");
    const int level = ro(options).options.log_severity_level;
    *log_severity_level = level < 0 ? ORT_LOGGING_LEVEL_WARNING : level;
  });
}

OrtStatus* ORT_API_CALL RunOptionsGetRunTag(const OrtRunOptions* options,
                                            const char** run_tag) noexcept {
  return guard("RunOptionsGetRunTag", [&] {
    need(run_tag, "run_tag");
    *run_tag = ro(options).options.log_tag.c_str();
  });
}

// Termination is seen by runs already under way with these options: they
// stop between nodes.
OrtStatus* ORT_API_CALL RunOptionsSetTerminate(OrtRunOptions* options) noexcept {
  return guard("RunOptionsSetTerminate", [&] { ro(options).options.terminate->store(true); });
}

OrtStatus* ORT_API_CALL RunOptionsUnsetTerminate(OrtRunOptions* options) noexcept {
  return guard("RunOptionsUnsetTerminate", [&] { ro(options).options.terminate->store(false); });
}

OrtStatus* ORT_API_CALL AddRunConfigEntry(OrtRunOptions* options, const char* config_key,
                                          const char* config_value) noexcept {
  return guard("AddRunConfigEntry", [&] {
    need(config_key, "config_key");
    need(config_value, "config_value");
    check(config_key[0] != '\0', "config_key is empty");
    ro(options).options.config_entries[config_key] = config_value;
  });
}

const char* ORT_API_CALL GetRunConfigEntry(const OrtRunOptions* options,
                                           const char* config_key) noexcept {
  if (options == nullptr || config_key == nullptr) return nullptr;
  const auto& entries = options->options.config_entries;
  auto it = entries.find(config_key);
  return it == entries.end() ? nullptr : it->second.c_str();
}

void ORT_API_CALL RunOptionsSetSyncStream(OrtRunOptions* options,
                                          OrtSyncStream* sync_stream) noexcept {
  if (options != nullptr) options->stream = sync_stream;
}

namespace {

// An adapter read into host memory, moved into the allocator's memory when
// one is given there (ONNX Runtime's contract for the optional allocator), so
// sessions whose provider reads that memory use it without a copy.
std::shared_ptr<const onnx::Adapter> place(onnx::Adapter adapter, OrtAllocator* allocator) {
  if (allocator) {
    auto alloc = tessera_allocator(allocator);
    for (auto& [name, t] : adapter.parameters) {
      if (alloc->info().same_space(t.memory_info())) continue;
      Tensor there(t.dtype(), t.shape(), alloc);
      copy_tensors({&t}, {&there});
      t = std::move(there);
    }
  }
  return std::make_shared<const onnx::Adapter>(std::move(adapter));
}

}  // namespace

OrtStatus* ORT_API_CALL CreateLoraAdapter(const ORTCHAR_T* adapter_file_path,
                                          OrtAllocator* allocator, OrtLoraAdapter** out) noexcept {
  return guard("CreateLoraAdapter", [&] {
    need(adapter_file_path, "adapter_file_path");
    need(out, "out");
    *out = new OrtLoraAdapter{place(onnx::load_adapter(adapter_file_path), allocator)};
  });
}

OrtStatus* ORT_API_CALL CreateLoraAdapterFromArray(const void* bytes, size_t num_bytes,
                                                   OrtAllocator* allocator,
                                                   OrtLoraAdapter** out) noexcept {
  return guard("CreateLoraAdapterFromArray", [&] {
    need(bytes, "bytes");
    need(out, "out");
    *out = new OrtLoraAdapter{
        place(onnx::parse_adapter(bytes, num_bytes, "<adapter bytes>"), allocator)};
  });
}

void ORT_API_CALL ReleaseLoraAdapter(OrtLoraAdapter* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL RunOptionsEnableProfiling(OrtRunOptions* options,
                                                  const ORTCHAR_T* profile_file_prefix) noexcept {
  return guard("RunOptionsEnableProfiling", [&] {
    need(profile_file_prefix, "profile_file_prefix");
    check(profile_file_prefix[0] != 0, "profile_file_prefix is empty");
    auto& o = ro(options).options;
    o.enable_profiling = true;
    o.profile_file_prefix = profile_file_prefix;
  });
}

OrtStatus* ORT_API_CALL RunOptionsDisableProfiling(OrtRunOptions* options) noexcept {
  return guard("RunOptionsDisableProfiling", [&] { ro(options).options.enable_profiling = false; });
}

OrtStatus* ORT_API_CALL RunOptionsAddActiveLoraAdapter(OrtRunOptions* options,
                                                       const OrtLoraAdapter* adapter) noexcept {
  return guard("RunOptionsAddActiveLoraAdapter", [&] {
    need(adapter, "adapter");
    ro(options).options.active_adapters.push_back(adapter->adapter);
  });
}

}  // namespace tessera::capi
