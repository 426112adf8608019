// The memory plan of a GraphPlan, made once its steps exist: when each slot
// is released, which steps wait for which (the parallel executor), and which
// inputs a kernel may take over as an output's memory.
#include <algorithm>
#include <unordered_set>

#include "runtime/graph_plan.hpp"

namespace tessera::runtime {

void GraphPlan::plan_memory() {
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

  const std::vector<int> producer = plan_dependencies(kept);
  plan_donations(kept, last_reader, producer);
  // Values an iteration may hand to the next (plan_iterations.cpp): written
  // by a kernel of this plan, handed out by none, and in host memory, where
  // a kernel's work is done when it returns (a device tensor may still be
  // read by queued work, which the run's stream allocators account for).
  recyclable_.assign(slot_names_.size(), false);
  for (size_t s = 0; s < slot_names_.size(); ++s)
    recyclable_[s] = producer[s] >= 0 && steps_[size_t(producer[s])].node != nullptr &&
                     !steps_[size_t(producer[s])].fused && !kept.count(int(s)) &&
                     slot_memory_[s].host_accessible();
}

// Dependencies between steps, for running independent nodes at once; returns
// the step producing each slot (-1: none).
std::vector<int> GraphPlan::plan_dependencies(const std::unordered_set<int>& kept) {
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
  return producer;
}

// Inputs a kernel may take over as an output's memory: values made by a
// step of this plan, kept by no one, read once by this step as their last
// reader, every other reader being an ancestor of this step (so it is done
// however the parallel executor schedules the steps).
void GraphPlan::plan_donations(const std::unordered_set<int>& kept,
                               const std::vector<int>& last_reader,
                               const std::vector<int>& producer) {
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
}

}  // namespace tessera::runtime
