// DnnlExecutionProvider: runs convolution, matrix products, pooling,
// normalization, softmax and activations through oneDNN primitives on plain
// host memory (the CPU's MemoryInfo, so no copies at its borders).
#include "providers/onednn/dnnl_provider.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "core/logging.hpp"
#include "ep/provider_abilities.hpp"
#include "providers/onednn/dnnl_fusion.hpp"
#include "providers/onednn/dnnl_ops.hpp"

namespace tessera::onednn {

const std::vector<DataType> kF32 = {DataType::kFloat};

namespace {

const std::string kName = "DnnlExecutionProvider";
// Listed in every option error, keys with their values.
const char* kValidOptions =
    "num_threads (integer 0..4096; 0: oneDNN's default), enable_bf16 (0, 1, false, true), "
    "conv_post_ops (primitive, separate)";

bool cpu_has_bf16() {
  auto isa = unsigned(dnnl::get_effective_cpu_isa());
  auto bf16 = unsigned(dnnl::cpu_isa::avx512_core_bf16);
  return (isa & bf16) == bf16;
}

[[noreturn]] void bad_value(const std::string& key, const std::string& value,
                            const std::string& valid) {
  fail(ErrorCode::kInvalidArgument, kName, ": option '", key, "' has bad value '", value,
       "'; valid values: ", valid, " (valid options are: ", kValidOptions, ")");
}

DnnlEnv parse_options(const ep::ProviderOptions& options) {
  for (const auto& [key, value] : options)
    if (key != "num_threads" && key != "enable_bf16" && key != "conv_post_ops")
      fail(ErrorCode::kInvalidArgument, kName, ": unknown option '", key,
           "'; valid options are: ", kValidOptions);
  DnnlEnv env;
  if (auto it = options.find("num_threads"); it != options.end()) {
    const std::string& v = it->second;
    int n = -1;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < 0 || n > 4096)
      bad_value(it->first, v, "an integer 0..4096 (0: oneDNN's default, one per core)");
    env.num_threads = n;
  }
  if (auto it = options.find("enable_bf16"); it != options.end()) {
    const std::string& v = it->second;
    if (v == "1" || v == "true") {
      env.bf16 = cpu_has_bf16();
      if (!env.bf16)  // not an error: the same options should work on every machine
        log(Severity::kWarning, kName,
            "enable_bf16=1 declined: this CPU has no AVX512-BF16 (oneDNN's effective ISA is "
            "below avx512_core_bf16), so Conv/MatMul/Gemm stay strict f32");
    } else if (v != "0" && v != "false")
      bad_value(it->first, v, "0, 1, false, true");
  }
  if (auto it = options.find("conv_post_ops"); it != options.end()) {
    if (it->second != "primitive" && it->second != "separate")
      bad_value(it->first, it->second, "primitive, separate");
    env.post_ops_in_conv = it->second == "primitive";
  }
  return env;
}

class DnnlProvider : public ep::ExecutionProvider, public ep::FusedCompiler {
 public:
  explicit DnnlProvider(const ep::ProviderOptions& options) {
    table_.env = std::make_shared<const DnnlEnv>(parse_options(options));
    options_ = options;
    register_dnnl_conv(table_);
    register_dnnl_matmul(table_);
    register_dnnl_pool(table_);
    register_dnnl_norm(table_);
    register_dnnl_softmax(table_);
    register_dnnl_eltwise(table_);
  }
  const std::string& name() const override { return kName; }
  ep::ProviderOptions effective_options() const override {
    ep::ProviderOptions o = options_;
    o.emplace("num_threads", "0");
    o.emplace("enable_bf16", "0");
    o.emplace("conv_post_ops", "separate");
    return o;
  }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return default_cpu_allocator(); }
  const ep::KernelRegistry& kernel_registry() const override { return table_.registry; }

  // Conv chains (Conv -> residual Add -> activation) are claimed as fused
  // groups; every other supported node alone.
  ep::Capability get_capability(const ep::GraphView& view) const override {
    ep::Capability cap;
    std::map<size_t, std::string> why_not;  // "" when claimable alone
    for (size_t idx : view.candidates) why_not[idx] = claim_check(view, idx);
    // Add has no kernel of its own here; it is claimable only inside a chain.
    auto claimable = [&](size_t i) {
      auto it = why_not.find(i);
      return it != why_not.end() && (it->second.empty() || view.graph->nodes[i].op_type == "Add");
    };
    ConvChainFinder finder(view, claimable);
    std::set<size_t> in_chain;
    for (size_t idx : view.candidates) {
      if (view.graph->nodes[idx].op_type != "Conv" || !why_not[idx].empty()) continue;
      ConvChain chain = finder.find(idx);
      // Two Convs may both feed one Add (a downsampling residual block): the
      // first takes it, the second keeps what comes before.
      auto taken = std::find_if(chain.nodes.begin(), chain.nodes.end(),
                                [&](size_t n) { return in_chain.count(n) > 0; });
      chain.nodes.erase(taken, chain.nodes.end());
      if (chain.nodes.size() < 2) continue;
      in_chain.insert(chain.nodes.begin(), chain.nodes.end());
      cap.groups.push_back({chain.nodes, true});
    }
    for (size_t idx : view.candidates) {
      if (in_chain.count(idx)) continue;
      if (why_not[idx].empty())
        cap.groups.push_back({{idx}, false});
      else
        cap.declined.push_back({idx, why_not[idx]});
    }
    return cap;
  }

  std::vector<std::unique_ptr<ep::OpKernel>> compile(
      const ep::GraphView& view, const std::vector<ep::FusedGroup>& groups) const override {
    std::vector<std::unique_ptr<ep::OpKernel>> out;
    for (const auto& g : groups) out.push_back(compile_conv_chain(view, g, table_.env));
    return out;
  }

 private:
  // "" when this provider runs the node on its own, else why not.
  std::string claim_check(const ep::GraphView& view, size_t idx) const {
    const ir::Node& node = view.graph->nodes[idx];
    auto m = ep::lookup_kernel(table_.registry, view, node);
    if (!m.entry) return m.reason.empty() ? "no oneDNN kernel for this node" : m.reason;
    // Every kernel here reads float input 0; an unknown static type could
    // turn out to be anything at run time.
    auto types = view.input_types(node);
    if (types.empty() || types[0] != DataType::kFloat)
      return "input 0's static type is not known to be float";
    return table_.checks.at(node.op_type)(ClaimQuery(view, node));
  }

  DnnlOpTable table_;
  MemoryInfo info_ = cpu_memory_info();
};

class DnnlProviderFactory : public ep::ProviderFactory, public ep::FactoryDiagnostics {
 public:
  const std::string& name() const override { return kName; }
  bool is_available(std::string* why_not) const override {
    try {
      if (dnnl::engine::get_count(dnnl::engine::kind::cpu) > 0) return true;
      if (why_not) *why_not = "oneDNN reports no CPU engine";
    } catch (const dnnl::error& e) {
      if (why_not) *why_not = str_cat("oneDNN: ", e.what());
    }
    return false;
  }
  std::shared_ptr<ep::ExecutionProvider> create(const ep::ProviderOptions& o) const override {
    return std::make_shared<DnnlProvider>(o);
  }
  // Linked at build time, so the dynamic linker found the library; dladdr
  // says which file it took.
  std::vector<std::string> diagnostics() const override {
    const dnnl_version_t* v = dnnl_version();
    Dl_info where{};
    std::string path = dladdr(reinterpret_cast<void*>(&dnnl_version), &where) && where.dli_fname
                           ? where.dli_fname
                           : "(unknown path)";
    return {str_cat("library: libdnnl, loaded from ", path),
            str_cat("oneDNN version found: ", v->major, ".", v->minor, ".", v->patch, " (",
                    v->hash ? v->hash : "", ")"),
            str_cat("version required: ", DNNL_VERSION_MAJOR, ".x, at least ", DNNL_VERSION_MAJOR,
                    ".", DNNL_VERSION_MINOR, " (the headers it was built with)")};
  }
};

}  // namespace

std::shared_ptr<ep::ProviderFactory> make_dnnl_provider_factory() {
  return std::make_shared<DnnlProviderFactory>();
}

bool dnnl_bf16_supported() { return cpu_has_bf16(); }

}  // namespace tessera::onednn
