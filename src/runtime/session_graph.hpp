// The stages of session creation before the plan: the provider list made
// and its providers created, the caller's initializers and dimension
// overrides applied, and the graph made ready for partitioning (function
// expansions, the provider-independent optimizer, the providers' transforms).
#pragma once
#include <string>
#include <vector>

#include "core/phase_timing.hpp"
#include "ep/partitioner.hpp"
#include "ir/graph.hpp"
#include "onnx/external_data.hpp"
#include "runtime/graph_plan.hpp"
#include "runtime/session.hpp"

namespace tessera::runtime {

// A "0"/"1" session config flag; `absent` when it is not set. Any other
// value is an error naming the key, not a silent default.
bool config_flag(const SessionOptions& o, const std::string& key, bool absent);
// A session config entry that is a count from `lo` to `hi`; `absent` when
// it is not set. Anything else is an error naming the key and the range.
int config_count(const SessionOptions& o, const std::string& key, int absent, int lo, int hi);

// The providers a session asks for: `given`, or those the selection policy
// picks (their names added to `requested`), then the environment's own.
std::vector<ProviderSpec> provider_specs(const std::vector<ProviderSpec>& given,
                                         const SessionOptions& o, const std::string& where,
                                         std::vector<std::string>& requested);
// Creates them in order, with the CPU provider last unless listed or
// disabled; an unknown name or option is an error naming it.
Providers create_providers(const std::vector<ProviderSpec>& specs, const SessionOptions& options);

// The allocator each provider's kernels get: the environment's shared one
// for its memory (unless "session.use_env_allocators" is "0"), else its own,
// behind an arena when the options ask for one and it brings none.
std::vector<std::pair<std::string, std::shared_ptr<Allocator>>> provider_allocators(
    const Providers& providers, const SessionOptions& options);

// What the options hand the model loader in place of external data: the
// caller's initializers and in-memory data files (pointers into `o`, which
// must outlive the load).
onnx::SuppliedExternalData supplied_external_data(const SessionOptions& o);
// SessionOptions::initializers in place of the model's tensors of those names.
void apply_user_initializers(ir::Model& model, const SessionOptions& o, const Providers& providers,
                             const std::string& where);
// SessionOptions::free_dimension_overrides on the graph inputs' symbolic dims.
void apply_free_dimension_overrides(ir::Graph& g, const SessionOptions& o);

// Expands ops without kernels into their bodies (recorded in `expanded`),
// runs the optimizer at the session's level, then the providers' transforms
// on their parts. Returns the placement rules for the plan's partition: the
// user's, then the pins of transformed nodes.
std::vector<ep::PlacementRule> prepare_graph(ir::Model& model, const Providers& providers,
                                             const SessionOptions& options,
                                             const std::string& where,
                                             std::vector<ExpandedOp>& expanded,
                                             std::vector<PhaseTiming>* phases);

}  // namespace tessera::runtime
