#include "runtime/graph_plan.hpp"

#include <algorithm>
#include <chrono>
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

// The rules a nested graph's plan gets: the user's (the pins of transformed
// nodes name nodes of the top-level graph).
std::vector<ep::PlacementRule> user_rules(const std::vector<ep::PlacementRule>& rules) {
  std::vector<ep::PlacementRule> out;
  for (const auto& r : rules)
    if (r.match != ep::PlacementRule::Match::kTransformed) out.push_back(r);
  return out;
}

}  // namespace

GraphPlan::GraphPlan(const ir::Model& model, const ir::Graph& graph, const Providers& providers,
                     const std::unordered_map<std::string, ir::TypeInfo>& outer_types,
                     std::string where, AllocatorFor alloc_for,
                     std::vector<ep::PlacementRule> rules, ConstantPlacer placer,
                     ep::PrepackCache* prepack, InitializerReleaser release,
                     const std::map<std::string, std::string>* config,
                     OuterConstants outer_constants)
    : model_(model),
      graph_(graph),
      providers_(providers),
      where_(std::move(where)),
      alloc_for_(alloc_for ? std::move(alloc_for)
                           : [](const ep::ExecutionProvider& p) { return p.allocator(); }),
      rules_(std::move(rules)),
      outer_constants_(std::move(outer_constants)),
      placer_(std::move(placer)),
      prepack_(prepack) {
  config_ = config;
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
  view.config = config_;
  try {
    partition_ = ep::partition_graph(view, providers_, rules_);
  } catch (const Error& e) {
    fail(e.code(), where_, ": ", e.what());
  }
  lap("partition");

  plan_slots();
  lap("memory planning");

  create_steps(view, outer_types, release);
  note_input_readers();
  place_outputs();
  lap("kernel creation and weight prepacking");

  plan_memory();
  lap("memory planning");
}

// Slots: graph inputs, initializers (dense, then sparse), node outputs, then
// outer-scope reads.
void GraphPlan::plan_slots() {
  for (const auto& in : graph_.inputs) {
    input_names_.push_back(in.name);
    input_slots_.push_back(slot_of(in.name));
    input_infos_.push_back(&in);
  }
  for (const auto& [name, tensor] : graph_.initializers)
    initializer_slots_.emplace_back(slot_of(name), &tensor);
  for (const auto& [name, sparse] : graph_.sparse_initializers)
    sparse_constants_.emplace_back(slot_of(name), Value::sparse(sparse));
  for (const auto& node : graph_.nodes)
    for (const auto& o : node.outputs)
      if (!o.empty()) slot_of(o);
  // An outer value that is a constant of an enclosing graph is bound once,
  // like an initializer of this graph, instead of being looked up each run.
  std::vector<std::pair<int, const Tensor*>> outer_constant_slots;
  for (const auto& name : ir::outer_scope_reads(graph_)) {
    if (slots_.count(name)) continue;
    if (auto c = outer_constants_.find(name); c != outer_constants_.end()) {
      outer_constant_slots.emplace_back(slot_of(name), c->second);
      continue;
    }
    outer_names_.push_back(name);
    outer_slots_.push_back(slot_of(name));
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
  for (const auto& [slot, tensor] : outer_constant_slots) {
    initializer_slots_.emplace_back(slot, tensor);
    slot_constant_[size_t(slot)] = tensor;
  }
}

// Kernels and compiled partitions in run order, with copies where an input
// lives elsewhere; with `release`, each initializer is given back as soon as
// every reader has taken what it needs of it.
void GraphPlan::create_steps(const ep::GraphView& view,
                             const std::unordered_map<std::string, ir::TypeInfo>& outer_types,
                             const InitializerReleaser& release) {
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
}

// Which inputs host kernels read directly, and who reads each input first
// (directly or through a copy into its memory).
void GraphPlan::note_input_readers() {
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
}

// Graph outputs are handed back in host memory, unless a run asks to leave
// them on the device (the copies added here are then skipped).
void GraphPlan::place_outputs() {
  raw_output_slots_ = output_slots_;
  output_from_kernel_.assign(output_slots_.size(), false);
  output_producer_.assign(output_slots_.size(), -1);
  for (size_t i = 0; i < output_slots_.size(); ++i)
    for (const auto& step : steps_)
      if (step.node && std::count(step.outputs.begin(), step.outputs.end(), output_slots_[i])) {
        output_from_kernel_[i] = true;
        output_producer_[i] = step.provider;
      }
  const size_t first_output_copy = steps_.size();
  for (int& s : output_slots_) s = place(s, cpu_memory_info(), default_cpu_allocator());
  for (size_t i = first_output_copy; i < steps_.size(); ++i) steps_[i].output_only = true;
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
  auto match = ep::lookup_kernel(*provider, view, node);
  if (!match.entry)
    fail(ErrorCode::kNotImplemented, where_, ": ", provider->name(), " claimed ", node.describe(),
         " but has no kernel for it: ", match.reason);
  std::vector<ir::TypeInfo> in_types, out_types;
  std::vector<const Tensor*> constants;
  wire_values(step, node, in_types, out_types, constants, match.entry->def.host_inputs,
              match.entry->def.host_outputs);
  // Subgraphs see every value visible at this point of this graph, and the
  // host constants among them as constants.
  std::unordered_map<std::string, const GraphPlan*> subs;
  for (const auto& a : node.attributes) {
    if (!a.g) continue;
    auto visible = outer_types;
    for (const auto& [name, t] : types_) visible[name] = t;
    subplans_.push_back(std::make_unique<GraphPlan>(
        model_, *a.g, providers_, visible, str_cat(where_, " / ", node.describe(), " ", a.name),
        alloc_for_, user_rules(rules_), placer_, prepack_, nullptr, config_,
        constants_for_subgraph(*a.g)));
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

OuterConstants GraphPlan::constants_for_subgraph(const ir::Graph& body) const {
  OuterConstants out;
  for (const auto& name : ir::outer_scope_reads(body)) {
    auto it = slots_.find(name);
    if (it == slots_.end()) {
      // Not a value of this graph: a constant of an enclosing one, if any.
      if (auto c = outer_constants_.find(name); c != outer_constants_.end()) out.insert(*c);
      continue;
    }
    // Only the tensor at the value's own slot, in host memory, where the
    // body's plan expects the values it reads from outside.
    const Tensor* c = slot_constant_[size_t(it->second)];
    if (c && c->memory_info().host_accessible()) out.emplace(name, c);
  }
  return out;
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

}  // namespace tessera::runtime
