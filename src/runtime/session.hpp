// A Session owns one loaded, optimized, partitioned model and runs it. run()
// is const and safe to call from many threads at once.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/phase_timing.hpp"
#include "core/value.hpp"
#include "ir/graph.hpp"
#include "runtime/session_options.hpp"

namespace tessera {

namespace runtime {
class GraphPlan;
}
namespace ep {
class DataTransfer;
}
class IoBinding;

// Where a graph input is first read: the application can allocate it there.
struct InputLocation {
  std::string input;
  std::string provider;  // of the first node that reads it ("" when no node does)
  MemoryInfo memory;     // that provider's memory
};

// Where a graph output is written by its producer, before the run hands it
// back (in host memory unless the run binds it elsewhere).
struct OutputLocation {
  std::string output;
  std::string provider;  // of the node that writes it ("" when no node does)
  MemoryInfo memory;     // where that node writes it
};

// A graph input or output as users see it.
struct IoInfo {
  std::string name;
  ir::TypeInfo type;  // to_string() gives "tensor(float)"; shape has symbolic dims
};

// Which provider runs a node, for reports.
struct NodeAssignment {
  std::string node_name;
  std::string op_type;
  std::string domain;
  std::string provider;
  std::vector<std::pair<std::string, std::string>> declined;  // (provider, reason)
  std::string override_rule;  // the placement override that constrained the node, if any
  std::string fused_group;    // the fused group it is compiled into ("<provider>_fused_<k>"), or ""
  // Set when the node comes from a function body that replaced a node no
  // provider had a kernel for: "Celu (node 'c') via body Celu-15".
  std::string expanded_from;
};

// Nodes replaced by their function body because no provider had a kernel.
struct ExpandedOp {
  std::string node_name, op_type, body;
  int depth = 0;  // 0: a node of the model; 1: a node of another body; ...
  std::vector<std::string> body_nodes;
};

// Where session creation spent its time, phase by phase, in the order they
// ran: "parse", "optimize: <pass>", "partition", "kernel creation and weight
// prepacking", "memory planning", ... The phases sum to at most total_ms (the
// rest is bookkeeping between them).
struct CreationTimings {
  std::vector<PhaseTiming> phases;
  double total_ms = 0;
  std::string to_text() const;
};

// Where every node runs, why, and where data crosses memory spaces.
struct PartitionReport {
  struct Copy {
    std::string value, from, to;
    bool at_creation = false;         // an initializer placed once, not a per-run copy
    bool forced_by_override = false;  // a producer or consumer was placed by an override
  };
  std::vector<std::string> requested, in_use;
  std::vector<NodeAssignment> nodes;
  std::vector<Copy> copies;
  std::vector<ExpandedOp> expanded;  // ops that ran through their function body
  const ir::Graph* graph = nullptr;  // for edges in to_dot()

  std::string to_text() const;  // per-node table and a summary
  std::string to_json() const;
  std::string to_dot() const;  // Graphviz, nodes coloured by provider
};

class Session {
 public:
  // Loads from a file (external data resolved beside it) or from bytes.
  static std::unique_ptr<Session> create(const std::string& model_path,
                                         const SessionOptions& options = {},
                                         const std::vector<ProviderSpec>& providers = {});
  static std::unique_ptr<Session> create_from_bytes(
      const void* data, size_t size, const SessionOptions& options = {},
      const std::vector<ProviderSpec>& providers = {});
  // From an already built model (tests build models in memory).
  static std::unique_ptr<Session> create_from_model(
      ir::Model model, const SessionOptions& options = {},
      const std::vector<ProviderSpec>& providers = {});
  ~Session();

  // Runs with the given feeds; returns outputs in the order of `output_names`
  // (all graph outputs, in graph order, when it is empty).
  std::vector<Value> run(const std::vector<std::pair<std::string, Value>>& feeds,
                         const std::vector<std::string>& output_names = {},
                         const RunOptions& run_options = {}) const;

  // Like run(), but outputs stay in the memory their producer wrote them to
  // (host memory for CPU nodes, device memory for a device's nodes).
  // `preallocated` (by position in output_names; none: allocate) are tensors
  // the producing nodes write into when type, shape and memory fit.
  std::vector<Value> run_on_devices(const std::vector<std::pair<std::string, Value>>& feeds,
                                    const std::vector<std::string>& output_names = {},
                                    const RunOptions& run_options = {},
                                    const std::vector<Value>* preallocated = nullptr) const;
  // Runs with the inputs and outputs bound in `binding` (see io_binding.hpp).
  void run_with_binding(IoBinding& binding, const RunOptions& run_options = {}) const;

  const std::vector<IoInfo>& inputs() const;  // graph inputs the user must feed
  const std::vector<IoInfo>& outputs() const;
  const std::vector<IoInfo>& overridable_initializers() const;
  // Initializers whose memory the session gave back at creation, each as
  // soon as every kernel reading it had packed it (MatMul/Gemm/Conv weights);
  // only their type and shape remain. Config "session.keep_packed_initializers"
  // = "1" keeps them, as does saving an optimized model.
  const std::vector<std::string>& released_initializers() const;
  const ir::Model& model() const;  // the optimized model
  const SessionOptions& options() const;
  std::vector<std::string> providers() const;  // in use, in priority order
  // Each provider in use with its options in effect, defaults included.
  std::map<std::string, std::map<std::string, std::string>> provider_options() const;
  std::vector<std::string> requested_providers() const;
  std::vector<NodeAssignment> node_assignments() const;  // top-level graph, in run order
  PartitionReport partition_report() const;
  const std::vector<ExpandedOp>& expanded_ops() const;
  const CreationTimings& creation_timings() const;
  // Memory statistics of each provider's allocator, by provider name.
  std::vector<std::pair<std::string, AllocatorStats>> allocator_stats() const;
  // Captured runs and why not (RunCaptureInfo).
  RunCaptureInfo run_capture() const;
  // Options a running session takes (onnxruntime's SetEpDynamicOptions):
  // "ep.dynamic.workload_type" = "Efficient" lets the session's own pools
  // sleep between regions instead of polling (less CPU, later wake-ups),
  // "Default" restores the policy it was created with. Unknown keys and
  // values are errors naming them; nothing is changed unless all are valid.
  void set_dynamic_options(const std::map<std::string, std::string>& options);
  // Gives the cached memory of the session's arenas back to the system.
  void release_arena_memory() const;
  // Per input the user feeds, where its first consumer runs.
  std::vector<InputLocation> input_locations() const;
  // Per graph output, where its producer writes it.
  std::vector<OutputLocation> output_locations() const;
  // The allocator the session uses in `memory`'s space; null if no provider
  // of the session allocates there.
  std::shared_ptr<Allocator> allocator_for(const MemoryInfo& memory) const;
  // A transfer that copies src -> dst among the session's providers (host
  // copies included); null if none can.
  const ep::DataTransfer* data_transfer(const MemoryInfo& src, const MemoryInfo& dst) const;
  // Writes the profile (Chrome trace JSON) and returns its path; "" if profiling is off.
  std::string end_profiling();
  // When profiling started (the steady clock's nanoseconds, the trace's time
  // base); 0 when profiling is off.
  int64_t profiling_start_ns() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  // create_from_model, with the phases already timed (parse) and its start.
  static std::unique_ptr<Session> create_timed(ir::Model model, const SessionOptions& options,
                                               const std::vector<ProviderSpec>& providers,
                                               CreationTimings timings, double started_ms);
  // The plan's inputs from the feeds and the run's active adapters, checked.
  std::vector<Value> gather_inputs(const std::vector<std::pair<std::string, Value>>& feeds,
                                   const RunOptions& run_options) const;
  std::vector<Value> run_impl(const std::vector<std::pair<std::string, Value>>& feeds,
                              const std::vector<std::string>& output_names,
                              const RunOptions& run_options, bool host_outputs,
                              const std::vector<Value>* preallocated = nullptr) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera
