// A GraphPlan is one graph made ready to run: value types inferred, nodes
// partitioned across providers, kernels created, value slots and lifetimes
// computed. Nested graphs (If/Loop/Scan bodies) get their own GraphPlan and
// run through the SubgraphRunner interface. run() keeps all state in a
// per-call frame, so plans are shared by concurrent runs.
#pragma once
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/phase_timing.hpp"
#include "core/thread_pool.hpp"
#include "core/value.hpp"
#include "ep/execution_provider.hpp"
#include "ep/kernel.hpp"
#include "ep/partitioner.hpp"
#include "ep/subgraph_iterations.hpp"
#include "ir/graph.hpp"
#include "runtime/run_streams.hpp"

namespace tessera::optimizer {
class ShapeInferrer;
}

namespace tessera::runtime {

using Providers = std::vector<std::shared_ptr<ep::ExecutionProvider>>;
using ValueLookup = std::function<const Value*(const std::string&)>;
// The allocator a session gives each provider's kernels (its arena, usually).
using AllocatorFor = std::function<std::shared_ptr<Allocator>(const ep::ExecutionProvider&)>;
// Called while the plan is built, once per initializer (of this graph, not
// overridable, no graph output, read by no subgraph) whose readers have all
// been created and took what they need of it at creation
// (ep::OpKernel::reads_constant_data false): the owner may give
// its memory back at once, so weights and their packed forms are never all
// resident together.
using InitializerReleaser = std::function<void(const std::string& name)>;

// Makes (or shares) the copy of a host initializer in another memory space;
// `make` does the copy. Null: every plan makes its own.
using ConstantPlacer = std::function<Tensor(const Tensor& host, const MemoryInfo& dst,
                                            const std::function<Tensor()>& make)>;

// Host constants of enclosing graphs by name (their non-overridable
// initializers): a nested graph's plan treats the ones its body reads as
// constants, so its kernels prepack them as they would in straight-line code.
using OuterConstants = std::unordered_map<std::string, const Tensor*>;

// Per-node timing hook (the profiler); may be null.
using NodeObserver = std::function<void(const ir::Node&, const std::string& provider,
                                        int64_t start_ns, int64_t end_ns)>;

struct RunState {
  ThreadPool* pool = nullptr;        // intra-op: parallelism inside kernels
  ThreadPool* inter_pool = nullptr;  // inter-op: independent nodes at once (parallel mode)
  const std::atomic<bool>* terminate = nullptr;
  const NodeObserver* observer = nullptr;
  // With an observer: each node waits for its provider's stream before its
  // end time is taken, so an asynchronous provider's times are device
  // times, not the time to queue the work (session.profile_device_time).
  bool observe_device_time = false;
  // false: graph outputs are left in the memory their producer wrote them to
  // (IO binding); true: they are copied to host memory.
  bool host_outputs = true;
  // Tensors the nodes producing graph outputs write into when they fit (by
  // output position; none: allocate). IO binding's preallocated outputs.
  const std::vector<Value>* preset_outputs = nullptr;
  // RunOptions::config_entries, which kernels may read (e.g. a caller's stream).
  const std::map<std::string, std::string>* run_config = nullptr;
  // The run's streams of asynchronous providers and their run-scoped
  // allocators (null: every provider is synchronous).
  RunStreams* streams = nullptr;
};

class GraphPlan : public ep::SubgraphRunner, public ep::IteratedSubgraphRunner {
 public:
  // `outer_types` are the types of values visible from enclosing graphs.
  GraphPlan(const ir::Model& model, const ir::Graph& graph, const Providers& providers,
            const std::unordered_map<std::string, ir::TypeInfo>& outer_types, std::string where,
            AllocatorFor alloc_for = nullptr, std::vector<ep::PlacementRule> rules = {},
            ConstantPlacer placer = nullptr, ep::PrepackCache* prepack = nullptr,
            InitializerReleaser release = nullptr,
            const std::map<std::string, std::string>* config = nullptr,
            OuterConstants outer_constants = {});

  // Runs with values for the graph inputs (by position in `input_names()`;
  // a none Value means "not fed": the initializer of that name is used).
  // With `iterations` (from start_iterations()), the tensors of the values
  // the previous run released are written into again where type and shape
  // still fit, and this run's are kept for the next.
  std::vector<Value> execute(std::vector<Value> inputs, const ValueLookup& outer,
                             const RunState& state,
                             ep::SubgraphIterations* iterations = nullptr) const;

  // SubgraphRunner: called by control-flow kernels.
  const std::vector<std::string>& input_names() const override { return input_names_; }
  const std::vector<std::string>& output_names() const override { return output_names_; }
  std::vector<Value> run(const ep::KernelContext& caller, std::vector<Value> inputs) const override;
  std::unique_ptr<ep::SubgraphIterations> start_iterations() const override;
  std::vector<Value> run_iteration(const ep::KernelContext& caller, std::vector<Value> inputs,
                                   ep::SubgraphIterations& iterations) const override;

  const ir::Graph& graph() const { return graph_; }
  const ep::PartitionResult& partition() const { return partition_; }
  const Providers& providers() const { return providers_; }
  // Plans of the nested graphs (If/Loop/Scan bodies), in node order.
  const std::vector<std::unique_ptr<GraphPlan>>& subplans() const { return subplans_; }
  const std::unordered_map<std::string, ir::TypeInfo>& value_types() const { return types_; }
  // Copies inserted where a value crosses memory spaces (value, from, to).
  struct CopyInfo {
    std::string value;
    MemoryInfo from, to;
    bool at_creation;  // an initializer copied once, not per run
  };
  const std::vector<CopyInfo>& copies() const { return copies_; }
  // Where building this plan spent its time: type inference, partition, kernel
  // creation and weight prepacking, memory planning (slots and lifetimes).
  const std::vector<PhaseTiming>& timings() const { return timings_; }
  // The provider (index) of the first node that reads graph input i, or -1.
  int first_consumer(size_t input) const { return first_consumer_[input]; }
  // The provider (index) of the node that writes graph output i, or -1 when
  // no node of this graph does (an input or initializer passed through).
  int output_producer(size_t output) const { return output_producer_[output]; }
  // Where graph output i is written, before any copy to host memory.
  const MemoryInfo& output_memory(size_t output) const {
    return slot_memory_[size_t(raw_output_slots_[output])];
  }
  // Why a run of this plan cannot be captured on `provider`'s stream and
  // replayed (RunCapture), or "" when it can: every step must either run on
  // that provider or be a host kernel reading only host values made without
  // the device (shape arithmetic), and no value may cross memory spaces
  // mid-run, except graph inputs coming in and graph outputs going out.
  std::string capture_blocker(const ep::ExecutionProvider& provider) const;
  // Replays the allocations a run makes for values of static shape on host
  // arenas, in run order with the plan's releases and views, and
  // frees them again: the arenas then hold (cached, mapped in) the blocks the
  // first run takes. Returns the bytes allocated (plan_warm_up.cpp).
  size_t warm_up_arenas() const;
  // Sets the state used when this plan runs as a subgraph (pool, terminate flag).
  static thread_local const RunState* current_state;

 private:
  struct NodeStep {
    const ir::Node* node = nullptr;              // null for a copy step
    const ep::DataTransfer* transfer = nullptr;  // copy steps only
    bool fused = false;        // a compiled partition: node is the group's synthesized node
    MemoryInfo dst;            // copy steps: where the copy goes
    bool output_only = false;  // a copy of a graph output to host memory, read by no node
    int provider = 0;
    std::unique_ptr<ep::KernelInfo> info;
    std::unique_ptr<ep::OpKernel> kernel;
    std::vector<int> inputs;   // slot per input (-1: omitted)
    std::vector<int> outputs;  // slot per output (-1: omitted)
    std::vector<DataType> output_types;
    std::vector<int> implicit_inputs;  // slots read by the node's subgraphs
    std::vector<int> release;          // slots whose last reader is this node
    std::vector<bool> donatable;       // per input: the kernel may write an output over it
    std::vector<bool> host_outputs;    // per output: written in host memory (empty: none)
    std::shared_ptr<Allocator> allocator;
  };

  // Returns the slot holding `slot`'s value in memory `dst`, adding a copy step
  // (or a one-time initializer copy) the first time it is needed.
  int place(int slot, const MemoryInfo& dst, const std::shared_ptr<Allocator>& dst_alloc);
  void add_node_step(size_t node, const ep::GraphView& view,
                     const std::unordered_map<std::string, ir::TypeInfo>& outer_types);
  std::vector<std::unique_ptr<ep::OpKernel>> compile_fused_groups(const ep::GraphView& view);
  // The constants a nested graph reads from this scope or an enclosing one.
  OuterConstants constants_for_subgraph(const ir::Graph& body) const;
  void add_fused_step(size_t group, std::unique_ptr<ep::OpKernel> kernel);
  void wire_values(NodeStep& step, const ir::Node& node, std::vector<ir::TypeInfo>& in_types,
                   std::vector<ir::TypeInfo>& out_types, std::vector<const Tensor*>& constants,
                   const std::vector<int>& host_inputs, const std::vector<int>& host_outputs);
  const ep::DataTransfer* find_transfer(const MemoryInfo& src, const MemoryInfo& dst) const;
  void run_copy(const NodeStep& step, std::vector<Value>& frame, const RunState& state) const;
  // A host copy of a graph input fed in device memory, for host kernels that read it.
  Value input_to_host(size_t i, Value v) const;
  // Runs one step (kernel or copy) with its inputs from `frame`.
  void run_step(const NodeStep& step, std::vector<Value>& frame, const ValueLookup& lookup,
                const RunState& state) const;
  // Iterations: the kept tensors moved into their slots before a run, and a
  // released value's tensor kept (plan_iterations.cpp).
  void reuse_kept(ep::SubgraphIterations* iterations, std::vector<Value>& frame) const;
  void keep_released(ep::SubgraphIterations* iterations, int slot, Value& value) const;
  void execute_parallel(std::vector<Value>& frame, const ValueLookup& lookup,
                        const RunState& state) const;
  void infer_types(const std::unordered_map<std::string, ir::TypeInfo>& outer_types);
  // The construction's stages, in order (the last three in plan_memory.cpp).
  void plan_slots();
  void create_steps(const ep::GraphView& view,
                    const std::unordered_map<std::string, ir::TypeInfo>& outer_types,
                    const InitializerReleaser& release);
  void note_input_readers();
  void place_outputs();
  void plan_memory();
  std::vector<int> plan_dependencies(const std::unordered_set<int>& kept);
  void plan_donations(const std::unordered_set<int>& kept, const std::vector<int>& last_reader,
                      const std::vector<int>& producer);
  int slot_of(const std::string& name);
  // Bytes of the slot's value when its type has a static shape, else 0.
  size_t static_bytes(int slot, const optimizer::ShapeInferrer& shapes) const;
  void check_input(const std::string& name, const ir::TypeInfo& declared, const Value& v) const;

  const ir::Model& model_;
  const ir::Graph& graph_;
  Providers providers_;
  std::string where_;
  AllocatorFor alloc_for_;
  std::vector<ep::PlacementRule> rules_;
  // The session's configuration entries, for the providers' claims (read
  // while the plan is made).
  const std::map<std::string, std::string>* config_ = nullptr;
  std::unordered_map<std::string, ir::TypeInfo> types_;
  std::vector<PhaseTiming> timings_;
  ep::PartitionResult partition_;
  std::unordered_map<std::string, int> slots_;
  std::vector<std::string> slot_names_;
  std::vector<std::string> outer_names_;  // slot -> outer name, for slots read from outside
  std::vector<int> outer_slots_;
  std::vector<std::pair<int, const Tensor*>> initializer_slots_;
  std::vector<std::pair<int, Value>> sparse_constants_;  // sparse initializers, by slot
  OuterConstants outer_constants_;  // constants of enclosing graphs this graph may read
  std::vector<std::string> input_names_, output_names_;
  std::vector<int> input_slots_, output_slots_;
  std::vector<int> raw_output_slots_;     // output slots before the copy to host memory
  std::vector<bool> input_read_on_host_;  // graph input i is read directly by a host kernel
  std::vector<int> input_of_slot_;        // slot -> graph input position (-1: not an input)
  std::vector<bool> output_from_kernel_;  // graph output i is written by a node of this graph
  std::vector<int> output_producer_;      // graph output i: its producer's provider (-1: none)
  std::vector<int> first_consumer_;
  ConstantPlacer placer_;
  ep::PrepackCache* prepack_;  // shared prepacked weights (null: each kernel packs its own)
  std::vector<const ir::ValueInfo*> input_infos_;
  std::vector<NodeStep> steps_;
  std::vector<MemoryInfo> slot_memory_;          // where each slot's value lives
  std::vector<const Tensor*> slot_constant_;     // initializer tensors, by slot (else null)
  std::unordered_map<std::string, int> placed_;  // "slot@memory" -> slot
  std::vector<std::unique_ptr<Tensor>> placed_constants_;
  std::vector<CopyInfo> copies_;
  // For the parallel executor: step dependencies and readers per slot.
  std::vector<std::vector<int>> successors_;
  std::vector<int> num_predecessors_;
  std::vector<int> slot_readers_;  // reader steps per slot (0 for kept slots: never released)
  std::vector<std::vector<int>> step_reads_;  // distinct slots each step reads
  // Per slot: written by a kernel of this plan and handed out by none (no
  // graph output), so its tensor may be kept for the next iteration.
  std::vector<bool> recyclable_;
  std::vector<std::unique_ptr<GraphPlan>> subplans_;
  // Values subgraphs read by name whose host copy lives in another slot.
  std::unordered_map<std::string, int> scope_slots_;
  std::deque<ir::Node> fused_nodes_;  // stable addresses: kernels keep references
  std::unordered_map<size_t, const ir::Node*> fused_node_of_group_;
};

}  // namespace tessera::runtime
