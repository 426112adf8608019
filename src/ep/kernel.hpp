// The kernel contract: a kernel is created once per node (from KernelInfo,
// where it parses attributes and may prepack constant weights) and is
// immutable afterwards: compute() is const and keeps all per-run state in the
// KernelContext, so one session serves many threads.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "core/value.hpp"
#include "ep/data_transfer.hpp"
#include "ep/prepack_cache.hpp"
#include "ir/graph.hpp"

namespace tessera::ep {

class KernelContext;

// Runs a nested graph (If/Loop/Scan bodies). Implemented by the runtime;
// outer-scope values are read from the calling node's context.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual const std::vector<std::string>& input_names() const = 0;
  virtual const std::vector<std::string>& output_names() const = 0;
  virtual std::vector<Value> run(const KernelContext& caller, std::vector<Value> inputs) const = 0;
};

class KernelInfo {
 public:
  KernelInfo(const ir::Node& node, int64_t opset, std::vector<ir::TypeInfo> input_types,
             std::vector<ir::TypeInfo> output_types, std::vector<const Tensor*> constant_inputs,
             std::function<const SubgraphRunner*(const std::string&)> subgraphs = nullptr);

  const ir::Node& node() const { return node_; }
  int64_t opset() const { return opset_; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  bool has_output(size_t i) const { return i < node_.outputs.size() && !node_.outputs[i].empty(); }
  // Element type of input/output i (kUndefined when omitted or unknown).
  DataType input_type(size_t i) const;
  DataType output_type(size_t i) const;
  const ir::TypeInfo& input_type_info(size_t i) const;
  const ir::TypeInfo& output_type_info(size_t i) const;
  // An input whose value is fixed for the session (a non-overridable initializer
  // or a Constant), or nullptr.
  const Tensor* constant_input(size_t i) const;
  // A prepacked form of constant input i (which must exist), made by `make`
  // from it. When the session shares initializers, the form is shared with
  // every kernel (of any session of the environment, any provider) asking for
  // the same `kind` and `params` of the same constant; otherwise this kernel
  // gets its own. `kind` names the form ("cpu.sgemm.packed_b"); `params` are
  // whatever else changes the packed bytes (transposition, group count).
  template <typename T>
  std::shared_ptr<const T> prepacked(size_t i, const std::string& kind,
                                     const std::vector<int64_t>& params,
                                     const std::function<T()>& make) const {
    const Tensor* t = constant_input(i);
    if (!t)
      fail_node("internal: prepacked(", i, ", ", kind, ") asked for an input that is not constant");
    if (!prepack_cache_) return std::make_shared<const T>(make());
    return prepack_cache_->get<T>(*t, kind, params, make);
  }
  // The cache prepacked() shares through (the runtime sets it; null: no sharing).
  void set_prepack_cache(PrepackCache* cache) { prepack_cache_ = cache; }
  // The options of the provider whose kernel this is (the runtime sets them;
  // the provider has validated them), and one of them, or null when unset.
  void set_provider_options(const std::map<std::string, std::string>* options) {
    provider_options_ = options;
  }
  const std::string* provider_option(const std::string& key) const {
    if (!provider_options_) return nullptr;
    auto it = provider_options_->find(key);
    return it == provider_options_->end() ? nullptr : &it->second;
  }

  bool has_attr(const std::string& name) const { return node_.attr(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t def) const;
  int64_t attr_int(const std::string& name) const;  // required
  float attr_float(const std::string& name, float def) const;
  float attr_float(const std::string& name) const;  // required
  std::string attr_string(const std::string& name, const std::string& def) const;
  std::string attr_string(const std::string& name) const;  // required
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> def = {}) const;
  std::vector<float> attr_floats(const std::string& name, std::vector<float> def = {}) const;
  std::vector<std::string> attr_strings(const std::string& name,
                                        std::vector<std::string> def = {}) const;
  const Tensor* attr_tensor(const std::string& name) const;  // nullptr if absent
  const ir::Graph* attr_graph(const std::string& name) const;
  // The runtime's runner for a graph attribute; throws if absent.
  const SubgraphRunner& subgraph(const std::string& attr_name) const;

  // Throws kInvalidArgument prefixed with the node's description.
  template <typename... Args>
  [[noreturn]] void fail_node(Args&&... args) const {
    fail(ErrorCode::kInvalidArgument, node_.describe(), ": ", std::forward<Args>(args)...);
  }

 private:
  const ir::Attribute& require(const std::string& name, ir::AttrType type) const;
  const ir::Attribute* find(const std::string& name, ir::AttrType type) const;

  const ir::Node& node_;
  int64_t opset_;
  std::vector<ir::TypeInfo> input_types_, output_types_;
  std::vector<const Tensor*> constant_inputs_;
  std::function<const SubgraphRunner*(const std::string&)> subgraphs_;
  PrepackCache* prepack_cache_ = nullptr;
  const std::map<std::string, std::string>* provider_options_ = nullptr;
};

// Per-run, per-node view of inputs and outputs. Built by the executor.
class KernelContext {
 public:
  // A context that owns its pointer and type vectors (kernels that run an
  // inner kernel, constant folding).
  KernelContext(const ir::Node& node, std::vector<const Value*> inputs, std::vector<Value*> outputs,
                std::vector<DataType> output_types, std::shared_ptr<Allocator> allocator,
                ThreadPool* pool,
                std::function<const Value*(const std::string&)> outer_scope = nullptr,
                const std::vector<bool>* donatable = nullptr)
      : node_(node),
        owned_inputs_(std::move(inputs)),
        owned_outputs_(std::move(outputs)),
        owned_output_types_(std::move(output_types)),
        inputs_(owned_inputs_),
        outputs_(owned_outputs_),
        output_types_(owned_output_types_),
        allocator_(std::move(allocator)),
        pool_(pool),
        outer_scope_(std::move(outer_scope)),
        donatable_(donatable) {}
  // A context over storage the caller keeps alive while it is used: the
  // executor's per-step path, where a heap allocation per vector per step
  // costs a small node more than its arithmetic (loop bodies run their
  // steps once per iteration).
  KernelContext(const ir::Node& node, std::span<const Value* const> inputs,
                std::span<Value* const> outputs, std::span<const DataType> output_types,
                std::shared_ptr<Allocator> allocator, ThreadPool* pool,
                std::function<const Value*(const std::string&)> outer_scope,
                const std::vector<bool>* donatable)
      : node_(node),
        inputs_(inputs),
        outputs_(outputs),
        output_types_(output_types),
        allocator_(std::move(allocator)),
        pool_(pool),
        outer_scope_(std::move(outer_scope)),
        donatable_(donatable) {}
  // The spans may point into the context's own vectors.
  KernelContext(const KernelContext&) = delete;
  KernelContext& operator=(const KernelContext&) = delete;

  const ir::Node& node() const { return node_; }
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  // Value of input i, or nullptr when the optional input is omitted.
  const Value* input_value(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  // Tensor input i, or nullptr when omitted (or when it is an empty optional).
  const Tensor* input(size_t i) const;
  // Tensor input i; throws naming the node when it is absent.
  const Tensor& required_input(size_t i) const;
  // Whether output i exists in the node (non-empty name).
  bool has_output(size_t i) const { return i < outputs_.size() && outputs_[i] != nullptr; }
  // The tensor bound to output i before the kernel runs (IO binding, or a
  // run's preallocated outputs), which output() writes into when type, shape
  // and memory fit; null when nothing is bound.
  const Value* bound_output(size_t i) const {
    return has_output(i) && outputs_[i]->is_tensor() ? outputs_[i] : nullptr;
  }
  // Allocates output i with the given shape, using the inferred output type
  // unless `dtype` is given. Returns a dummy tensor when the output is omitted.
  Tensor& output(size_t i, const Shape& shape, DataType dtype = DataType::kUndefined);
  // Output i written over input `in`'s memory, when the executor lets this
  // node take that input over (the node is its only reader, reads it once,
  // and nothing else holds it: not a graph input, output or initializer) and
  // it is a host tensor of the same element type and byte size in the
  // allocator's memory; otherwise a fresh output, as output() gives. Only for
  // kernels that read each element of `in` before writing the same element
  // of output i, and nothing of `in` after that (an element-wise residual).
  Tensor& output_reusing(size_t i, size_t in, const Shape& shape);
  // Whether output_reusing(i, in, shape) would give input `in`'s memory: for
  // kernels that may write over either of several inputs and pick the one
  // this node may take.
  bool can_reuse(size_t i, size_t in, const Shape& shape) const;
  // Per input, whether this node may take it over (the plan's vector, or
  // null): for a kernel that runs another kernel on its own inputs.
  const std::vector<bool>* donatable() const { return donatable_; }
  // Sets output i to an existing value (sequences, or a zero-copy alias of an input).
  void set_output(size_t i, Value v);
  // Outputs the kernel's def lists as host outputs (KernelDef::host_outputs):
  // output() allocates them in host memory. Set by the runtime.
  void set_host_outputs(const std::vector<bool>* host) { host_outputs_ = host; }
  // The run's configuration entries (RunOptions::config_entries), or null.
  void set_run_config(const std::map<std::string, std::string>* config) { run_config_ = config; }
  // The value of run configuration entry `key`, or null when it is not set.
  const std::string* run_config(const std::string& key) const;
  // The provider's stream for this run (ep::RunStreamProvider), or
  // null: the kernel then finishes its work before compute() returns.
  void set_stream(Stream* stream) { stream_ = stream; }
  Stream* stream() const { return stream_; }
  DataType output_type(size_t i) const {
    return i < output_types_.size() ? output_types_[i] : DataType::kUndefined;
  }
  const std::shared_ptr<Allocator>& allocator() const { return allocator_; }
  ThreadPool& thread_pool() const;
  // Looks up a value by name in the enclosing scopes (for subgraph runners).
  const Value* outer_scope(const std::string& name) const {
    return outer_scope_ ? outer_scope_(name) : nullptr;
  }
  template <typename... Args>
  [[noreturn]] void fail_node(Args&&... args) const {
    fail(ErrorCode::kInvalidArgument, node_.describe(), ": ", std::forward<Args>(args)...);
  }

 private:
  const ir::Node& node_;
  std::vector<const Value*> owned_inputs_;
  std::vector<Value*> owned_outputs_;
  std::vector<DataType> owned_output_types_;
  std::span<const Value* const> inputs_;
  std::span<Value* const> outputs_;
  std::span<const DataType> output_types_;
  std::shared_ptr<Allocator> allocator_;
  ThreadPool* pool_;
  std::function<const Value*(const std::string&)> outer_scope_;
  // Per input: may become an output's memory. The plan's own vector, which
  // outlives the context (null: none may).
  const std::vector<bool>* donatable_;
  const std::vector<bool>* host_outputs_ = nullptr;
  const std::map<std::string, std::string>* run_config_ = nullptr;
  Stream* stream_ = nullptr;
  Value scratch_;  // target for omitted outputs
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual void compute(KernelContext& ctx) const = 0;
  // False when the kernel took everything it needs from constant input i at
  // creation (packed weights, say) and reads only its type and shape at run
  // time. When every reader of an initializer says so, the session gives the
  // initializer's memory back and keeps just its type and shape.
  virtual bool reads_constant_data(size_t i) const {
    (void)i;
    return true;
  }
  // True when the kernel writes output 0 over input i where the plan lets it
  // (KernelContext::output_reusing). The arena warm-up then counts that
  // output in the input's block, as the run will, rather than in a new one.
  virtual bool writes_over_input(size_t i) const {
    (void)i;
    return false;
  }
};

}  // namespace tessera::ep
