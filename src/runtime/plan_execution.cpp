// Running a GraphPlan: the executors (in order, or independent steps at
// once), one step (a kernel or a copy) at a time, graph inputs checked and
// outputs handed back, and nested graphs run for control-flow kernels.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "core/logging.hpp"
#include "ops/type_inference.hpp"
#include "runtime/graph_plan.hpp"
#include "runtime/inline_buffer.hpp"

namespace tessera::runtime {

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Marks the input list in an error message, so nested plans add it once.
const char* const kInputsTag = " (inputs: ";

// Inputs or outputs of a step kept on the stack; a node with more (a wide
// Concat) puts its list on the heap.
constexpr size_t kInlineValues = 16;

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
  if (declared.kind == ir::TypeInfo::Kind::kSparseTensor) {
    if (!v.is_sparse())
      fail(ErrorCode::kInvalidArgument, where_, ": input '", name, "' expects ",
           declared.to_string(), " but got a ", v.kind_name());
    const SparseTensor& s = v.sparse();
    if (declared.elem_type != DataType::kUndefined && s.dtype() != declared.elem_type)
      fail(ErrorCode::kInvalidArgument, where_, ": input '", name, "' expects ",
           declared.to_string(), " but got sparse_tensor(", data_type_name(s.dtype()), ")");
    s.validate(str_cat(where_, ": input '", name, "'"));
  }
}

std::vector<Value> GraphPlan::execute(std::vector<Value> inputs, const ValueLookup& outer,
                                      const RunState& state,
                                      ep::SubgraphIterations* iterations) const {
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
  for (const auto& [slot, sparse] : sparse_constants_) frame[size_t(slot)] = sparse;
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
  reuse_kept(iterations, frame);
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
      for (int s : step.release) {
        keep_released(iterations, s, frame[size_t(s)]);
        frame[size_t(s)] = Value();
      }
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
  InlineBuffer<const Value*, kInlineValues> in_ptrs(step.inputs.size());
  for (size_t k = 0; k < step.inputs.size(); ++k)
    in_ptrs[k] = step.inputs[k] < 0 ? nullptr : &frame[size_t(step.inputs[k])];
  for (size_t k = 0; k < step.inputs.size(); ++k)
    if (step.inputs[k] >= 0 && frame[size_t(step.inputs[k])].is_none() &&
        !step.node->inputs[k].empty()) {
      // An absent value is an error unless it is an optional's empty state.
      const auto t = types_.find(step.node->inputs[k]);
      if (t == types_.end() || t->second.kind != ir::TypeInfo::Kind::kOptional)
        fail(ErrorCode::kInvalidArgument, where_, ": ", step.node->describe(), " input '",
             step.node->inputs[k], "' has no value (a graph input that was not fed?)");
    }
  InlineBuffer<Value*, kInlineValues> out_ptrs(step.outputs.size());
  // An output slot holding a tensor kept from the previous iteration: the
  // kernel writes into it rather than over one of its inputs, so the value
  // keeps its own memory from one iteration to the next.
  bool kept_output = false;
  for (size_t k = 0; k < step.outputs.size(); ++k) {
    const int s = step.outputs[k];
    out_ptrs[k] = s < 0 ? nullptr : &frame[size_t(s)];
    kept_output |= s >= 0 && recyclable_[size_t(s)] && frame[size_t(s)].is_tensor();
  }
  // The plan's types, copied only where some are known from the values alone.
  std::span<const DataType> out_types = step.output_types;
  std::vector<DataType> inferred_types;
  bool unknown = false;
  for (DataType dt : out_types) unknown |= dt == DataType::kUndefined && !step.fused;
  if (unknown) {
    // Types unknown before the run (e.g. untyped subgraph inputs): infer from the values.
    std::vector<ir::TypeInfo> actual;
    for (const Value* v : in_ptrs.span()) actual.push_back(v ? type_of_value(*v) : ir::TypeInfo());
    auto inferred = ops::infer_output_types(*step.node, model_.opset(step.node->domain), actual);
    inferred_types = step.output_types;
    for (size_t k = 0; k < inferred_types.size() && k < inferred.size(); ++k)
      if (inferred_types[k] == DataType::kUndefined && inferred[k].is_tensor())
        inferred_types[k] = inferred[k].elem_type;
    out_types = inferred_types;
  }
  const ep::ExecutionProvider* provider = providers_[size_t(step.provider)].get();
  ep::Stream* stream = state.streams ? state.streams->stream_of(provider) : nullptr;
  // The scope lookup goes in as a reference (a std::function copy of it
  // would allocate).
  ep::KernelContext ctx(
      *step.node, in_ptrs.span(), out_ptrs.span(), out_types,
      stream ? state.streams->allocator(step.allocator) : step.allocator, state.pool,
      lookup ? ValueLookup([&lookup](const std::string& name) { return lookup(name); })
             : ValueLookup(),
      kept_output ? nullptr : &step.donatable);
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
