#include "providers/cpu/transforms/cpu_transforms.hpp"

#include <string>
#include <vector>

#include "linalg/nchwc.hpp"
#include "ops/graph_types.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/cpu_provider.hpp"

namespace tessera::cpu {

namespace {

bool config_on(const ep::TransformOptions& o, const char* key) {
  if (!o.config) return false;
  auto it = o.config->find(key);
  return it != o.config->end() && (it->second == "1" || it->second == "true");
}

bool config_off(const ep::TransformOptions& o, const char* key) {
  return cpu::config_off(o.config, key);
}

// Whether a half node of the part has no kernel in its own types (the CPU
// provider claimed it for compute_half_in_float).
bool needs_half_in_float(const ir::Model& part) {
  ops::ValueTypes types;
  ops::infer_graph_types(part, part.graph, types);
  auto type_of = [&types](const std::string& v) {
    auto it = v.empty() ? types.end() : types.find(v);
    return it != types.end() && it->second.is_tensor() ? it->second.elem_type
                                                       : DataType::kUndefined;
  };
  for (const ir::Node& n : part.graph.nodes) {
    if (!computes_half_in_float(part, n, type_of)) continue;
    std::vector<DataType> in;
    for (const auto& v : n.inputs) in.push_back(type_of(v));
    if (!cpu_kernel_registry().lookup(n.domain, n.op_type, part.opset(n.domain), in).entry)
      return true;
  }
  return false;
}

}  // namespace

bool config_off(const std::map<std::string, std::string>* config, const char* key) {
  if (!config) return false;
  auto it = config->find(key);
  return it != config->end() && (it->second == "0" || it->second == "false");
}

size_t transform_for_cpu(ir::Model& part, const ep::TransformOptions& options,
                         std::vector<PhaseTiming>* timings) {
  using namespace tessera::optimizer;
  ir::Graph& g = part.graph;
  PhaseTimer timer(timings);
  auto run = [&](const char* name, auto&& pass) -> size_t {
    return timer.time(std::string("cpu transform: ") + name, pass);
  };
  if (options.level != GraphOptimizationLevel::kAll) {
    // Below the top level only what the provider claimed on the promise of
    // computing it in float (half nodes no kernel takes in their types).
    if (config_off(options, "session.cpu_half_as_float") || !needs_half_in_float(part)) return 0;
    return run("compute_half_in_float", [&] { return compute_half_in_float(part, g); });
  }
  size_t changed = 0;
  // Before everything: the fusions and the layout below then see float32
  // nodes, made for this CPU's float kernels, where a half model had
  // half ones.
  if (!config_off(options, "session.cpu_half_as_float"))
    changed += run("compute_half_in_float", [&] { return compute_half_in_float(part, g); });
  // 8-bit next: they read the DequantizeLinear of constant weights, which
  // the provider-independent folding leaves for them.
  changed += run("fuse_qdq_conv", [&] { return fuse_qdq_conv(g); });
  changed += run("fuse_qdq_matmul", [&] { return fuse_qdq_matmul(g); });
  // What they did not take is folded now (float weights), as any other
  // constant; a MatMul with such weights can then become a Gemm.
  changed += run("fold_constants", [&] { return fold_constants(part, g, &cpu_kernel_registry()); });
  if (part.opset("") >= 9) changed += run("fuse_matmul_add", [&] { return fuse_matmul_add(g); });
  // First: it also takes the activation after the Add.
  changed +=
      run("fuse_conv_residual", [&] { return fuse_conv_residual(part, g, /*extended=*/true); });
  changed += run("fuse_activations",
                 [&] { return fuse_activations(part, g, /*gemm=*/true, /*extended=*/true); });
  changed += run("fuse_attention",
                 [&] { return fuse_attention(part, g, /*packed_qkv=*/true, /*seq_first=*/true); });
  changed += run("fuse_skip_layer_norm", [&] { return fuse_skip_layer_norm(part, g); });
  changed += run("fuse_bias_gelu", [&] { return fuse_bias_gelu(part, g); });
  changed += run("fuse_matmul_bias", [&] { return fuse_matmul_bias(part, g); });
  changed +=
      run("fuse_matmul_integer_to_float", [&] { return fuse_matmul_integer_to_float(part, g); });
  changed += run("pool_quantized_values", [&] { return pool_quantized_values(part, g); });
  changed += run("fuse_quantize_pairs", [&] { return fuse_quantize_pairs(part, g); });
  changed += run("fuse_quantize_lookups", [&] { return fuse_quantize_lookups(part, g); });
  changed += run("fuse_dequantize_add", [&] { return fuse_dequantize_add(part, g); });
  // Last: it converts the FusedConvs made above (residual and activation
  // included). The blocked kernels pay off only where vector kernels
  // (AVX-512, or AVX2 with FMA) run them.
  if (!config_on(options, "session.disable_nchwc") && linalg::nchwc::fast_path_available()) {
    const bool winograd = !config_on(options, "session.disable_winograd");
    const bool winograd_4x4 = config_on(options, "session.winograd_4x4");
    changed += run("choose_conv_layout",
                   [&] { return choose_conv_layout(part, g, winograd, winograd_4x4); });
    changed += run("fuse_expand_depthwise", [&] { return fuse_expand_depthwise(part, g); });
  }
  changed += run("eliminate_dead_nodes", [&] { return eliminate_dead_nodes(g); });
  return changed;
}

}  // namespace tessera::cpu
