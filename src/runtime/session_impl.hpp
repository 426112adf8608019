// The state behind a Session, shared by the files that make one
// (session_create.cpp) and run one (session.cpp); not part of the API.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/logging.hpp"
#include "core/thread_pool.hpp"
#include "runtime/adapter_placement.hpp"
#include "runtime/environment.hpp"
#include "runtime/graph_plan.hpp"
#include "runtime/profiler.hpp"
#include "runtime/run_capture.hpp"
#include "runtime/session.hpp"
#include "runtime/session_graph.hpp"

namespace tessera {

struct Session::Impl {
  ir::Model model;
  std::vector<std::string> released;  // initializers whose data was given back after packing
  SessionOptions options;
  Logger logger;  // the session's own (its severity and id), not the default logger
  std::vector<std::string> requested;
  runtime::Providers providers;
  // Owned by the session, or the environment's global pools shared with
  // other sessions (use_per_session_threads = false).
  std::shared_ptr<ThreadPool> pool;        // intra-op
  std::shared_ptr<ThreadPool> inter_pool;  // inter-op, in parallel execution mode
  std::unique_ptr<runtime::GraphPlan> plan;
  std::unique_ptr<runtime::RunCapture> capture;
  std::vector<IoInfo> inputs, outputs, overridable;
  std::unordered_map<std::string, size_t> input_index;  // name -> position in plan inputs
  std::vector<std::pair<std::string, std::shared_ptr<Allocator>>> allocators;  // per provider
  runtime::Profiler profiler;
  runtime::NodeObserver observer;
  bool observe_device_time = false;  // session.profile_device_time
  bool profile_memory = false;       // session.profile_memory_counters
  std::vector<ExpandedOp> expanded;
  CreationTimings timings;
  mutable runtime::AdapterPlacement adapters;  // device copies of LoRA parameters

  // The inputs (fed and overridable) and outputs the session describes, with
  // their declared types (an output declared without one: its inferred type).
  void describe_io();
  // The stages of Session::create_timed (session_create.cpp) that fill the
  // members above, in the order it calls them.
  void make_thread_pools(Environment& env);
  void build_plan(Environment& env, bool share, const std::vector<ep::PlacementRule>& placement,
                  const std::string& where);
  void save_optimized_model(const std::string& where);
  void set_up_profiling();
};

// The profiler's record of each node run (sessions' and runs' profiles).
runtime::NodeObserver profiling_observer(runtime::Profiler* prof);
double now_ms();

}  // namespace tessera
