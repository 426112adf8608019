// Options a user sets on a session and on each run.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/arena_allocator.hpp"
#include "core/logging.hpp"
#include "core/tensor.hpp"
#include "ep/custom_ops.hpp"
#include "ep/partitioner.hpp"
#include "onnx/adapter_format.hpp"
#include "optimizer/level.hpp"

namespace tessera {

struct ThreadHooks;  // core/thread_pool.hpp

enum class ExecutionMode { kSequential = 0, kParallel = 1 };

// How a session picks its providers when it is given no provider list:
// from the (provider, device) pairs the environment lists.
enum class ProviderSelectionPolicy {
  kDefault,          // the CPU provider only
  kPreferCPU,        // providers of CPU devices only
  kPreferNPU,        // NPU providers first, then CPU
  kPreferGPU,        // GPU providers first, then CPU
  kMaxPerformance,   // GPU, then NPU, then CPU
  kMaxEfficiency,    // NPU, then CPU (no GPU)
  kMinOverallPower,  // NPU, then CPU (no GPU)
};
const char* provider_selection_policy_name(ProviderSelectionPolicy p);

// One requested provider and its options (string key/values it validates).
struct ProviderSpec {
  std::string name;
  std::map<std::string, std::string> options;
};

struct SessionOptions {
  GraphOptimizationLevel graph_optimization_level = GraphOptimizationLevel::kAll;
  int intra_op_num_threads = 0;  // 0: one per core
  int inter_op_num_threads = 0;
  // false: the session runs on the environment's global thread pools
  // (Environment::create_global_thread_pools) and the two counts above are
  // not used.
  bool use_per_session_threads = true;
  // How the session's own pools start and join their threads, and the work
  // callbacks they report to (null: plain threads, no callbacks).
  std::shared_ptr<const ThreadHooks> thread_hooks;
  ExecutionMode execution_mode = ExecutionMode::kSequential;
  // The session's own logger (core/logging.hpp): 0 verbose, 1 info,
  // 2 warning, 3 error, 4 fatal; -1 follows the default logger's severity.
  int log_severity_level = -1;
  int log_verbosity_level = 0;
  std::string log_id;
  // The session's own logger (null: the process's): what the session logs
  // while it is created and while it runs on the calling thread, at or above
  // log_severity_level, goes here instead.
  std::shared_ptr<const LogRecordSink> logger;
  bool enable_profiling = false;
  std::string profile_file_prefix = "tessera_profile";
  std::string optimized_model_filepath;  // when set, the optimized graph is saved here
  std::map<std::string, int64_t> free_dimension_overrides;  // symbolic dim name -> size
  std::map<std::string, int64_t> free_dimension_overrides_by_denotation;
  std::map<std::string, std::string> config_entries;
  bool disable_cpu_fallback = false;
  // Each provider's memory is served through a caching arena (buffers are
  // reused by value lifetime and across runs) unless this is false.
  bool enable_cpu_mem_arena = true;
  ArenaConfig arena;  // extend strategy and memory limit for the session's arenas
  // Placement overrides: pin nodes to a provider or forbid one for them.
  std::vector<ep::PlacementRule> placement;
  // Used when the session is created without a provider list.
  ProviderSelectionPolicy provider_selection_policy = ProviderSelectionPolicy::kDefault;
  // Tensors that replace the model's initializers of the same name. The
  // session uses their memory as is (no copy); the caller keeps it unchanged
  // and alive while the session lives. They may live on a device.
  std::map<std::string, Tensor> initializers;
  // The contents of external data files the model names (by the location
  // written in the model), read instead of files on disk.
  std::map<std::string, std::shared_ptr<const std::string>> external_files_in_memory;
  // Operators the application adds (custom ops, docs/custom_ops.md): each
  // joins the kernel lookup of the provider it names, for this session only.
  ep::CustomOps custom_ops;
  void add_initializer(const std::string& name, Tensor t) { initializers[name] = std::move(t); }
  void add_external_initializers(const std::vector<std::string>& names,
                                 const std::vector<Tensor>& tensors);
  void add_external_file_in_memory(const std::string& location, std::string bytes) {
    external_files_in_memory[location] = std::make_shared<const std::string>(std::move(bytes));
  }
};

// Captured runs (CUDA graphs, docs/cuda.md): `status` is "off" when no
// provider asked for them, "on (<provider>)", or "not possible: <why>"; the
// counts are of runs so far: warm-ups before a shape's capture, recordings
// made, runs answered by a replay, shapes whose capture failed, and runs of
// new shapes once "session.max_captured_shapes" (default 8) have a recording.
struct RunCaptureInfo {
  std::string status;
  int warmups = 0, captures = 0, replays = 0, failures = 0, uncaptured = 0;
};

struct RunOptions {
  // The run's logger: its id (empty: the session's) and severity (-1: the
  // session's); they apply to this run's records only.
  std::string log_tag;
  int log_severity_level = -1;
  int log_verbosity_level = 0;
  // Set to true (from any thread) to stop the run between nodes.
  std::shared_ptr<std::atomic<bool>> terminate = std::make_shared<std::atomic<bool>>(false);
  // "memory.enable_memory_arena_shrinkage" (any value) gives the arenas'
  // cached memory back after this run.
  std::map<std::string, std::string> config_entries;
  // LoRA adapters active for the run (onnxruntime's
  // RunOptionsAddActiveLoraAdapter): each parameter is fed as the input of
  // its name, so it overrides the initializer of that name for this run.
  std::vector<std::shared_ptr<const onnx::Adapter>> active_adapters;
  // Profiles this run alone, whether or not the session profiles: a Chrome
  // trace of its nodes written to "<prefix>_<timestamp>.json" when it ends.
  bool enable_profiling = false;
  std::string profile_file_prefix = "tessera_run_profile";
};

}  // namespace tessera
