#include "runtime/session.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <unordered_set>

#include "core/host_heap.hpp"
#include "core/log_scope.hpp"
#include "core/logging.hpp"
#include "ep/provider_abilities.hpp"
#include "ep/provider_registry.hpp"
#include "ir/graph_algorithms.hpp"
#include "onnx/function_inliner.hpp"
#include "onnx/model_reader.hpp"
#include "onnx/model_writer.hpp"
#include "ops/type_check.hpp"
#include "runtime/adapter_placement.hpp"
#include "runtime/custom_ops.hpp"
#include "runtime/environment.hpp"
#include "runtime/graph_plan.hpp"
#include "runtime/profiler.hpp"
#include "runtime/run_capture.hpp"
#include "runtime/session_graph.hpp"
#include "runtime/sparse_initializers.hpp"

namespace tessera {

const char* version_string() { return "0.1.0"; }

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
};

void Session::Impl::describe_io() {
  const ir::Graph& g = model.graph;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const auto& in = g.inputs[i];
    input_index[in.name] = i;
    (g.initializers.count(in.name) ? overridable : inputs).push_back({in.name, in.type});
  }
  for (const auto& out : g.outputs) {
    ir::TypeInfo t = out.type;
    if (t.kind == ir::TypeInfo::Kind::kUnknown) {
      auto it = plan->value_types().find(out.name);
      if (it != plan->value_types().end()) t = it->second;
    }
    outputs.push_back({out.name, t});
  }
}

namespace {

const std::string kCpu = "CPUExecutionProvider";

// The profiler's record of each node run; a provider's fused group is named
// by the ops it runs, not the provider.
runtime::NodeObserver profiling_observer(runtime::Profiler* prof) {
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

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

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
    for (auto& [name, t] : model.graph.initializers)
      if (!options.initializers.count(name)) t = env.shared_initializers().share_host(name, t);
  // Workers poll for work through each run unless the user turns it off (a
  // machine shared with other busy processes); see ThreadPool::RunScope.
  const bool spin = runtime::config_flag(options, "session.intra_op.allow_spinning", true);
  timer.time("thread pools", [&] {
    if (!options.use_per_session_threads) {
      Environment::ThreadPools global = env.global_thread_pools();
      check(global.intra != nullptr,
            "the session options give up per-session threads (use_per_session_threads = "
            "false), but the environment has no global thread pools: create them first "
            "(CreateEnvWithGlobalThreadPools in the C API, set_global_thread_pool_sizes in "
            "Python)");
      impl->pool = global.intra;
      if (options.execution_mode == ExecutionMode::kParallel) impl->inter_pool = global.inter;
      return;
    }
    const ThreadHooks none;
    const ThreadHooks& hooks = options.thread_hooks ? *options.thread_hooks : none;
    impl->pool = std::make_shared<ThreadPool>(options.intra_op_num_threads, spin, hooks);
    if (options.execution_mode == ExecutionMode::kParallel)
      impl->inter_pool = std::make_shared<ThreadPool>(options.inter_op_num_threads, spin, hooks);
  });
  impl->model = std::move(model);
  impl->allocators = runtime::provider_allocators(impl->providers, options);
  runtime::ConstantPlacer placer;
  if (share)
    placer = [&env](const Tensor& host, const MemoryInfo& dst,
                    const std::function<Tensor()>& make) {
      return env.shared_initializers().share_placed(host, dst, make);
    };
  auto* allocs = &impl->allocators;
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
    release = [impl = impl.get()](const std::string& name) {
      Tensor& t = impl->model.graph.initializers.at(name);
      t = Tensor::metadata_only(t.dtype(), t.shape());
      impl->released.push_back(name);
    };
  impl->plan = std::make_unique<runtime::GraphPlan>(
      impl->model, impl->model.graph, impl->providers,
      std::unordered_map<std::string, ir::TypeInfo>{}, where, alloc_for, placement, placer,
      share ? &env.prepacked_weights() : nullptr, release, &impl->options.config_entries);
  for (const auto& p : impl->plan->timings()) timer.add(p.name, p.ms);
  if (runtime::config_flag(options, "session.warm_up_arenas", true))
    timer.time("warm up arenas", [&] { impl->plan->warm_up_arenas(); });
  impl->capture = std::make_unique<runtime::RunCapture>(
      *impl->plan, impl->allocators,
      runtime::config_count(options, "session.max_captured_shapes", 8, 1, 1024));
  impl->describe_io();
  if (!options.optimized_model_filepath.empty()) {
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
    timer.time("save optimized model", [&] {
      onnx::save_model(with_host_initializers(impl->model, impl->providers, where),
                       options.optimized_model_filepath, external);
    });
  }
  // Read even without profiling, so a bad value is an error either way.
  impl->observe_device_time = runtime::config_flag(options, "session.profile_device_time", false);
  // Counter events ("ph":"C") only on request: onnxruntime's trace holds
  // complete events ("ph":"X") alone, and its consumers expect that.
  impl->profile_memory = runtime::config_flag(options, "session.profile_memory_counters", false);
  if (options.enable_profiling) {
    impl->profiler.start(options.profile_file_prefix);
    impl->observer = profiling_observer(&impl->profiler);
  }
  impl->timings.total_ms = now_ms() - started_ms;
  std::unique_ptr<Session> session(new Session(std::move(impl)));
  // The partition report in the log (at info level), for applications that
  // see the session only through the C API's logger.
  if (active_log_severity() <= Severity::kInfo)
    log(Severity::kInfo, "session", where, ": partition\n", session->partition_report().to_text());
  return session;
}

std::vector<Value> Session::run(const std::vector<std::pair<std::string, Value>>& feeds,
                                const std::vector<std::string>& output_names,
                                const RunOptions& run_options) const {
  return run_impl(feeds, output_names, run_options, true);
}

std::vector<Value> Session::run_on_devices(const std::vector<std::pair<std::string, Value>>& feeds,
                                           const std::vector<std::string>& output_names,
                                           const RunOptions& run_options,
                                           const std::vector<Value>* preallocated) const {
  return run_impl(feeds, output_names, run_options, false, preallocated);
}

std::vector<Value> Session::gather_inputs(const std::vector<std::pair<std::string, Value>>& feeds,
                                          const RunOptions& run_options) const {
  const Impl& s = *impl_;
  std::vector<Value> inputs(s.model.graph.inputs.size());
  std::vector<bool> fed(inputs.size(), false);
  for (const auto& [name, value] : feeds) {
    auto it = s.input_index.find(name);
    if (it == s.input_index.end()) {
      std::string list;
      for (const auto& in : s.inputs) list += str_cat(list.empty() ? "" : ", ", in.name);
      fail(ErrorCode::kInvalidArgument, "'", name,
           "' is not an input of the model; inputs are: ", list);
    }
    check(!fed[it->second], "input '", name, "' is fed twice");
    fed[it->second] = true;
    inputs[it->second] = value;
  }
  // The active adapters' parameters are feeds too; one fed otherwise, or by
  // two adapters, would leave which value wins to chance.
  for (const auto& adapter : run_options.active_adapters)
    for (size_t k = 0; k < adapter->parameters.size(); ++k) {
      const std::string& name = adapter->parameters[k].first;
      auto it = s.input_index.find(name);
      check(it != s.input_index.end(), "LoRA adapter parameter '", name,
            "' is not an input or overridable initializer of the model");
      check(!fed[it->second], "LoRA adapter parameter '", name,
            "' is also fed, or set by another active adapter");
      fed[it->second] = true;
      const int p = s.plan->first_consumer(it->second);
      const MemoryInfo where = p < 0 ? cpu_memory_info() : s.providers[size_t(p)]->memory_info();
      inputs[it->second] =
          s.adapters.parameter(adapter, k, where, [&](const Tensor& t, const MemoryInfo& m) {
            auto alloc = allocator_for(m);
            const ep::DataTransfer* transfer = data_transfer(t.memory_info(), m);
            if (!alloc || !transfer) return t;  // the run's input copies take it there
            Tensor copy(t.dtype(), t.shape(), alloc);
            transfer->copy_tensors({&t}, {&copy}, nullptr);
            return copy;
          });
    }
  for (const auto& in : s.inputs)
    if (!fed[s.input_index.at(in.name)] && in.type.kind != ir::TypeInfo::Kind::kOptional)
      fail(ErrorCode::kInvalidArgument, "input '", in.name, "' (", in.type.to_string(),
           in.type.shape_string(), ") was not fed");
  return inputs;
}

std::vector<Value> Session::run_impl(const std::vector<std::pair<std::string, Value>>& feeds,
                                     const std::vector<std::string>& output_names,
                                     const RunOptions& run_options, bool host_outputs,
                                     const std::vector<Value>* preallocated) const {
  const Impl& s = *impl_;
  std::vector<Value> inputs = gather_inputs(feeds, run_options);
  std::vector<size_t> picks;
  const auto& outs = s.plan->output_names();
  if (output_names.empty()) {
    for (size_t i = 0; i < outs.size(); ++i) picks.push_back(i);
  } else {
    for (const auto& name : output_names) {
      auto it = std::find(outs.begin(), outs.end(), name);
      if (it == outs.end()) {
        std::string list;
        for (const auto& o : outs) list += str_cat(list.empty() ? "" : ", ", o);
        fail(ErrorCode::kInvalidArgument, "'", name,
             "' is not an output of the model; outputs are: ", list);
      }
      picks.push_back(size_t(it - outs.begin()));
    }
  }
  runtime::RunState state;
  state.pool = s.pool.get();
  state.inter_pool = s.inter_pool.get();
  state.terminate = run_options.terminate.get();
  state.observer = s.observer ? &s.observer : nullptr;
  // A run-scoped profile: its own trace, next to the session's (if any).
  runtime::Profiler run_profiler;
  runtime::NodeObserver run_observer;
  if (run_options.enable_profiling) {
    run_profiler.start(run_options.profile_file_prefix);
    run_observer = [session_observer = state.observer, own = profiling_observer(&run_profiler)](
                       const ir::Node& node, const std::string& provider, int64_t b, int64_t e) {
      if (session_observer) (*session_observer)(node, provider, b, e);
      own(node, provider, b, e);
    };
    state.observer = &run_observer;
  }
  state.observe_device_time = s.observe_device_time;
  state.host_outputs = host_outputs;
  state.run_config = &run_options.config_entries;
  std::vector<Value> preset;
  if (preallocated) {
    check(preallocated->size() == picks.size(), "run: ", preallocated->size(),
          " preallocated outputs for ", picks.size(), " outputs");
    preset.resize(outs.size());
    for (size_t k = 0; k < picks.size(); ++k) preset[picks[k]] = (*preallocated)[k];
    state.preset_outputs = &preset;
  }
  check_code(run_options.log_severity_level >= -1 && run_options.log_severity_level <= 4,
             ErrorCode::kRuntimeException,
             "Invalid run log severity level. Not a valid severity value: ",
             run_options.log_severity_level, " (0 verbose .. 4 fatal, or -1 for the session's)");
  const Logger run_logger{
      run_options.log_severity_level >= 0 ? run_options.log_severity_level : s.logger.severity,
      run_options.log_verbosity_level,
      run_options.log_tag.empty() ? s.logger.id : run_options.log_tag};
  const LoggerScope log_scope(run_logger);
  const ScopedLogSink sink_scope(s.options.logger, active_log_severity());
  const char* tag = "run";
  log(Severity::kVerbose, tag, "run started");
  std::vector<Value> all;
  try {
    // Outlives the plan's frame: a failed run's values go back to the run
    // first, then its streams are waited for and its memory released.
    runtime::RunStreams streams(s.providers, s.allocators, &run_options.config_entries);
    if (!streams.empty()) state.streams = &streams;
    const ThreadPool::RunScope intra(state.pool), inter(state.inter_pool);
    std::optional<std::vector<Value>> replayed;
    if (s.capture->active()) replayed = s.capture->run(inputs, streams, state);
    all = replayed ? std::move(*replayed) : s.plan->execute(std::move(inputs), nullptr, state);
    streams.finish();
  } catch (const Error& e) {
    log(Severity::kVerbose, tag, "run failed: ", e.what());
    throw;
  }
  log(Severity::kVerbose, tag, "run finished");
  if (run_profiler.enabled()) {
    run_profiler.record({run_logger.id.empty() ? std::string("model_run") : run_logger.id,
                         "Session", "", "model_run", run_profiler.start_time_ns(),
                         runtime::Profiler::now_ns(),
                         std::hash<std::thread::id>()(std::this_thread::get_id()) % 100000});
    log(Severity::kInfo, tag, "run profile written to ", run_profiler.finish());
  }
  if (run_options.config_entries.count("memory.enable_memory_arena_shrinkage"))
    release_arena_memory();
  std::vector<Value> result;
  if (s.profiler.enabled() && s.profile_memory) {
    // Allocator statistics after each run, as counter tracks in the trace.
    const int64_t t = runtime::Profiler::now_ns();
    for (const auto& [name, stats] : allocator_stats())
      impl_->profiler.record_memory(name, t, stats.in_use, stats.peak, stats.reserved,
                                    stats.num_allocs);
  }
  result.reserve(picks.size());
  for (size_t i : picks) {
    // An output declared sparse that a kernel produced dense (or a sparse
    // initializer, densified because it is a graph output) goes back sparse.
    if (s.outputs[i].type.kind == ir::TypeInfo::Kind::kSparseTensor && all[i].is_tensor())
      all[i] = Value::sparse(SparseTensor::coo_from_dense(all[i].tensor()));
    result.push_back(std::move(all[i]));
  }
  return result;
}

const std::vector<IoInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<IoInfo>& Session::outputs() const { return impl_->outputs; }
const std::vector<IoInfo>& Session::overridable_initializers() const { return impl_->overridable; }

const std::vector<std::string>& Session::released_initializers() const { return impl_->released; }
const ir::Model& Session::model() const { return impl_->model; }
const std::vector<ExpandedOp>& Session::expanded_ops() const { return impl_->expanded; }
const CreationTimings& Session::creation_timings() const { return impl_->timings; }
const SessionOptions& Session::options() const { return impl_->options; }
std::vector<std::string> Session::requested_providers() const { return impl_->requested; }

std::vector<std::string> Session::providers() const {
  std::vector<std::string> names;
  for (const auto& p : impl_->providers) names.push_back(p->name());
  return names;
}

std::map<std::string, std::map<std::string, std::string>> Session::provider_options() const {
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const auto& p : impl_->providers) {
    ep::ProviderOptions o = p->effective_options();
    out[p->name()] = std::map<std::string, std::string>(o.begin(), o.end());
  }
  return out;
}

std::vector<NodeAssignment> Session::node_assignments() const {
  std::vector<NodeAssignment> out;
  const auto& plan = *impl_->plan;
  const auto& part = plan.partition();
  std::vector<std::string> group(plan.graph().nodes.size());
  for (size_t g = 0; g < part.groups.size(); ++g)
    if (part.groups[g].fused && part.groups[g].nodes.size() > 1)  // one node: a kernel
      for (size_t i : part.groups[g].nodes)
        group[i] = str_cat(impl_->providers[size_t(part.group_provider[g])]->name(), "_fused_", g);
  for (size_t i = 0; i < plan.graph().nodes.size(); ++i) {
    const auto& n = plan.graph().nodes[i];
    out.push_back({n.name, n.op_type, n.domain,
                   impl_->providers[size_t(part.node_provider[i])]->name(), part.declined[i],
                   part.override_rule[i], group[i], ""});
  }
  // Body nodes name the node they replaced (expansions nest: the outermost wins
  // the description, listed first since it was expanded first).
  for (auto& a : out)
    for (const auto& e : impl_->expanded)
      if (a.expanded_from.empty() &&
          std::find(e.body_nodes.begin(), e.body_nodes.end(), a.node_name) != e.body_nodes.end())
        a.expanded_from = str_cat(e.op_type, " (node '", e.node_name, "') via body ", e.body);
  return out;
}

PartitionReport Session::partition_report() const {
  PartitionReport r;
  r.requested = requested_providers();
  r.in_use = providers();
  r.nodes = node_assignments();
  r.expanded = impl_->expanded;
  r.graph = &impl_->plan->graph();
  const ir::Graph& g = *r.graph;
  for (const auto& c : impl_->plan->copies()) {
    bool forced = false;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (r.nodes[i].override_rule.empty()) continue;
      const auto& n = g.nodes[i];
      for (const auto& v : n.inputs) forced |= v == c.value;
      for (const auto& v : n.outputs) forced |= v == c.value;
    }
    r.copies.push_back({c.value, c.from.to_string(), c.to.to_string(), c.at_creation, forced});
  }
  return r;
}

std::vector<std::pair<std::string, AllocatorStats>> Session::allocator_stats() const {
  std::vector<std::pair<std::string, AllocatorStats>> out;
  for (const auto& [name, a] : impl_->allocators) out.emplace_back(name, a->stats());
  return out;
}

RunCaptureInfo Session::run_capture() const { return impl_->capture->info(); }

void Session::set_dynamic_options(const std::map<std::string, std::string>& options) {
  static const std::string kWorkload = "ep.dynamic.workload_type";
  std::optional<bool> efficient;
  for (const auto& [key, value] : options) {
    check(key == kWorkload, "dynamic option '", key,
          "' is not one Tessera knows (it knows: ", kWorkload, ")");
    check(value == "Default" || value == "Efficient", "dynamic option '", key, "' = '", value,
          "' is not Default or Efficient");
    efficient = value == "Efficient";
  }
  if (!efficient) return;
  const Impl& s = *impl_;
  check(s.options.use_per_session_threads, "dynamic option '", kWorkload,
        "': the session runs on the environment's global thread "
        "pools, which other sessions share; set their spin policy when creating them instead");
  const bool spin =
      !*efficient && runtime::config_flag(s.options, "session.intra_op.allow_spinning", true);
  for (ThreadPool* p : {s.pool.get(), s.inter_pool.get()})
    if (p) p->set_spin(spin);
}

void Session::release_arena_memory() const {
  for (const auto& [name, a] : impl_->allocators) a->release_cached();
  // The blocks just given back may leave whole host-heap regions unused.
  process_host_heap().trim();
}

std::vector<InputLocation> Session::input_locations() const {
  std::vector<InputLocation> out;
  const auto& plan = *impl_->plan;
  for (const auto& in : impl_->inputs) {
    const size_t i = impl_->input_index.at(in.name);
    const int p = plan.first_consumer(i);
    if (p < 0) {
      out.push_back({in.name, "", cpu_memory_info()});
      continue;
    }
    const auto& provider = *impl_->providers[size_t(p)];
    out.push_back({in.name, provider.name(), provider.memory_info()});
  }
  return out;
}

std::vector<OutputLocation> Session::output_locations() const {
  std::vector<OutputLocation> out;
  const auto& plan = *impl_->plan;
  const auto& names = plan.output_names();
  for (size_t i = 0; i < names.size(); ++i) {
    const int p = plan.output_producer(i);
    if (p < 0) {
      out.push_back({names[i], "", cpu_memory_info()});
      continue;
    }
    out.push_back({names[i], impl_->providers[size_t(p)]->name(), plan.output_memory(i)});
  }
  return out;
}

std::shared_ptr<Allocator> Session::allocator_for(const MemoryInfo& memory) const {
  for (size_t i = 0; i < impl_->providers.size(); ++i)
    if (impl_->providers[i]->memory_info().same_space(memory)) return impl_->allocators[i].second;
  if (memory.device_type == DeviceType::kCPU && memory.mem_type == MemoryType::kDefault)
    return default_cpu_allocator();
  return nullptr;
}

const ep::DataTransfer* Session::data_transfer(const MemoryInfo& src, const MemoryInfo& dst) const {
  static const ep::HostDataTransfer host;
  if (host.can_copy(src, dst)) return &host;
  for (const auto& p : impl_->providers)
    if (const auto* t = p->data_transfer(); t && t->can_copy(src, dst)) return t;
  return nullptr;
}

std::string Session::end_profiling() { return impl_->profiler.finish(); }

int64_t Session::profiling_start_ns() const { return impl_->profiler.start_time_ns(); }

}  // namespace tessera
