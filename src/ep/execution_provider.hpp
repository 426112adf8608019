// The provider contract. A provider names itself, says where its memory
// lives, and answers get_capability() with groups of nodes it will run; the
// partitioner (not the provider) decides the final assignment.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/allocator.hpp"
#include "core/device.hpp"
#include "ep/data_transfer.hpp"
#include "ep/kernel_registry.hpp"
#include "ir/graph.hpp"

namespace tessera::ep {

using ProviderOptions = std::map<std::string, std::string>;

// Read-only view of one graph for capability queries: the nodes not yet
// claimed by an earlier provider, and the static type of every value.
struct GraphView {
  const ir::Model* model = nullptr;
  const ir::Graph* graph = nullptr;
  const std::unordered_map<std::string, ir::TypeInfo>* value_types = nullptr;
  std::vector<size_t> candidates;  // indices into graph->nodes
  // The session's configuration entries (SessionOptions::config_entries,
  // already checked by the session), for claims that depend on them; null:
  // none given, every entry at its default.
  const std::map<std::string, std::string>* config = nullptr;

  const ir::TypeInfo* type_of(const std::string& value) const;
  // Element types of a node's inputs (kUndefined for omitted or non-tensor inputs).
  std::vector<DataType> input_types(const ir::Node& node) const;
  int64_t opset(const ir::Node& node) const { return model->opset(node.domain); }
};

// Nodes a provider claims together. fused=false: each node binds to one of the
// provider's kernels. fused=true: the group is compiled into one callable.
struct NodeGroup {
  std::vector<size_t> nodes;
  bool fused = false;
};

// Why a provider declined a node, for the partition report.
struct Decline {
  size_t node = 0;
  std::string reason;
};

struct Capability {
  std::vector<NodeGroup> groups;
  std::vector<Decline> declined;
};

class ExecutionProvider {
 public:
  virtual ~ExecutionProvider() = default;
  virtual const std::string& name() const = 0;
  virtual const MemoryInfo& memory_info() const = 0;
  virtual std::shared_ptr<Allocator> allocator() const = 0;
  virtual const KernelRegistry& kernel_registry() const = 0;
  // Default: one single-node group per candidate that the registry has a kernel for.
  virtual Capability get_capability(const GraphView& view) const;
  // Copies into and out of this provider's memory; null for host memory.
  virtual const DataTransfer* data_transfer() const { return nullptr; }
  // A new stream for asynchronous copies and work on this provider's device;
  // null when the provider is synchronous (then copies complete on return).
  virtual std::unique_ptr<Stream> create_stream() const { return nullptr; }
  const ProviderOptions& options() const { return options_; }
  // Kernels the session adds to this provider's own (the custom ops an
  // application registers): lookup_kernel() finds them first.
  void set_session_kernels(std::shared_ptr<const KernelRegistry> kernels) {
    session_kernels_ = std::move(kernels);
  }
  const KernelRegistry* session_kernels() const { return session_kernels_.get(); }
  // The options in effect: those given plus each default left out (what
  // onnxruntime's get_provider_options reports).
  virtual ProviderOptions effective_options() const { return options_; }

 protected:
  ProviderOptions options_;

 private:
  std::shared_ptr<const KernelRegistry> session_kernels_;
};

// Looks a node up in a registry with its input types from the view.
KernelRegistry::Match lookup_kernel(const KernelRegistry& registry, const GraphView& view,
                                    const ir::Node& node);
// Looks a node up in the provider's session kernels, then its registry. When
// neither has the op and no kernel of the node's domain exists, the reason
// says so (a custom-op domain the session was not given).
KernelRegistry::Match lookup_kernel(const ExecutionProvider& provider, const GraphView& view,
                                    const ir::Node& node);

class ProviderFactory {
 public:
  virtual ~ProviderFactory() = default;
  virtual const std::string& name() const = 0;
  // Whether the provider can be created on this machine; `why_not` explains when not.
  virtual bool is_available(std::string* why_not) const = 0;
  // Validates options (unknown keys and bad values list the valid ones) and creates.
  virtual std::shared_ptr<ExecutionProvider> create(const ProviderOptions& options) const = 0;
  // The hardware devices this factory's providers run on. The default creates
  // a provider with default options and reports the device of its memory, so
  // a factory that serves one device need not override it; none when the
  // provider is unavailable or cannot be created with default options.
  virtual std::vector<HardwareDevice> devices() const;
};

// Throws kInvalidArgument naming the unknown key and listing the valid keys.
void check_option_keys(const std::string& provider, const ProviderOptions& options,
                       const std::vector<std::string>& valid);

}  // namespace tessera::ep
