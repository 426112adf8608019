#include "runtime/session_graph.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/arena_allocator.hpp"
#include "core/logging.hpp"
#include "ep/provider_abilities.hpp"
#include "ep/provider_registry.hpp"
#include "ops/contrib_bodies.hpp"
#include "optimizer/optimizer.hpp"
#include "runtime/device_selection.hpp"
#include "runtime/environment.hpp"
#include "runtime/function_expansion.hpp"
#include "runtime/provider_transforms.hpp"
#include "runtime/shared_fusions.hpp"

namespace tessera::runtime {

namespace {

const std::string kCpu = "CPUExecutionProvider";

bool parse_bool_option(const std::string& provider, const std::string& key, const std::string& v) {
  if (v == "1" || v == "true" || v == "True") return true;
  if (v == "0" || v == "false" || v == "False") return false;
  fail(ErrorCode::kInvalidArgument, provider, ": option '", key,
       "' must be 0/1 or true/false, got '", v, "'");
}

// Initializers in device memory, taken out of the graph while the optimizer
// runs (it reads initializers on the host: constant folding, weight fusions)
// and seen by it as graph inputs: values it cannot fold or rewrite.
struct HiddenInitializers {
  std::vector<std::pair<std::string, Tensor>> tensors;

  explicit HiddenInitializers(ir::Graph& g) {
    for (auto it = g.initializers.begin(); it != g.initializers.end();) {
      if (it->second.memory_info().host_accessible()) {
        ++it;
        continue;
      }
      const Tensor& t = it->second;
      std::vector<ir::Dim> dims;
      for (int64_t d : t.shape().dims()) dims.push_back(ir::Dim{d, ""});
      g.inputs.push_back({it->first, ir::TypeInfo::tensor(t.dtype(), dims), ""});
      tensors.emplace_back(it->first, t);
      it = g.initializers.erase(it);
    }
  }
  void restore(ir::Graph& g) {
    for (auto& [name, t] : tensors) {
      std::erase_if(g.inputs, [&](const ir::ValueInfo& v) { return v.name == name; });
      g.initializers[name] = std::move(t);
    }
    tensors.clear();
  }
};

}  // namespace

// A "0"/"1" session config flag; `absent` when it is not set. Any other
// value is an error naming the key, not a silent default.
bool config_flag(const SessionOptions& o, const std::string& key, bool absent) {
  auto it = o.config_entries.find(key);
  if (it == o.config_entries.end()) return absent;
  check_code(it->second == "0" || it->second == "1", ErrorCode::kInvalidArgument,
             "session option '", key, "' must be \"0\" or \"1\", got \"", it->second, "\"");
  return it->second == "1";
}

// A session config entry that is a count from `lo` to `hi`; `absent` when
// it is not set. Anything else is an error naming the key and the range.
int config_count(const SessionOptions& o, const std::string& key, int absent, int lo, int hi) {
  auto it = o.config_entries.find(key);
  if (it == o.config_entries.end()) return absent;
  const std::string& v = it->second;
  const bool digits = !v.empty() && v.size() <= 9 &&
                      std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int n = digits ? std::stoi(v) : -1;
  check_code(n >= lo && n <= hi, ErrorCode::kInvalidArgument, "session option '", key,
             "' must be a whole number from ", lo, " to ", hi, ", got \"", v, "\"");
  return n;
}

std::vector<ProviderSpec> provider_specs(const std::vector<ProviderSpec>& given,
                                         const SessionOptions& o, const std::string& where,
                                         std::vector<std::string>& requested) {
  // The environment's providers follow the session's own, unless already named.
  // With no list, the selection policy picks from the environment's devices.
  std::vector<ProviderSpec> specs = given;
  if (o.provider_selection_policy != ProviderSelectionPolicy::kDefault) {
    check(given.empty(), where, ": both a provider list and the selection policy '",
          provider_selection_policy_name(o.provider_selection_policy),
          "' were given; use one or the other");
    specs = select_providers(o.provider_selection_policy, Environment::global().ep_devices());
    for (const auto& p : specs) requested.push_back(p.name);
  }
  for (auto& p : Environment::global().providers()) {
    bool named = false;
    for (const auto& q : specs) named |= q.name == p.name;
    if (!named) specs.push_back(p);
  }
  return specs;
}

Providers create_providers(const std::vector<ProviderSpec>& specs, const SessionOptions& options) {
  auto& registry = ep::ProviderRegistry::instance();
  Providers out;
  std::unordered_set<std::string> seen;
  for (const auto& spec : specs) {
    const ep::ProviderFactory* f = registry.find(spec.name);
    if (!f) {
      std::string list;
      for (const auto& n : registry.names()) list += str_cat(list.empty() ? "" : ", ", n);
      // onnxruntime's wording first, so scripts matching it still do.
      fail(ErrorCode::kInvalidArgument, "Unknown Provider Type: ", spec.name,
           " (this build has: ", list, ")");
    }
    if (!seen.insert(spec.name).second)
      fail(ErrorCode::kInvalidArgument, "execution provider '", spec.name, "' is listed twice");
    ep::ProviderOptions opts(spec.options.begin(), spec.options.end());
    bool error_on_failure = false;
    if (auto it = opts.find("error_on_failure"); it != opts.end()) {
      error_on_failure = parse_bool_option(spec.name, it->first, it->second);
      opts.erase(it);
    }
    std::string why;
    try {
      if (!f->is_available(&why))
        fail(ErrorCode::kEPFail, spec.name, " is not available on this machine: ", why);
      out.push_back(f->create(opts));
    } catch (const Error& e) {
      // Bad options are the user's to fix, never silently skipped.
      if (error_on_failure || e.code() == ErrorCode::kInvalidArgument) throw;
      log(Severity::kWarning, "session", "skipping ", spec.name, ": ", e.what(),
          " (its nodes fall back to the next provider; set error_on_failure=1 to fail instead)");
    }
  }
  if (!seen.count(kCpu) && !options.disable_cpu_fallback)
    out.push_back(registry.find(kCpu)->create({}));
  if (out.empty())
    fail(ErrorCode::kInvalidArgument,
         "no execution provider is usable (CPU fallback is disabled and none of the requested "
         "providers could be created)");
  return out;
}

// SessionOptions::initializers replace the model's tensors of the same name
// without a copy: the model's map takes the caller's Tensor, which shares its
// buffer. One in device memory is used there by the nodes of the provider
// serving it; a node elsewhere gets a copy made once, at creation (placement
// in GraphPlan), so some provider must serve that memory or copy from it.
onnx::SuppliedExternalData supplied_external_data(const SessionOptions& o) {
  onnx::SuppliedExternalData s;
  s.initializers = &o.initializers;
  s.files = &o.external_files_in_memory;
  s.free_dimension_overrides_by_denotation = &o.free_dimension_overrides_by_denotation;
  return s;
}

// A sparse initializer every reader takes sparse (kept so by
// densify_sparse_initializers) is replaced by the COO form of the caller's
// dense tensor: its readers still get a sparse value, and the dense tensor is
// read once, here (so it must be in host memory). False when `name` is no
// such initializer.
static bool replace_sparse_initializer(ir::Graph& g, const std::string& name, const Tensor& t,
                                       const std::string& where) {
  auto it = g.sparse_initializers.find(name);
  if (it == g.sparse_initializers.end()) return false;
  check(t.dtype() == it->second.dtype() && t.shape() == it->second.dense_shape, where,
        ": add_initializer: '", name, "' is a sparse initializer of ",
        data_type_name(it->second.dtype()), it->second.dense_shape.to_string(),
        " in the model but the given tensor is ", t.description());
  check_code(t.memory_info().host_accessible(), ErrorCode::kNotImplemented, where,
             ": add_initializer: '", name,
             "' is a sparse initializer, kept sparse for its readers;"
             " its replacement is read into that form on the host, but the given tensor is in ",
             t.memory_info().to_string());
  it->second = SparseTensor::coo_from_dense(t);
  return true;
}

void apply_user_initializers(ir::Model& model, const SessionOptions& o, const Providers& providers,
                             const std::string& where) {
  for (const auto& [name, t] : o.initializers) {
    if (replace_sparse_initializer(model.graph, name, t, where)) continue;
    auto it = model.graph.initializers.find(name);
    check(it != model.graph.initializers.end(), where, ": add_initializer: '", name,
          "' is not an initializer of the model");
    check(t.dtype() == it->second.dtype() && t.shape() == it->second.shape(), where,
          ": add_initializer: '", name, "' is ", it->second.description(),
          " in the model but the given tensor is ", t.description());
    const MemoryInfo& mem = t.memory_info();
    if (!mem.host_accessible()) {
      // A graph input of that name could be fed in any memory at run time.
      check_code(!model.graph.find_input(name), ErrorCode::kNotImplemented, where,
                 ": add_initializer: '", name, "' is in ", mem.to_string(),
                 " and is also a graph input (overridable); only initializers that are not graph "
                 "inputs can be handed in in device memory");
      bool servable = false;
      std::string names;
      for (const auto& p : providers) {
        const auto* transfer = p->data_transfer();
        servable |= p->memory_info().same_space(mem) ||
                    (transfer && transfer->can_copy(mem, cpu_memory_info()));
        names += str_cat(names.empty() ? "" : ", ", p->name());
      }
      check_code(servable, ErrorCode::kEPFail, where, ": add_initializer: '", name, "' is in ",
                 mem.to_string(), " but no provider of the session (", names,
                 ") serves that memory or can copy from it; add the provider of that device, or "
                 "hand in a host tensor");
    }
    it->second = t;
  }
}

void apply_free_dimension_overrides(ir::Graph& g, const SessionOptions& o) {
  for (auto& in : g.inputs) {
    if (!in.type.shape) continue;
    for (auto& d : *in.type.shape) {
      if (d.value) continue;
      auto it = o.free_dimension_overrides.find(d.symbol);
      if (it != o.free_dimension_overrides.end()) d.value = it->second;
    }
  }
}

std::vector<std::pair<std::string, std::shared_ptr<Allocator>>> provider_allocators(
    const Providers& providers, const SessionOptions& options) {
  std::vector<std::pair<std::string, std::shared_ptr<Allocator>>> out;
  const bool env_allocators = config_flag(options, "session.use_env_allocators", true);
  for (const auto& p : providers) {
    std::shared_ptr<Allocator> a =
        env_allocators ? Environment::global().shared_allocator(p->memory_info()) : nullptr;
    if (!a) {
      a = p->allocator();
      // A provider that brings its own arena (the CUDA provider's, with its
      // gpu_mem_limit) keeps it; caching blocks in a second arena on top
      // would hide them from that limit.
      if (options.enable_cpu_mem_arena && !a->backing())
        a = std::make_shared<ArenaAllocator>(a, options.arena);
    }
    out.emplace_back(p->name(), a);
  }
  return out;
}

std::vector<ep::PlacementRule> prepare_graph(ir::Model& model, const Providers& providers,
                                             const SessionOptions& options,
                                             const std::string& where,
                                             std::vector<ExpandedOp>& expanded,
                                             std::vector<PhaseTiming>* phases) {
  PhaseTimer timer(phases);
  // For the partition report: which nodes ran as which bodies.
  auto record_expansions = [&](std::vector<FunctionExpansion>& done) {
    for (auto& e : done)
      expanded.push_back({e.node_name, e.op_type, e.body, e.depth, std::move(e.body_nodes)});
  };
  // ONNX Runtime's com.microsoft ops become their bodies before the
  // optimizer, so its fusions treat them as they treat the model's own ops.
  auto lowered = timer.time("expand com.microsoft ops", [&] {
    try {
      return expand_ops_without_kernels(model, providers, ops::find_contrib_body);
    } catch (const Error& e) {
      fail(e.code(), where, ": ", e.what());
    }
  });
  record_expansions(lowered);
  HiddenInitializers on_devices(model.graph);
  optimizer::OptimizeOptions opt;
  opt.shared_fusions = shared_fusions(providers);
  // Folding runs nodes on the host: the CPU provider's kernels (the
  // session's own, or one made for it when the list has none).
  std::shared_ptr<ep::ExecutionProvider> host;
  for (const auto& p : providers)
    if (p->name() == kCpu) host = p;
  if (!host) host = ep::ProviderRegistry::instance().find(kCpu)->create({});
  opt.fold_kernels = &host->kernel_registry();
  optimizer::optimize(model, options.graph_optimization_level, opt, phases);
  on_devices.restore(model.graph);
  // After the passes, so a fusion cannot rebuild an op that has no kernel.
  auto bodies = timer.time("expand function ops", [&] {
    try {
      return expand_ops_without_kernels(model, providers);
    } catch (const Error& e) {
      fail(e.code(), where, ": ", e.what());
    }
  });
  record_expansions(bodies);
  // Each provider's own rewrites of the nodes it is given (the CPU's fused
  // ops and blocked layout), whatever else the list holds. The flags the
  // CPU transform reads are checked here, so a bad value is an error even
  // where no transform reads it.
  config_flag(options, "session.disable_nchwc", false);
  config_flag(options, "session.disable_winograd", false);
  config_flag(options, "session.winograd_4x4", false);
  config_flag(options, "session.cpu_half_as_float", true);
  std::vector<ep::PlacementRule> placement = options.placement;
  if (options.graph_optimization_level != GraphOptimizationLevel::kDisableAll) {
    HiddenInitializers hidden(model.graph);
    ep::TransformOptions transform;
    transform.level = options.graph_optimization_level;
    transform.config = &options.config_entries;
    placement = apply_provider_transforms(model, providers, options.placement, transform, phases);
    placement.insert(placement.begin(), options.placement.begin(), options.placement.end());
    optimizer::fold_constants_after_transforms(model, opt.fold_kernels, phases);
    hidden.restore(model.graph);
  }
  return placement;
}

}  // namespace tessera::runtime
