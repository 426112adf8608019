// Filling the host arenas a plan's runs will use before the first run.
//
// Why: a session's first run takes every activation buffer from its arena,
// which is empty, so each one is new memory whose pages are mapped in as the
// run reaches them (on this project's VM, 0.6-1.8 ms per MiB even populated
// in one call, against 0.05 ms to write a MiB already mapped): a DB-style OCR
// detector's first run paid 80 ms for 80 MiB on top of a 75 ms steady state.
// Replaying the run's allocations at session creation makes the arena hold
// the same blocks the first run would have left it, so the run finds them
// cached and mapped; the memory is the memory that run would have taken.
#include <unordered_map>

#include "ep/view_kernels.hpp"
#include "optimizer/shape_inference.hpp"
#include "runtime/graph_plan.hpp"

namespace tessera::runtime {

namespace {

// Ops whose output is a view of input 0's buffer (ep/view_kernels.cpp): they
// allocate nothing.
const std::unordered_set<std::string>& view_ops() {
  static const std::unordered_set<std::string> ops = [] {
    std::unordered_set<std::string> s;
    for (const auto& e : ep::view_kernels(false))
      if (e.def.domain.empty() && e.def.op_type != "Shape" && e.def.op_type != "Size")
        s.insert(e.def.op_type);
    return s;
  }();
  return ops;
}

}  // namespace

size_t GraphPlan::static_bytes(int slot, const optimizer::ShapeInferrer& shapes) const {
  if (slot < 0) return 0;
  const std::string& name = slot_names_[size_t(slot)];
  auto t = types_.find(name);
  if (t == types_.end() || !t->second.is_tensor()) return 0;
  const DataType dt = t->second.elem_type;
  if (dt == DataType::kUndefined || dt == DataType::kString) return 0;
  const optimizer::ShapeInferrer::Dims* dims = shapes.dims(name);
  if (!dims) return 0;
  size_t n = 1;
  for (int64_t d : *dims) {
    if (d < 0) return 0;
    n *= size_t(d);
  }
  return data_type_storage_bytes(dt, n);
}

size_t GraphPlan::warm_up_arenas() const {
  // One simulated buffer: its allocator and how many live slots share it.
  struct Block {
    Allocator* alloc;
    void* p;
    size_t bytes;
    int refs;
  };
  std::vector<Block> blocks;
  std::vector<int> block_of(slot_names_.size(), -1);
  size_t total = 0;
  // Static shapes follow from the graph inputs' declared ones (when every
  // dim is a number) and the constants, node by node in run order; a value
  // of any other shape (dynamic, or an op without a rule) is left out.
  optimizer::ShapeInferrer shapes(model_, graph_);
  auto drop = [&](int slot) {
    const int b = slot >= 0 ? block_of[size_t(slot)] : -1;
    if (b < 0) return;
    block_of[size_t(slot)] = -1;
    if (--blocks[size_t(b)].refs == 0) blocks[size_t(b)].alloc->free(blocks[size_t(b)].p);
  };
  // The block of the input a step's kernel writes output 0 over, or -1.
  auto taken_block = [&](const NodeStep& step, size_t bytes) {
    if (!step.kernel) return -1;
    for (size_t i = 0; i < step.inputs.size() && i < step.donatable.size(); ++i) {
      const int in = step.inputs[i];
      const int b = in >= 0 ? block_of[size_t(in)] : -1;
      if (b >= 0 && step.donatable[i] && step.kernel->writes_over_input(i) &&
          blocks[size_t(b)].refs == 1 && blocks[size_t(b)].bytes == bytes &&
          blocks[size_t(b)].alloc == step.allocator.get())
        return b;
    }
    return -1;
  };
  try {
    for (const auto& step : steps_) {
      // Copies cross memory spaces (device arenas are left alone), and a
      // compiled group or a control-flow node allocates in ways its outputs'
      // types do not tell.
      if (!step.node || step.fused || !step.implicit_inputs.empty()) continue;
      shapes.visit(*step.node);
      Allocator* alloc = step.allocator.get();
      if (!alloc || alloc->info().allocator_type != AllocatorType::kArena ||
          !alloc->info().host_accessible())
        continue;
      const bool view = step.node->domain.empty() && view_ops().count(step.node->op_type);
      for (size_t k = 0; k < step.outputs.size(); ++k) {
        const int s = step.outputs[k];
        if (s < 0 || block_of[size_t(s)] >= 0) continue;
        if (k < step.host_outputs.size() && step.host_outputs[k]) continue;
        if (view) {
          // The output shares input 0's buffer (when that one was simulated).
          const int in = step.inputs.empty() ? -1 : step.inputs[0];
          const int b = in >= 0 ? block_of[size_t(in)] : -1;
          if (b >= 0) {
            block_of[size_t(s)] = b;
            ++blocks[size_t(b)].refs;
          }
          continue;
        }
        const size_t bytes = static_bytes(s, shapes);
        if (bytes == 0) continue;
        // Output 0 written over an input the plan lets the kernel take
        // (donatable) and the kernel says it writes over: the input's block,
        // when that one was simulated, has this size and no other holder.
        const int b = k == 0 ? taken_block(step, bytes) : -1;
        if (b >= 0) {
          block_of[size_t(s)] = b;
          ++blocks[size_t(b)].refs;
          continue;
        }
        void* p = alloc->alloc(bytes);
        block_of[size_t(s)] = int(blocks.size());
        blocks.push_back(Block{alloc, p, bytes, 1});
        total += bytes;
      }
      for (int s : step.release) drop(s);
    }
  } catch (const Error&) {
    // Out of memory or over the arena's limit: the run will say so itself;
    // what was reserved so far is given back below.
  }
  for (size_t s = 0; s < block_of.size(); ++s) drop(int(s));
  return total;
}

}  // namespace tessera::runtime
