// Optional abilities of providers and factories. Per DESIGN.md they are asked
// for explicitly (dynamic_cast), not added to the ExecutionProvider base.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ep/execution_provider.hpp"

namespace tessera::ep {

// One fused group handed to compile(): its nodes (indices into the graph, in
// topological order) and a synthesized node standing for the whole group. The
// node's inputs and outputs are the values crossing the group's boundary, so
// the compiled kernel runs with an ordinary KernelContext over it.
struct FusedGroup {
  std::vector<size_t> nodes;
  ir::Node node;  // domain "tessera.fused", op_type: the provider's name
};

// A provider that claims fused groups (NodeGroup::fused) also derives from
// this: compile() returns one kernel per group, in the order given, and the
// executor runs each as a single step.
class FusedCompiler {
 public:
  virtual ~FusedCompiler() = default;
  virtual std::vector<std::unique_ptr<OpKernel>> compile(
      const GraphView& view, const std::vector<FusedGroup>& groups) const = 0;
};

// A factory that can say what it looked for, for `tessera doctor`: the
// libraries, the paths tried, the versions found and required, one line each.
class FactoryDiagnostics {
 public:
  virtual ~FactoryDiagnostics() = default;
  virtual std::vector<std::string> diagnostics() const = 0;
};

// A factory that can list its kernels without creating a provider, so
// `tessera ops` documents a provider built for a device this machine lacks
// (the CUDA provider on a build machine without a GPU).
class KernelCatalog {
 public:
  virtual ~KernelCatalog() = default;
  virtual const KernelRegistry& kernel_catalog() const = 0;
};

}  // namespace tessera::ep
