// A body run repeatedly by a Loop or Scan kernel keeps the tensors of the
// values one iteration released and hands them to the next iteration's
// kernels as their outputs (KernelContext::output writes into a tensor
// already in the slot when its type, shape and memory fit). While shapes
// repeat, a value that stays inside the body (no body output) then costs no
// arena round trip, buffer bookkeeping or shape copy per iteration; a value
// whose shape changed gets a fresh tensor as it would without the kept one.
#include "runtime/graph_plan.hpp"

namespace tessera::runtime {

namespace {

// Bytes one series of iterations may keep: the values of an RNN cell or a
// decoder step, not whole activations of a large body, which the arena's
// reuse within the iteration serves better.
constexpr size_t kKeptBytesLimit = size_t(64) << 20;

struct KeptValues : ep::SubgraphIterations {
  std::vector<Value> by_slot;  // a tensor released by the previous iteration, by slot
  size_t bytes = 0;
};

// Only a tensor nothing else holds may be written again: not a view sharing
// another value's buffer, not a value handed to the caller.
bool sole_owner(const Value& v) {
  return v.is_tensor() && v.tensor().buffer() && v.tensor().buffer().use_count() == 1;
}

}  // namespace

std::unique_ptr<ep::SubgraphIterations> GraphPlan::start_iterations() const {
  auto kept = std::make_unique<KeptValues>();
  kept->by_slot.resize(slot_names_.size());
  return kept;
}

std::vector<Value> GraphPlan::run_iteration(const ep::KernelContext& caller,
                                            std::vector<Value> inputs,
                                            ep::SubgraphIterations& iterations) const {
  static const RunState fallback;
  RunState state = current_state ? *current_state : fallback;
  state.host_outputs = true;  // the control-flow kernel reading them runs on the host
  state.preset_outputs = nullptr;
  ValueLookup outer = [&caller](const std::string& name) { return caller.outer_scope(name); };
  return execute(std::move(inputs), outer, state, &iterations);
}

void GraphPlan::reuse_kept(ep::SubgraphIterations* iterations, std::vector<Value>& frame) const {
  if (!iterations) return;
  auto* kept = dynamic_cast<KeptValues*>(iterations);
  check(kept && kept->by_slot.size() == slot_names_.size(), where_,
        ": iteration state made by another graph's plan passed to this one");
  for (size_t s = 0; s < kept->by_slot.size(); ++s) {
    Value& v = kept->by_slot[s];
    if (v.is_none()) continue;
    if (sole_owner(v)) frame[s] = std::move(v);
    v = Value();
  }
  kept->bytes = 0;
}

void GraphPlan::keep_released(ep::SubgraphIterations* iterations, int slot, Value& value) const {
  auto* kept = static_cast<KeptValues*>(iterations);
  if (!kept || !recyclable_[size_t(slot)] || !sole_owner(value)) return;
  const size_t bytes = value.tensor().buffer()->size();
  if (kept->bytes + bytes > kKeptBytesLimit) return;
  kept->bytes += bytes;
  kept->by_slot[size_t(slot)] = std::move(value);
}

}  // namespace tessera::runtime
