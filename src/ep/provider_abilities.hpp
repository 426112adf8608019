// Optional abilities of providers and factories. Per DESIGN.md they are asked
// for explicitly (dynamic_cast), not added to the ExecutionProvider base.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/phase_timing.hpp"
#include "ep/execution_provider.hpp"
#include "optimizer/level.hpp"

namespace tessera::ep {

// One fused group handed to compile(): its nodes (indices into the graph, in
// topological order) and a synthesized node standing for the whole group. The
// node's inputs and outputs are the values crossing the group's boundary, so
// the compiled kernel runs with an ordinary KernelContext over it.
// The domain of a fused group's node.
inline constexpr const char* kFusedGroupDomain = "tessera.fused";

struct FusedGroup {
  std::vector<size_t> nodes;
  // domain kFusedGroupDomain, op_type: the provider's name; doc_string: the
  // group's op types joined by '+' ("Conv+Relu"), which profiles show.
  ir::Node node;
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

// A provider whose kernels queue their work on a device stream and return
// before it is done. The executor asks run_stream() once per run (with the
// run's configuration entries; null: none), hands the stream to the
// provider's kernels (KernelContext::stream()), queues copies into and out
// of the provider's memory on it, and synchronizes it before the run
// returns; memory the run frees stays the run's until then
// (runtime/run_streams.hpp), so kernels need not wait. A null stream means
// this run is synchronous after all.
class RunStreamProvider {
 public:
  virtual ~RunStreamProvider() = default;
  virtual std::unique_ptr<Stream> run_stream(
      const std::map<std::string, std::string>* run_config) const = 0;
};

// The work of one run, recorded on a provider's stream instead of run
// (CUDA graphs), to be queued again as a whole.
class CapturedRun {
 public:
  virtual ~CapturedRun() = default;
  // Queues the recorded work on `stream` (a run_stream() of the provider
  // that captured it). It reads and writes the same memory as when recorded.
  virtual void replay(Stream& stream) const = 0;
};

// A RunStreamProvider that can record whole runs and replay them. When
// capture_runs() says the user asked for it (the CUDA provider's
// enable_cuda_graph), the session does so where its plan allows
// (runtime/run_capture.hpp).
class RunCapturer {
 public:
  virtual ~RunCapturer() = default;
  virtual bool capture_runs() const = 0;
  // Starts recording the work queued on `stream` (from run_stream()): from
  // now until end_capture() it is recorded, not run, and waiting for the
  // stream is an error.
  virtual void begin_capture(Stream& stream) const = 0;
  // Stops recording and returns the recorded work; throws when the capture
  // failed (the recording is then discarded and the stream usable again).
  virtual std::unique_ptr<CapturedRun> end_capture(Stream& stream) const = 0;
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

namespace tessera::ep {

// What a provider's graph transform is told about the session.
struct TransformOptions {
  GraphOptimizationLevel level = GraphOptimizationLevel::kAll;
  // The session's configuration entries ("session.disable_nchwc", ...),
  // already checked by the session; null: none.
  const std::map<std::string, std::string>* config = nullptr;
};

// A provider that rewrites the nodes assigned to it, after partitioning, into
// its own forms (layouts, fused ops of its own domain). The runtime hands it
// exactly those nodes as a model of their own: values made by other
// providers' nodes are its graph inputs, values read by them or by the
// caller are its graph outputs, which the transform must keep producing
// under their names. So a provider's code generation never runs on another
// provider's nodes, whatever the provider list. The nodes that come back are
// that provider's (ir::Node::provider). Returns how many nodes changed; with
// `timings`, each step's time is added under its name.
class GraphTransformer {
 public:
  virtual ~GraphTransformer() = default;
  virtual size_t transform(ir::Model& part, const TransformOptions& options,
                           std::vector<PhaseTiming>* timings) const = 0;
};

}  // namespace tessera::ep
