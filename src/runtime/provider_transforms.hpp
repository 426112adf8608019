// The provider-transform stage of the pipeline: after the provider-independent
// optimizer, the graph is partitioned once, and each provider that can
// (ep::GraphTransformer) rewrites the nodes assigned to it, handed to it as a
// model of their own (a part). The plan then partitions the result; the
// transformed nodes are pinned to their provider (PlacementRule::kTransformed
// rules, which this stage returns), so they stay where their transform put
// them.
#pragma once
#include <string>
#include <vector>

#include "core/phase_timing.hpp"
#include "ep/partitioner.hpp"
#include "ep/provider_abilities.hpp"
#include "ir/graph.hpp"
#include "ops/graph_types.hpp"

namespace tessera::runtime {

using Providers = std::vector<std::shared_ptr<ep::ExecutionProvider>>;

// Partitions the top-level graph of `model` (under the user's `rules`) and
// runs each transforming provider on its part, in priority order. Returns the
// rules pinning every transformed node to its provider, for the plan's
// partition. When no provider can run some node, nothing is transformed (the
// plan's own partition reports that node).
std::vector<ep::PlacementRule> apply_provider_transforms(
    ir::Model& model, const Providers& providers, const std::vector<ep::PlacementRule>& rules,
    const ep::TransformOptions& options, std::vector<PhaseTiming>* timings = nullptr);

// The nodes `nodes` (indices into model.graph.nodes, ascending) as a model of
// their own: values they read that other nodes make (or the caller feeds)
// are its inputs, the initializers they read are its initializers (an
// overridable one stays an input too), and values they make that other nodes,
// subgraphs or the caller read are its outputs. `types` (may be null) gives
// element types where the graph declares none.
ir::Model extract_part(const ir::Model& model, const std::vector<size_t>& nodes,
                       const ops::ValueTypes* types = nullptr);

// Puts `part` (made by extract_part from the same `nodes`, then transformed)
// back in their place: value names it made that clash with the rest of the
// graph are renamed, its nodes get names unique in the graph, new
// initializers, value infos and opset imports are added, and initializers
// nothing reads any more are dropped. The graph is left in topological
// order. Returns the names of the part's nodes.
std::vector<std::string> splice_part(ir::Model& model, const std::vector<size_t>& nodes,
                                     ir::Model part);

}  // namespace tessera::runtime
