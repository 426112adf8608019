// Running a Session and reading what it holds; making one is in
// session_create.cpp.
#include "runtime/session.hpp"

#include <algorithm>
#include <thread>

#include "core/host_heap.hpp"
#include "core/log_scope.hpp"
#include "core/logging.hpp"
#include "ep/provider_abilities.hpp"
#include "ep/provider_registry.hpp"
#include "runtime/session_impl.hpp"

namespace tessera {

const char* version_string() { return "0.1.0"; }

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

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

namespace {

// The positions in `outs` of the outputs a run asks for (all when none are named).
std::vector<size_t> output_positions(const std::vector<std::string>& outs,
                                     const std::vector<std::string>& output_names) {
  std::vector<size_t> picks;
  if (output_names.empty()) {
    for (size_t i = 0; i < outs.size(); ++i) picks.push_back(i);
    return picks;
  }
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
  return picks;
}

}  // namespace

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
  const auto& outs = s.plan->output_names();
  const std::vector<size_t> picks = output_positions(outs, output_names);
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
