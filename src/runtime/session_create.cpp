// Making a Session: the model through its stages (validation, providers,
// graph preparation, the plan) into a Session::Impl, timed phase by phase.
#include <chrono>
#include <functional>
#include <thread>

#include "core/log_scope.hpp"
#include "core/logging.hpp"
#include "ir/graph_algorithms.hpp"
#include "onnx/function_inliner.hpp"
#include "onnx/model_reader.hpp"
#include "onnx/model_writer.hpp"
#include "ops/type_check.hpp"
#include "runtime/custom_ops.hpp"
#include "runtime/session_impl.hpp"
#include "runtime/sparse_initializers.hpp"

namespace tessera {

runtime::NodeObserver profiling_observer(runtime::Profiler* prof) {
  // A provider's fused group is named by the ops it runs, not the provider.
  return [prof](const ir::Node& node, const std::string& provider, int64_t s, int64_t e) {
    const bool group = node.domain == ep::kFusedGroupDomain && !node.doc_string.empty();
    prof->record({node.name, "Node", provider, group ? node.doc_string : node.op_type, s, e,
                  std::hash<std::thread::id>()(std::this_thread::get_id()) % 100000});
  };
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

// The model as it can be written out: initializers in device memory are
// copied to the host (through the provider that can), the rest shared as is.
ir::Model with_host_initializers(const ir::Model& model, const runtime::Providers& providers,
                                 const std::string& where) {
  ir::Model out = model;
  for (auto& [name, t] : out.graph.initializers) {
    if (t.memory_info().host_accessible()) continue;
    const ep::DataTransfer* transfer = nullptr;
    for (const auto& p : providers)
      if (const auto* d = p->data_transfer();
          !transfer && d && d->can_copy(t.memory_info(), cpu_memory_info()))
        transfer = d;
    check_code(transfer != nullptr, ErrorCode::kEPFail, where, ": saving the optimized model: '",
               name, "' is in ", t.memory_info().to_string(),
               " and no provider of the session can copy it to host memory");
    Tensor h(t.dtype(), t.shape());
    transfer->copy_tensors({&t}, {&h}, nullptr);
    t = std::move(h);
  }
  return out;
}

}  // namespace

void Session::Impl::make_thread_pools(Environment& env) {
  // Workers poll for work through each run unless the user turns it off (a
  // machine shared with other busy processes); see ThreadPool::RunScope. Read
  // with global pools too, so a bad value is an error either way.
  const bool spin = runtime::config_flag(options, "session.intra_op.allow_spinning", true);
  if (!options.use_per_session_threads) {
    Environment::ThreadPools global = env.global_thread_pools();
    check(global.intra != nullptr,
          "the session options give up per-session threads (use_per_session_threads = "
          "false), but the environment has no global thread pools: create them first "
          "(CreateEnvWithGlobalThreadPools in the C API, set_global_thread_pool_sizes in "
          "Python)");
    pool = global.intra;
    if (options.execution_mode == ExecutionMode::kParallel) inter_pool = global.inter;
    return;
  }
  const ThreadHooks none;
  const ThreadHooks& hooks = options.thread_hooks ? *options.thread_hooks : none;
  pool = std::make_shared<ThreadPool>(options.intra_op_num_threads, spin, hooks);
  if (options.execution_mode == ExecutionMode::kParallel)
    inter_pool = std::make_shared<ThreadPool>(options.inter_op_num_threads, spin, hooks);
}

void Session::Impl::build_plan(Environment& env, bool share,
                               const std::vector<ep::PlacementRule>& placement,
                               const std::string& where) {
  runtime::ConstantPlacer placer;
  if (share)
    placer = [&env](const Tensor& host, const MemoryInfo& dst,
                    const std::function<Tensor()>& make) {
      return env.shared_initializers().share_placed(host, dst, make);
    };
  auto* allocs = &allocators;
  runtime::AllocatorFor alloc_for = [allocs](const ep::ExecutionProvider& p) {
    for (const auto& [name, a] : *allocs)
      if (name == p.name()) return a;
    return p.allocator();
  };
  // Weights every reader has packed are held twice (packed and as given): the
  // plan calls this as soon as an initializer's last reader has packed it.
  // Its slots point at this map entry, so replacing the tensor in place gives
  // the memory back (when no other session shares it) and leaves the type and
  // shape the kernels still check. Not while an optimized model is to be saved.
  runtime::InitializerReleaser release;
  if (!runtime::config_flag(options, "session.keep_packed_initializers", false) &&
      options.optimized_model_filepath.empty())
    release = [this](const std::string& name) {
      Tensor& t = model.graph.initializers.at(name);
      t = Tensor::metadata_only(t.dtype(), t.shape());
      released.push_back(name);
    };
  plan = std::make_unique<runtime::GraphPlan>(
      model, model.graph, providers, std::unordered_map<std::string, ir::TypeInfo>{}, where,
      alloc_for, placement, placer, share ? &env.prepacked_weights() : nullptr, release,
      &options.config_entries);
}

void Session::Impl::save_optimized_model(const std::string& where) {
  // onnxruntime's entries: initializers of at least min_size bytes go to
  // the named file beside the optimized model.
  onnx::ExternalInitializers external;
  if (auto it =
          options.config_entries.find("session.optimized_model_external_initializers_file_name");
      it != options.config_entries.end())
    external.file_name = it->second;
  external.min_size_in_bytes = size_t(runtime::config_count(
      options, "session.optimized_model_external_initializers_min_size_in_bytes", 1024, 0,
      999999999));
  onnx::save_model(with_host_initializers(model, providers, where),
                   options.optimized_model_filepath, external);
}

void Session::Impl::set_up_profiling() {
  // Read even without profiling, so a bad value is an error either way.
  observe_device_time = runtime::config_flag(options, "session.profile_device_time", false);
  // Counter events ("ph":"C") only on request: onnxruntime's trace holds
  // complete events ("ph":"X") alone, and its consumers expect that.
  profile_memory = runtime::config_flag(options, "session.profile_memory_counters", false);
  if (options.enable_profiling) {
    profiler.start(options.profile_file_prefix);
    observer = profiling_observer(&profiler);
  }
}

std::unique_ptr<Session> Session::create(const std::string& model_path,
                                         const SessionOptions& options,
                                         const std::vector<ProviderSpec>& providers) {
  double start = now_ms();
  CreationTimings t;
  ir::Model model = PhaseTimer(&t.phases).time("parse", [&] {
    return onnx::load_model(model_path, runtime::supplied_external_data(options));
  });
  return create_timed(std::move(model), options, providers, std::move(t), start);
}

std::unique_ptr<Session> Session::create_from_bytes(const void* data, size_t size,
                                                    const SessionOptions& options,
                                                    const std::vector<ProviderSpec>& providers) {
  double start = now_ms();
  CreationTimings t;
  ir::Model model = PhaseTimer(&t.phases).time("parse", [&] {
    return onnx::parse_model(data, size, "", "<model bytes>",
                             runtime::supplied_external_data(options));
  });
  return create_timed(std::move(model), options, providers, std::move(t), start);
}

std::unique_ptr<Session> Session::create_from_model(ir::Model model, const SessionOptions& options,
                                                    const std::vector<ProviderSpec>& providers) {
  return create_timed(std::move(model), options, providers, {}, now_ms());
}

std::unique_ptr<Session> Session::create_timed(ir::Model model, const SessionOptions& options,
                                               const std::vector<ProviderSpec>& providers,
                                               CreationTimings timings, double started_ms) {
  auto impl = std::make_unique<Impl>();
  impl->timings = std::move(timings);
  PhaseTimer timer(&impl->timings.phases);
  impl->options = options;
  check_code(options.log_severity_level >= -1 && options.log_severity_level <= 4,
             ErrorCode::kRuntimeException,
             "Invalid session log severity level. Not a valid severity value: ",
             options.log_severity_level, " (0 verbose .. 4 fatal, or -1 for the default logger's)");
  impl->logger = {options.log_severity_level, options.log_verbosity_level, options.log_id};
  // What this thread logs while the session is made goes through its logger.
  const LoggerScope log_scope(impl->logger);
  // The application's own logging function (the C API's SetUserLoggingFunction)
  // receives it at the session's level.
  const ScopedLogSink sink_scope(options.logger, active_log_severity());
  for (const auto& p : providers) impl->requested.push_back(p.name);
  std::string where = model.path.empty() ? std::string("model") : model.path;

  check_code(model.graph.nodes.size() > 0 || !model.graph.outputs.empty(), ErrorCode::kInvalidGraph,
             where, ": the model has no graph");
  timer.time("inline model functions", [&] { onnx::inline_functions(model); });
  runtime::densify_sparse_initializers(model.graph, where);
  timer.time("validate", [&] {
    ir::name_unnamed_nodes(model.graph);
    ir::validate_graph(model, model.graph, {}, where);
    // Before the optimizer and kernel lookup: a node of types its op does
    // not take is named as such, not as a missing kernel.
    ops::check_input_types(model, where);
  });
  runtime::apply_free_dimension_overrides(model.graph, options);

  std::vector<ProviderSpec> specs =
      runtime::provider_specs(providers, options, where, impl->requested);
  impl->providers =
      timer.time("create providers", [&] { return runtime::create_providers(specs, options); });
  runtime::apply_user_initializers(model, options, impl->providers, where);
  runtime::attach_custom_ops(impl->providers, options.custom_ops, options.config_entries);
  runtime::declare_custom_op_types(model, options.custom_ops);
  const std::vector<ep::PlacementRule> placement = runtime::prepare_graph(
      model, impl->providers, options, where, impl->expanded, &impl->timings.phases);
  // One host copy of each initializer across the environment's sessions
  // (handed-in ones are the caller's memory and are used as they are).
  Environment& env = Environment::global();
  const bool share = runtime::config_flag(options, "session.share_initializers", true);
  if (share)
    timer.time("share initializers", [&] {
      for (auto& [name, t] : model.graph.initializers)
        if (!options.initializers.count(name)) t = env.shared_initializers().share_host(name, t);
    });
  // Workers poll for work through each run unless the user turns it off (a
  // machine shared with other busy processes); see ThreadPool::RunScope.
  timer.time("thread pools", [&] { impl->make_thread_pools(env); });
  impl->model = std::move(model);
  impl->allocators = runtime::provider_allocators(impl->providers, options);
  impl->build_plan(env, share, placement, where);
  for (const auto& p : impl->plan->timings()) timer.add(p.name, p.ms);
  if (runtime::config_flag(options, "session.warm_up_arenas", true))
    timer.time("warm up arenas", [&] { impl->plan->warm_up_arenas(); });
  impl->capture = std::make_unique<runtime::RunCapture>(
      *impl->plan, impl->allocators,
      runtime::config_count(options, "session.max_captured_shapes", 8, 1, 1024));
  impl->describe_io();
  if (!options.optimized_model_filepath.empty())
    timer.time("save optimized model", [&] { impl->save_optimized_model(where); });
  impl->set_up_profiling();
  impl->timings.total_ms = now_ms() - started_ms;
  std::unique_ptr<Session> session(new Session(std::move(impl)));
  // The partition report in the log (at info level), for applications that
  // see the session only through the C API's logger.
  if (active_log_severity() <= Severity::kInfo)
    log(Severity::kInfo, "session", where, ": partition\n", session->partition_report().to_text());
  return session;
}

}  // namespace tessera
