#include "runtime/graph_plan.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <unordered_set>

#include "core/logging.hpp"
#include "ep/node_groups.hpp"
#include "ep/partition_passes.hpp"
#include "ep/provider_abilities.hpp"
#include "ir/graph_algorithms.hpp"
#include "ops/graph_types.hpp"
#include "ops/type_inference.hpp"

namespace tessera::runtime {

thread_local const RunState* GraphPlan::current_state = nullptr;

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Marks the input list in an error message, so nested plans add it once.
const char* const kInputsTag = " (inputs: ";

// The values a kernel was given (for an error message).
std::vector<const Value*> inputs_of(const ep::KernelContext& ctx) {
  std::vector<const Value*> v;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) v.push_back(ctx.input_value(i));
  return v;
}

// " (inputs: 'x' float[2,3], 'i' int64[4])" for error messages.
std::string describe_inputs(const ir::Node& node, const std::vector<const Value*>& values) {
  std::string s = kInputsTag;
  for (size_t k = 0; k < values.size(); ++k) {
    if (k) s += ", ";
    const std::string& name = k < node.inputs.size() ? node.inputs[k] : std::string();
    if (!values[k] || name.empty()) {
      s += "<omitted>";
    } else if (values[k]->is_tensor()) {
      const Tensor& t = values[k]->tensor();
      s += str_cat("'", name, "' ", data_type_name(t.dtype()), t.shape().to_string());
    } else {
      s += str_cat("'", name, "' ", values[k]->kind_name());
    }
  }
  return s + ")";
}

// The rules a nested graph's plan gets: the user's (the pins of transformed
// nodes name nodes of the top-level graph).
std::vector<ep::PlacementRule> user_rules(const std::vector<ep::PlacementRule>& rules) {
  std::vector<ep::PlacementRule> out;
  for (const auto& r : rules)
    if (r.match != ep::PlacementRule::Match::kTransformed) out.push_back(r);
  return out;
}

ir::TypeInfo type_of_value(const Value& v) {
  if (v.is_tensor()) return ir::TypeInfo::tensor(v.tensor().dtype());
  if (v.is_sequence()) {
    ir::TypeInfo t;
    t.kind = ir::TypeInfo::Kind::kSequence;
    t.inner = std::make_shared<ir::TypeInfo>(ir::TypeInfo::tensor(v.seq_elem_type()));
    return t;
  }
  return ir::TypeInfo();
}

}  // namespace

GraphPlan::GraphPlan(const ir::Model& model, const ir::Graph& graph, const Providers& providers,
                     const std::unordered_map<std::string, ir::TypeInfo>& outer_types,
                     std::string where, AllocatorFor alloc_for,
                     std::vector<ep::PlacementRule> rules, ConstantPlacer placer,
                     ep::PrepackCache* prepack, InitializerReleaser release)
    : model_(model),
      graph_(graph),
      providers_(providers),
      where_(std::move(where)),
      alloc_for_(alloc_for ? std::move(alloc_for)
                           : [](const ep::ExecutionProvider& p) { return p.allocator(); }),
      rules_(std::move(rules)),
      placer_(std::move(placer)),
      prepack_(prepack) {
  // Phases for the creation report; a nested graph's plan is timed inside its
  // parent's "kernel creation" (it is made while the parent's kernels are).
  using Clock = std::chrono::steady_clock;
  auto lap_start = Clock::now();
  auto lap = [&](const char* phase) {
    auto now = Clock::now();
    PhaseTimer(&timings_).add(phase,
                              std::chrono::duration<double, std::milli>(now - lap_start).count());
    lap_start = now;
  };
  infer_types(outer_types);
  lap("type inference");

  ep::GraphView view;
  view.model = &model_;
  view.graph = &graph_;
  view.value_types = &types_;
  try {
    partition_ = ep::partition_graph(view, providers_, rules_);
  } catch (const Error& e) {
    fail(e.code(), where_, ": ", e.what());
  }
  lap("partition");

  // Slots: graph inputs, initializers, node outputs, then outer-scope reads.
  for (const auto& in : graph_.inputs) {
    input_names_.push_back(in.name);
    input_slots_.push_back(slot_of(in.name));
    input_infos_.push_back(&in);
  }
  for (const auto& [name, tensor] : graph_.initializers)
    initializer_slots_.emplace_back(slot_of(name), &tensor);
  for (const auto& node : graph_.nodes)
    for (const auto& o : node.outputs)
      if (!o.empty()) slot_of(o);
  for (const auto& name : ir::outer_scope_reads(graph_)) {
    if (!slots_.count(name)) {
      outer_names_.push_back(name);
      outer_slots_.push_back(slot_of(name));
    }
  }
  for (const auto& out : graph_.outputs) {
    output_names_.push_back(out.name);
    output_slots_.push_back(slot_of(out.name));
  }

  std::unordered_set<std::string> overridable;
  for (const auto& in : graph_.inputs) overridable.insert(in.name);
  // Graph inputs and outer values start in host memory, initializers where
  // their memory is (a device buffer handed in by the user stays there: its
  // readers on that device use it as is, others get a copy at creation).
  slot_memory_.assign(slot_names_.size(), cpu_memory_info());
  slot_constant_.assign(slot_names_.size(), nullptr);
  for (const auto& [slot, tensor] : initializer_slots_) {
    if (overridable.count(slot_names_[size_t(slot)])) continue;
    slot_constant_[size_t(slot)] = tensor;
    if (!tensor->memory_info().host_accessible())
      slot_memory_[size_t(slot)] = tensor->memory_info();
  }

  lap("memory planning");

  // Kernels and compiled partitions in run order, with copies where an input
  // lives elsewhere.
  std::vector<std::unique_ptr<ep::OpKernel>> compiled = compile_fused_groups(view);
  // Readers left per initializer slot, for giving weights back as soon as
  // their last reader has packed them. Values subgraphs read from this scope
  // and graph outputs are never given back.
  std::unordered_map<int, int> readers_left;
  std::unordered_set<int> keep;
  if (release) {
    for (const auto& [slot, tensor] : initializer_slots_)
      if (slot_constant_[size_t(slot)] == tensor) readers_left[slot] = 0;
    for (const auto& node : graph_.nodes) {
      for (const auto& in : node.inputs)
        if (auto it = slots_.find(in); it != slots_.end() && readers_left.count(it->second))
          ++readers_left[it->second];
      for (const auto& a : node.attributes) {
        std::vector<const ir::Graph*> bodies;
        if (a.g) bodies.push_back(a.g.get());
        for (const auto& g : a.graphs)
          if (g) bodies.push_back(g.get());
        for (const ir::Graph* body : bodies)
          for (const auto& name : ir::outer_scope_reads(*body))
            if (auto it = slots_.find(name); it != slots_.end()) keep.insert(it->second);
      }
    }
    for (int s : output_slots_) keep.insert(s);
  }
  for (const auto& step : ep::schedule(graph_, partition_)) {
    const size_t first_new = steps_.size();
    if (step.fused)
      add_fused_step(step.index, std::move(compiled[step.index]));
    else
      add_node_step(step.index, view, outer_types);
    if (!release) continue;
    for (size_t i = first_new; i < steps_.size(); ++i) {
      const NodeStep& st = steps_[i];
      for (size_t k = 0; k < st.inputs.size(); ++k) {
        auto it = readers_left.find(st.inputs[k]);
        if (it == readers_left.end()) continue;
        if (!st.node || st.fused || !st.kernel || st.kernel->reads_constant_data(k))
          keep.insert(it->first);
        if (--it->second == 0 && !keep.count(it->first)) release(slot_names_[size_t(it->first)]);
      }
    }
  }
  // Which inputs host kernels read directly, and who reads each input first
  // (directly or through a copy into its memory).
  std::unordered_map<int, int> copy_source;  // copy slot -> the slot it copies
  for (const auto& step : steps_)
    if (!step.node) copy_source[step.outputs[0]] = step.inputs[0];
  input_read_on_host_.assign(input_slots_.size(), false);
  input_of_slot_.assign(slot_names_.size(), -1);
  for (size_t i = 0; i < input_slots_.size(); ++i) input_of_slot_[size_t(input_slots_[i])] = int(i);
  first_consumer_.assign(input_slots_.size(), -1);
  for (size_t i = 0; i < input_slots_.size(); ++i) {
    const int in = input_slots_[i];
    for (const auto& step : steps_) {
      if (!step.node) continue;
      bool direct = std::count(step.inputs.begin(), step.inputs.end(), in) +
                        std::count(step.implicit_inputs.begin(), step.implicit_inputs.end(), in) >
                    0;
      bool via_copy = false;
      for (int s : step.inputs) {
        auto c = copy_source.find(s);
        via_copy |= c != copy_source.end() && c->second == in;
      }
      if (direct) input_read_on_host_[i] = true;
      if (first_consumer_[i] < 0 && (direct || via_copy)) first_consumer_[i] = step.provider;
    }
  }
  // Graph outputs are handed back in host memory, unless a run asks to leave
  // them on the device (the copies added here are then skipped).
  raw_output_slots_ = output_slots_;
  output_from_kernel_.assign(output_slots_.size(), false);
  for (size_t i = 0; i < output_slots_.size(); ++i)
    for (const auto& step : steps_)
      if (step.node && std::count(step.outputs.begin(), step.outputs.end(), output_slots_[i]))
        output_from_kernel_[i] = true;
  const size_t first_output_copy = steps_.size();
  for (int& s : output_slots_) s = place(s, cpu_memory_info(), default_cpu_allocator());
  for (size_t i = first_output_copy; i < steps_.size(); ++i) steps_[i].output_only = true;
  lap("kernel creation and weight prepacking");

  // Lifetimes: a slot is released after its last reader (kernel, copy or subgraph).
  std::vector<int> last_reader(slot_names_.size(), -1);
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (int s : steps_[i].inputs)
      if (s >= 0) last_reader[size_t(s)] = int(i);
    for (int s : steps_[i].implicit_inputs) last_reader[size_t(s)] = int(i);
  }
  std::unordered_set<int> kept(output_slots_.begin(), output_slots_.end());
  kept.insert(raw_output_slots_.begin(), raw_output_slots_.end());
  for (size_t s = 0; s < last_reader.size(); ++s)
    if (last_reader[s] >= 0 && !kept.count(int(s)))
      steps_[size_t(last_reader[s])].release.push_back(int(s));

  // Dependencies between steps, for running independent nodes at once.
  std::vector<int> producer(slot_names_.size(), -1);
  for (size_t i = 0; i < steps_.size(); ++i)
    for (int s : steps_[i].outputs)
      if (s >= 0) producer[size_t(s)] = int(i);
  successors_.assign(steps_.size(), {});
  num_predecessors_.assign(steps_.size(), 0);
  slot_readers_.assign(slot_names_.size(), 0);
  step_reads_.assign(steps_.size(), {});
  for (size_t i = 0; i < steps_.size(); ++i) {
    std::unordered_set<int> reads;
    for (int s : steps_[i].inputs)
      if (s >= 0) reads.insert(s);
    for (int s : steps_[i].implicit_inputs) reads.insert(s);
    std::unordered_set<int> preds;
    for (int s : reads) {
      step_reads_[i].push_back(s);
      if (!kept.count(s)) ++slot_readers_[size_t(s)];
      int p = producer[size_t(s)];
      if (p >= 0 && preds.insert(p).second) {
        successors_[size_t(p)].push_back(int(i));
        ++num_predecessors_[i];
      }
    }
  }
  // Inputs a kernel may take over as an output's memory: values made by a
  // step of this plan, kept by no one, read once by this step as their last
  // reader, every other reader being an ancestor of this step (so it is done
  // however the parallel executor schedules the steps).
  std::vector<std::vector<int>> readers(slot_names_.size()), preds(steps_.size());
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (int s : step_reads_[i]) readers[size_t(s)].push_back(int(i));
    for (int j : successors_[i]) preds[size_t(j)].push_back(int(i));
  }
  std::vector<size_t> seen(steps_.size(), 0);  // stamp of the search that reached a step
  size_t stamp = 0;
  auto ancestors_cover = [&](int d, const std::vector<int>& others) {
    ++stamp;
    std::vector<int> todo = preds[size_t(d)];
    while (!todo.empty()) {
      const int j = todo.back();
      todo.pop_back();
      if (seen[size_t(j)] == stamp) continue;
      seen[size_t(j)] = stamp;
      todo.insert(todo.end(), preds[size_t(j)].begin(), preds[size_t(j)].end());
    }
    for (int r : others)
      if (r != d && seen[size_t(r)] != stamp) return false;
    return true;
  };
  for (size_t d = 0; d < steps_.size(); ++d) {
    NodeStep& step = steps_[d];
    if (!step.node) continue;
    step.donatable.assign(step.inputs.size(), false);
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      const int s = step.inputs[k];
      if (s < 0 || kept.count(s) || producer[size_t(s)] < 0 || last_reader[size_t(s)] != int(d))
        continue;
      if (std::count(step.inputs.begin(), step.inputs.end(), s) != 1 ||
          std::count(step.implicit_inputs.begin(), step.implicit_inputs.end(), s) != 0)
        continue;
      step.donatable[k] =
          readers[size_t(s)].size() == 1 || ancestors_cover(int(d), readers[size_t(s)]);
    }
  }
  lap("memory planning");
}

// Places a step's inputs in its provider's memory (copies where needed), marks
// its outputs as living there, and collects the static types and constants its
// kernel is created with. Shared by single nodes and compiled partitions.
void GraphPlan::wire_values(NodeStep& step, const ir::Node& node,
                            std::vector<ir::TypeInfo>& in_types,
                            std::vector<ir::TypeInfo>& out_types,
                            std::vector<const Tensor*>& constants,
                            const std::vector<int>& host_inputs,
                            const std::vector<int>& host_outputs) {
  const MemoryInfo& mem = providers_[size_t(step.provider)]->memory_info();
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const std::string& in = node.inputs[k];
    const bool on_host =
        std::find(host_inputs.begin(), host_inputs.end(), int(k)) != host_inputs.end();
    int slot = in.empty() ? -1
               : on_host  ? place(slots_.at(in), cpu_memory_info(), default_cpu_allocator())
                          : place(slots_.at(in), mem, step.allocator);
    step.inputs.push_back(slot);
    auto t = in.empty() ? types_.end() : types_.find(in);
    in_types.push_back(t == types_.end() ? ir::TypeInfo() : t->second);
    constants.push_back(slot < 0 ? nullptr : slot_constant_[size_t(slot)]);
  }
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    const std::string& o = node.outputs[k];
    int slot = o.empty() ? -1 : slots_.at(o);
    step.outputs.push_back(slot);
    const bool on_host =
        std::find(host_outputs.begin(), host_outputs.end(), int(k)) != host_outputs.end();
    if (on_host) {
      step.host_outputs.resize(node.outputs.size(), false);
      step.host_outputs[k] = true;
    }
    if (slot >= 0) slot_memory_[size_t(slot)] = on_host ? cpu_memory_info() : mem;
    auto t = o.empty() ? types_.end() : types_.find(o);
    out_types.push_back(t == types_.end() ? ir::TypeInfo() : t->second);
    DataType dt = DataType::kUndefined;
    if (t != types_.end() && t->second.is_tensor()) dt = t->second.elem_type;
    step.output_types.push_back(dt);
  }
}

void GraphPlan::add_node_step(size_t i, const ep::GraphView& view,
                              const std::unordered_map<std::string, ir::TypeInfo>& outer_types) {
  const ir::Node& node = graph_.nodes[i];
  NodeStep step;
  step.node = &node;
  step.provider = partition_.node_provider[i];
  const auto& provider = providers_[size_t(step.provider)];
  step.allocator = alloc_for_(*provider);
  auto match = ep::lookup_kernel(provider->kernel_registry(), view, node);
  if (!match.entry)
    fail(ErrorCode::kNotImplemented, where_, ": ", provider->name(), " claimed ", node.describe(),
         " but has no kernel for it: ", match.reason);
  std::vector<ir::TypeInfo> in_types, out_types;
  std::vector<const Tensor*> constants;
  wire_values(step, node, in_types, out_types, constants, match.entry->def.host_inputs,
              match.entry->def.host_outputs);
  // Subgraphs see every value visible at this point of this graph.
  std::unordered_map<std::string, const GraphPlan*> subs;
  for (const auto& a : node.attributes) {
    if (!a.g) continue;
    auto visible = outer_types;
    for (const auto& [name, t] : types_) visible[name] = t;
    subplans_.push_back(std::make_unique<GraphPlan>(
        model_, *a.g, providers_, visible, str_cat(where_, " / ", node.describe(), " ", a.name),
        alloc_for_, user_rules(rules_), placer_, prepack_));
    subs[a.name] = subplans_.back().get();
    // A subgraph's plan expects the values it reads from outside in host
    // memory; one produced in another memory space is copied out first.
    for (const auto& r : ir::outer_scope_reads(*a.g)) {
      auto sl = slots_.find(r);
      if (sl == slots_.end()) continue;
      int slot = place(sl->second, cpu_memory_info(), default_cpu_allocator());
      if (slot != sl->second) scope_slots_[r] = slot;
      step.implicit_inputs.push_back(slot);
    }
  }
  step.info = std::make_unique<ep::KernelInfo>(
      node, model_.opset(node.domain), std::move(in_types), std::move(out_types),
      std::move(constants), [subs](const std::string& name) -> const ep::SubgraphRunner* {
        auto it = subs.find(name);
        return it == subs.end() ? nullptr : it->second;
      });
  step.info->set_prepack_cache(prepack_);
  step.info->set_provider_options(&provider->options());
  try {
    step.kernel = match.entry->factory(*step.info);
  } catch (const Error& e) {
    fail(e.code(), where_, ": creating the kernel for ", node.describe(), ": ", e.what());
  }
  steps_.push_back(std::move(step));
}

std::vector<std::unique_ptr<ep::OpKernel>> GraphPlan::compile_fused_groups(
    const ep::GraphView& view) {
  std::vector<std::unique_ptr<ep::OpKernel>> kernels(partition_.groups.size());
  for (size_t p = 0; p < providers_.size(); ++p) {
    std::vector<ep::FusedGroup> groups;
    std::vector<size_t> index;
    for (size_t g = 0; g < partition_.groups.size(); ++g) {
      if (!partition_.groups[g].fused || partition_.group_provider[g] != int(p)) continue;
      ep::FusedGroup fg;
      fg.nodes = partition_.groups[g].nodes;
      auto boundary = ep::group_boundary(graph_, fg.nodes);
      fg.node.name = str_cat(providers_[p]->name(), "_fused_", g);
      fg.node.domain = ep::kFusedGroupDomain;
      fg.node.op_type = providers_[p]->name();
      for (size_t n : fg.nodes)
        fg.node.doc_string +=
            str_cat(fg.node.doc_string.empty() ? "" : "+", graph_.nodes[n].op_type);
      fg.node.inputs = std::move(boundary.inputs);
      fg.node.outputs = std::move(boundary.outputs);
      groups.push_back(std::move(fg));
      index.push_back(g);
    }
    if (groups.empty()) continue;
    const auto* compiler = dynamic_cast<const ep::FusedCompiler*>(providers_[p].get());
    if (!compiler)
      fail(ErrorCode::kNotImplemented, where_, ": ", providers_[p]->name(), " claimed ",
           groups.size(), " fused group(s) but cannot compile (it is not a FusedCompiler)");
    std::vector<std::unique_ptr<ep::OpKernel>> made;
    try {
      made = compiler->compile(view, groups);
    } catch (const Error& e) {
      fail(e.code(), where_, ": ", providers_[p]->name(), " compiling ", groups.size(),
           " fused group(s): ", e.what());
    }
    if (made.size() != groups.size())
      fail(ErrorCode::kEPFail, where_, ": ", providers_[p]->name(), " compiled ", made.size(),
           " kernels for ", groups.size(), " fused groups");
    for (size_t k = 0; k < groups.size(); ++k) {
      if (!made[k])
        fail(ErrorCode::kEPFail, where_, ": ", providers_[p]->name(), " returned no kernel for ",
             groups[k].node.name);
      fused_nodes_.push_back(std::move(groups[k].node));
      fused_node_of_group_[index[k]] = &fused_nodes_.back();
      kernels[index[k]] = std::move(made[k]);
    }
  }
  return kernels;
}

// A compiled partition is one step: its inputs and outputs are the values
// crossing the group's boundary, placed in the provider's memory like a node's.
void GraphPlan::add_fused_step(size_t group, std::unique_ptr<ep::OpKernel> kernel) {
  const ir::Node& node = *fused_node_of_group_.at(group);
  NodeStep step;
  step.node = &node;
  step.fused = true;
  step.provider = partition_.group_provider[group];
  const auto& provider = providers_[size_t(step.provider)];
  step.allocator = alloc_for_(*provider);
  std::vector<ir::TypeInfo> in_types, out_types;
  std::vector<const Tensor*> constants;
  wire_values(step, node, in_types, out_types, constants, {}, {});
  step.info = std::make_unique<ep::KernelInfo>(node, 1, std::move(in_types), std::move(out_types),
                                               std::move(constants));
  step.kernel = std::move(kernel);
  log(Severity::kVerbose, "partition", where_, ": ", node.name, " runs ",
      partition_.groups[group].nodes.size(), " nodes as one step, inputs ", node.inputs.size(),
      ", outputs ", node.outputs.size());
  steps_.push_back(std::move(step));
}

const ep::DataTransfer* GraphPlan::find_transfer(const MemoryInfo& src,
                                                 const MemoryInfo& dst) const {
  static const ep::HostDataTransfer host;
  if (host.can_copy(src, dst)) return &host;
  for (const auto& p : providers_)
    if (const auto* t = p->data_transfer(); t && t->can_copy(src, dst)) return t;
  return nullptr;
}

int GraphPlan::place(int slot, const MemoryInfo& dst, const std::shared_ptr<Allocator>& alloc) {
  const MemoryInfo src = slot_memory_[size_t(slot)];  // copies: the vectors grow below
  if (src.same_space(dst) || (src.host_accessible() && dst.host_accessible())) return slot;
  std::string key = str_cat(slot, "@", dst.to_string());
  if (auto it = placed_.find(key); it != placed_.end()) return it->second;
  const ep::DataTransfer* transfer = find_transfer(src, dst);
  const std::string name = slot_names_[size_t(slot)];
  if (!transfer)
    fail(ErrorCode::kEPFail, where_, ": value '", name, "' must move from ", src.to_string(),
         " to ", dst.to_string(), " but no provider can copy between them");
  int copy = slot_of(str_cat(name, "@", dst.to_string()));
  slot_memory_.push_back(dst);
  slot_constant_.push_back(nullptr);
  placed_[key] = copy;
  if (const Tensor* c = slot_constant_[size_t(slot)]) {
    // Initializers are placed in the consumer's memory once, at creation
    // (and shared with other sessions placing the same tensor there).
    auto make = [&] {
      Tensor t(c->dtype(), c->shape(), alloc);
      transfer->copy_tensors({c}, {&t}, nullptr);
      return t;
    };
    auto t = std::make_unique<Tensor>(placer_ ? placer_(*c, dst, make) : make());
    initializer_slots_.emplace_back(copy, t.get());
    slot_constant_[size_t(copy)] = t.get();
    placed_constants_.push_back(std::move(t));
    copies_.push_back({name, src, dst, true});
    return copy;
  }
  NodeStep step;
  step.transfer = transfer;
  step.dst = dst;
  step.inputs = {slot};
  step.outputs = {copy};
  step.allocator = alloc;
  steps_.push_back(std::move(step));
  copies_.push_back({name, src, dst, false});
  return copy;
}

void GraphPlan::run_copy(const NodeStep& step, std::vector<Value>& frame,
                         const RunState& state) const {
  const Value& src = frame[size_t(step.inputs[0])];
  if (src.is_none()) return;
  if (!src.is_tensor())
    fail(ErrorCode::kNotImplemented, where_, ": cannot move a ", src.kind_name(), " value '",
         slot_names_[size_t(step.inputs[0])], "' between memory spaces");
  // A graph input bound in this copy's destination memory and brought to the
  // host for a host kernel: the bound tensor is the copy, already made.
  const size_t src_slot = size_t(step.inputs[0]);
  if (const int i = src_slot < input_of_slot_.size() ? input_of_slot_[src_slot] : -1; i >= 0) {
    const Value& bound = frame[slot_names_.size() + size_t(i)];
    if (bound.is_tensor() && bound.tensor().memory_info().same_space(step.dst)) {
      frame[size_t(step.outputs[0])] = bound;
      return;
    }
  }
  const Tensor& s = src.tensor();
  const MemoryInfo& from = s.memory_info();
  if (from.same_space(step.dst) || (from.host_accessible() && step.dst.host_accessible())) {
    // Already there (an input bound in device memory): no copy.
    frame[size_t(step.outputs[0])] = src;
    return;
  }
  const ep::DataTransfer* transfer = step.transfer;
  if (!transfer->can_copy(from, step.dst)) transfer = find_transfer(from, step.dst);
  if (!transfer)
    fail(ErrorCode::kEPFail, where_, ": value '", slot_names_[size_t(step.inputs[0])],
         "' must move from ", from.to_string(), " to ", step.dst.to_string(),
         " but no provider of the session can copy between them");
  if (!state.streams) {
    Tensor d(s.dtype(), s.shape(), step.allocator);
    transfer->copy_tensors({&s}, {&d}, nullptr);
    frame[size_t(step.outputs[0])] = Value(std::move(d));
    return;
  }
  // With streams the copy is ordered after the work that wrote the source
  // (queued on its stream, or waited for when it goes to another) and before
  // the work that reads the destination; a host destination is read by a
  // host kernel next, so its copy is waited for.
  ep::Stream* from_stream = state.streams->stream_for_memory(from);
  ep::Stream* to_stream = state.streams->stream_for_memory(step.dst);
  Tensor d(s.dtype(), s.shape(), state.streams->allocator(step.allocator));
  if (from_stream && to_stream != from_stream) {
    if (to_stream) state.streams->synchronize(from_stream);
    transfer->copy_tensors({&s}, {&d}, to_stream ? to_stream : from_stream);
    if (!to_stream) state.streams->synchronize(from_stream);
  } else {
    transfer->copy_tensors({&s}, {&d}, to_stream);
  }
  // The source must outlive the queued copy (the executor may free it now).
  if (to_stream) state.streams->hold(to_stream, src);
  frame[size_t(step.outputs[0])] = Value(std::move(d));
}

std::string GraphPlan::capture_blocker(const ep::ExecutionProvider& provider) const {
  const MemoryInfo& device = provider.memory_info();
  for (size_t i = 0; i < input_slots_.size(); ++i)
    if (input_read_on_host_[i])
      return str_cat("graph input '", input_names_[i], "' is read by a host kernel");
  for (const auto& step : steps_) {
    if (!step.node) {
      if (step.output_only) continue;  // skipped: outputs stay on the device
      const int src = step.inputs[0];
      const bool graph_input = size_t(src) < input_of_slot_.size() && input_of_slot_[src] >= 0;
      // A graph input fed in the device's memory is used as it is.
      if (graph_input && step.dst.same_space(device)) continue;
      return str_cat("value '", slot_names_[size_t(src)], "' is copied to ", step.dst.to_string(),
                     " during the run");
    }
    const auto& p = *providers_[size_t(step.provider)];
    if (&p == &provider) continue;
    if (!p.memory_info().host_accessible())
      return str_cat(step.node->describe(), " runs on ", p.name());
  }
  if (!subplans_.empty()) return "the graph has control flow (If, Loop or Scan)";
  return "";
}

Value GraphPlan::input_to_host(size_t i, Value v) const {
  if (!v.is_tensor() || !input_read_on_host_[i]) return v;
  const Tensor& t = v.tensor();
  if (t.memory_info().host_accessible()) return v;
  const ep::DataTransfer* transfer = find_transfer(t.memory_info(), cpu_memory_info());
  if (!transfer)
    fail(ErrorCode::kEPFail, where_, ": input '", input_names_[i], "' is in ",
         t.memory_info().to_string(),
         ", a host kernel reads it, and no provider of the session "
         "can copy it to host memory");
  Tensor h(t.dtype(), t.shape());
  transfer->copy_tensors({&t}, {&h}, nullptr);
  return Value(std::move(h));
}

int GraphPlan::slot_of(const std::string& name) {
  auto it = slots_.find(name);
  if (it != slots_.end()) return it->second;
  int s = int(slot_names_.size());
  slots_.emplace(name, s);
  slot_names_.push_back(name);
  return s;
}

void GraphPlan::infer_types(const std::unordered_map<std::string, ir::TypeInfo>& outer_types) {
  for (const auto& [name, t] : outer_types) types_[name] = t;
  ops::infer_graph_types(model_, graph_, types_);
}

void GraphPlan::check_input(const std::string& name, const ir::TypeInfo& declared,
                            const Value& v) const {
  if (declared.kind == ir::TypeInfo::Kind::kTensor) {
    if (!v.is_tensor())
      fail(ErrorCode::kInvalidArgument, where_, ": input '", name, "' expects ",
           declared.to_string(), " but got a ", v.kind_name());
    const Tensor& t = v.tensor();
    if (declared.elem_type != DataType::kUndefined && t.dtype() != declared.elem_type)
      fail(ErrorCode::kInvalidArgument, where_, ": input '", name, "' expects ",
           declared.to_string(), " but got tensor(", data_type_name(t.dtype()), ")");
    if (declared.shape) {
      const auto& dims = *declared.shape;
      bool ok = dims.size() == t.rank();
      for (size_t d = 0; ok && d < dims.size(); ++d)
        if (dims[d].value && *dims[d].value != t.shape()[d]) ok = false;
      if (!ok)
        fail(ErrorCode::kInvalidArgument, where_, ": input '", name, "' expects shape ",
             declared.shape_string(), " but got ", t.shape().to_string());
    }
  }
}

std::vector<Value> GraphPlan::execute(std::vector<Value> inputs, const ValueLookup& outer,
                                      const RunState& state) const {
  const RunState* saved = current_state;
  current_state = &state;
  struct Restore {
    const RunState* s;
    ~Restore() { GraphPlan::current_state = s; }
  } restore{saved};

  // Past the plan's slots: the device tensor of each graph input that was also
  // brought to the host, so copy steps into that device reuse it (run_copy).
  const size_t bound_base = slot_names_.size();
  std::vector<Value> frame(bound_base + input_slots_.size());
  for (const auto& [slot, tensor] : initializer_slots_) frame[size_t(slot)] = Value(*tensor);
  check(inputs.size() <= input_slots_.size(), where_, ": ", inputs.size(),
        " inputs given, the graph has ", input_slots_.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_none() && input_infos_[i]->type.kind != ir::TypeInfo::Kind::kOptional)
      continue;  // not fed: keep the initializer, if any
    check_input(input_names_[i], input_infos_[i]->type, inputs[i]);
    Value host = input_to_host(i, inputs[i]);
    if (host.is_tensor() && host.tensor().raw_data() != inputs[i].tensor().raw_data())
      frame[bound_base + i] = std::move(inputs[i]);
    frame[size_t(input_slots_[i])] = std::move(host);
  }
  if (state.preset_outputs)
    for (size_t i = 0; i < raw_output_slots_.size() && i < state.preset_outputs->size(); ++i)
      if (output_from_kernel_[i] && (*state.preset_outputs)[i].is_tensor())
        frame[size_t(raw_output_slots_[i])] = (*state.preset_outputs)[i];
  for (size_t i = 0; i < outer_slots_.size(); ++i) {
    const Value* v = outer ? outer(outer_names_[i]) : nullptr;
    if (v) frame[size_t(outer_slots_[i])] = *v;
  }
  ValueLookup lookup = [&](const std::string& name) -> const Value* {
    if (auto h = scope_slots_.find(name); h != scope_slots_.end()) return &frame[size_t(h->second)];
    auto it = slots_.find(name);
    if (it != slots_.end()) return &frame[size_t(it->second)];
    return outer ? outer(name) : nullptr;
  };

  if (state.inter_pool && state.inter_pool->num_threads() > 1 && steps_.size() > 1) {
    execute_parallel(frame, lookup, state);
  } else {
    for (const auto& step : steps_) {
      run_step(step, frame, lookup, state);
      for (int s : step.release) frame[size_t(s)] = Value();
    }
  }
  std::vector<Value> outputs;
  outputs.reserve(output_slots_.size());
  for (int s : state.host_outputs ? output_slots_ : raw_output_slots_)
    outputs.push_back(frame[size_t(s)]);
  return outputs;
}

void GraphPlan::run_step(const NodeStep& step, std::vector<Value>& frame, const ValueLookup& lookup,
                         const RunState& state) const {
  if (!step.node) {
    if (step.output_only && !state.host_outputs) return;
    run_copy(step, frame, state);
    return;
  }
  if (state.terminate && state.terminate->load(std::memory_order_relaxed))
    fail(ErrorCode::kTerminated, where_, ": run terminated by the caller before ",
         step.node->describe());
  std::vector<const Value*> in_ptrs;
  in_ptrs.reserve(step.inputs.size());
  for (int s : step.inputs) in_ptrs.push_back(s < 0 ? nullptr : &frame[size_t(s)]);
  for (size_t k = 0; k < step.inputs.size(); ++k)
    if (step.inputs[k] >= 0 && frame[size_t(step.inputs[k])].is_none() &&
        !step.node->inputs[k].empty()) {
      // An absent value is an error unless it is an optional's empty state.
      const auto t = types_.find(step.node->inputs[k]);
      if (t == types_.end() || t->second.kind != ir::TypeInfo::Kind::kOptional)
        fail(ErrorCode::kInvalidArgument, where_, ": ", step.node->describe(), " input '",
             step.node->inputs[k], "' has no value (a graph input that was not fed?)");
    }
  std::vector<Value*> out_ptrs;
  out_ptrs.reserve(step.outputs.size());
  for (int s : step.outputs) out_ptrs.push_back(s < 0 ? nullptr : &frame[size_t(s)]);
  std::vector<DataType> out_types = step.output_types;
  bool unknown = false;
  for (DataType dt : out_types) unknown |= dt == DataType::kUndefined && !step.fused;
  if (unknown) {
    // Types unknown before the run (e.g. untyped subgraph inputs): infer from the values.
    std::vector<ir::TypeInfo> actual;
    for (const Value* v : in_ptrs) actual.push_back(v ? type_of_value(*v) : ir::TypeInfo());
    auto inferred = ops::infer_output_types(*step.node, model_.opset(step.node->domain), actual);
    for (size_t k = 0; k < out_types.size() && k < inferred.size(); ++k)
      if (out_types[k] == DataType::kUndefined && inferred[k].is_tensor())
        out_types[k] = inferred[k].elem_type;
  }
  const ep::ExecutionProvider* provider = providers_[size_t(step.provider)].get();
  ep::Stream* stream = state.streams ? state.streams->stream_of(provider) : nullptr;
  // The pointer vectors move into the context, and the scope lookup goes in
  // as a reference (a std::function copy of it would allocate): a step of a
  // small node costs its heap allocations more than its arithmetic.
  ep::KernelContext ctx(
      *step.node, std::move(in_ptrs), std::move(out_ptrs), std::move(out_types),
      stream ? state.streams->allocator(step.allocator) : step.allocator, state.pool,
      lookup ? ValueLookup([&lookup](const std::string& name) { return lookup(name); })
             : ValueLookup(),
      &step.donatable);
  ctx.set_stream(stream);
  if (!step.host_outputs.empty()) ctx.set_host_outputs(&step.host_outputs);
  ctx.set_run_config(state.run_config);
  int64_t start = state.observer ? now_ns() : 0;
  try {
    step.kernel->compute(ctx);
  } catch (const Error& e) {
    // Every kernel error names the node and what it was given, so kernels
    // need only say what is wrong. An error from a nested graph already has
    // its own node's inputs.
    std::string msg = e.what();
    bool named = msg.find(step.node->name) != std::string::npos;
    bool has_inputs = msg.find(kInputsTag) != std::string::npos;
    if (named && has_inputs) throw;
    fail(e.code(), named ? "" : str_cat(where_, ": ", step.node->describe(), ": "), msg,
         has_inputs ? "" : describe_inputs(*step.node, inputs_of(ctx)));
  } catch (const std::exception& e) {
    fail(ErrorCode::kRuntimeException, where_, ": ", step.node->describe(), ": ", e.what(),
         describe_inputs(*step.node, inputs_of(ctx)));
  }
  if (state.observer) {
    if (state.observe_device_time && stream) stream->synchronize();
    (*state.observer)(*step.node, providers_[size_t(step.provider)]->name(), start, now_ns());
  }
}

void GraphPlan::execute_parallel(std::vector<Value>& frame, const ValueLookup& lookup,
                                 const RunState& state) const {
  const size_t n = steps_.size();
  std::vector<std::atomic<int>> pending(n);
  for (size_t i = 0; i < n; ++i) pending[i] = num_predecessors_[i];
  std::vector<std::atomic<int>> readers(slot_readers_.size());
  for (size_t s = 0; s < readers.size(); ++s) readers[s] = slot_readers_[s];
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> ready;
  for (size_t i = n; i-- > 0;)
    if (num_predecessors_[i] == 0) ready.push_back(int(i));
  size_t remaining = n;
  std::exception_ptr error;

  // Each worker takes ready steps until every step is done or one failed. With
  // one thread (or nested inside another run) this is the plain sequence.
  auto worker = [&] {
    const RunState* saved = current_state;
    current_state = &state;
    for (;;) {
      int i;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return !ready.empty() || remaining == 0 || error; });
        if (remaining == 0 || error) break;
        i = ready.back();
        ready.pop_back();
      }
      try {
        run_step(steps_[size_t(i)], frame, lookup, state);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        cv.notify_all();
        break;
      }
      for (int s : step_reads_[size_t(i)])
        if (slot_readers_[size_t(s)] > 0 && --readers[size_t(s)] == 0) frame[size_t(s)] = Value();
      std::lock_guard<std::mutex> lock(mu);
      --remaining;
      for (int succ : successors_[size_t(i)])
        if (--pending[size_t(succ)] == 0) ready.push_back(succ);
      cv.notify_all();
    }
    current_state = saved;
  };
  int workers = state.inter_pool->num_threads();
  state.inter_pool->parallel_for(workers, 1e9, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) worker();
  });
  if (error) std::rethrow_exception(error);
}

std::vector<Value> GraphPlan::run(const ep::KernelContext& caller,
                                  std::vector<Value> inputs) const {
  static const RunState fallback;
  RunState state = current_state ? *current_state : fallback;
  state.host_outputs = true;  // the control-flow kernel reading them runs on the host
  state.preset_outputs = nullptr;
  ValueLookup outer = [&caller](const std::string& name) { return caller.outer_scope(name); };
  return execute(std::move(inputs), outer, state);
}

}  // namespace tessera::runtime
