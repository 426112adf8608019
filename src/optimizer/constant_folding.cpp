// Constant folding: a node whose inputs are all constants is run once, now,
// with the kernels the caller hands in (a host provider's), and its outputs
// become initializers; a
// Shape or Size of a value whose shape is static (shape_inference.hpp)
// becomes one too, and so does a Gather of the known dims of a Shape of a
// value whose shape is partial.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "core/thread_pool.hpp"
#include "ep/kernel_registry.hpp"
#include "ops/schema.hpp"
#include "ops/shape_rules.hpp"
#include "ops/type_inference.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"
#include "optimizer/shape_inference.hpp"

namespace tessera::optimizer {

namespace {

// Folded tensors larger than this stay computed at run time: a model file
// should not balloon because an Expand or a ConstantOfShape was precomputed.
constexpr size_t kMaxFoldedBytes = size_t(64) << 20;

bool never_fold(const ir::Node& n) {
  static const std::set<std::string> kRandom = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",  "Bernoulli",     "Dropout"};
  if (!ir::is_onnx_domain(n.domain) || kRandom.count(n.op_type)) return true;
  for (const auto& a : n.attributes)
    if (a.g || !a.graphs.empty()) return true;  // control flow: leave to the runtime
  return false;
}

ThreadPool& folding_pool() {
  static ThreadPool pool(1);
  return pool;
}

// Runs `n` on constant inputs; returns its outputs, or nothing when it cannot
// be folded here (no host kernel, a non-tensor output, too big, or it throws).
std::optional<std::vector<Tensor>> evaluate(const ep::KernelRegistry& kernels,
                                            const ir::Model& model, const ir::Node& n,
                                            const std::vector<const Tensor*>& inputs) {
  std::vector<ir::TypeInfo> in_types;
  std::vector<DataType> in_dtypes;
  for (const Tensor* t : inputs) {
    in_types.push_back(t ? ir::TypeInfo::tensor(t->dtype()) : ir::TypeInfo());
    in_dtypes.push_back(t ? t->dtype() : DataType::kUndefined);
  }
  const int64_t opset = model.opset(n.domain);
  auto out_types = ops::infer_output_types(n, opset, in_types);
  std::vector<DataType> out_dtypes;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    if (k >= out_types.size() || !out_types[k].is_tensor() ||
        out_types[k].elem_type == DataType::kUndefined)
      return std::nullopt;
    out_dtypes.push_back(out_types[k].elem_type);
  }
  auto match = kernels.lookup(n.domain, n.op_type, opset, in_dtypes);
  if (!match.entry) return std::nullopt;
  try {
    ep::KernelInfo info(n, opset, in_types, out_types, inputs);
    auto kernel = match.entry->factory(info);
    std::vector<Value> in_values, out_values(n.outputs.size());
    in_values.reserve(inputs.size());
    for (const Tensor* t : inputs) in_values.push_back(t ? Value(*t) : Value());
    std::vector<const Value*> in_ptrs;
    for (size_t i = 0; i < inputs.size(); ++i)
      in_ptrs.push_back(inputs[i] ? &in_values[i] : nullptr);
    std::vector<Value*> out_ptrs;
    for (size_t k = 0; k < n.outputs.size(); ++k)
      out_ptrs.push_back(n.outputs[k].empty() ? nullptr : &out_values[k]);
    ep::KernelContext ctx(n, in_ptrs, out_ptrs, out_dtypes, default_cpu_allocator(),
                          &folding_pool());
    kernel->compute(ctx);
    std::vector<Tensor> out;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) {
        out.emplace_back();
        continue;
      }
      if (!out_values[k].is_tensor()) return std::nullopt;
      const Tensor& t = out_values[k].tensor();
      if (t.byte_size() > kMaxFoldedBytes) return std::nullopt;
      // Outputs may alias an input buffer (Reshape, Identity): own the data.
      out.push_back(t.clone());
    }
    return out;
  } catch (const std::exception&) {
    return std::nullopt;  // the runtime will report it with full context
  }
}

// The value of Shape (its dims [start, end), ops::shape_range) or Size of a
// value of shape `dims`.
Tensor shape_value(const ir::Model& model, const ir::Node& n, const std::vector<int64_t>& dims) {
  if (n.op_type == "Size") {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    return Tensor::scalar<int64_t>(count);
  }
  const ops::OpSchema& s = ops::schema_of(n, model.opset(n.domain));
  const auto [start, end] =
      ops::shape_range(int64_t(dims.size()), ops::shape_start(s, n), ops::shape_end(s, n));
  std::vector<int64_t> out(dims.begin() + start, dims.begin() + end);
  const int64_t len = int64_t(out.size());
  return Tensor::from_vector<int64_t>(out, Shape{len});
}

// Gather(Shape(x), indices) where the dims it picks are known though x's
// shape is partial (torch's x.size(-1) of a [batch, seq, 768] value): the
// picked dims. `shape_dims` holds the dims each Shape output gives.
std::optional<Tensor> gathered_dims(
    const ir::Model& model, const ir::Node& n,
    const std::unordered_map<std::string, ops::PartialShape>& shape_dims, const Tensor* indices) {
  if (n.op_type != "Gather" || n.inputs.size() != 2 || !indices ||
      (indices->dtype() != DataType::kInt64 && indices->dtype() != DataType::kInt32))
    return std::nullopt;
  auto it = shape_dims.find(n.inputs[0]);
  if (it == shape_dims.end()) return std::nullopt;
  const int64_t len = int64_t(it->second.size());
  const int64_t axis = ops::schema_of(n, model.opset(n.domain)).attr_int(n, "axis");
  if (axis != 0 && axis != -1) return std::nullopt;  // a Shape's value is 1-D
  Tensor out(DataType::kInt64, indices->shape());
  const auto picks = indices->to_int64_vector();
  for (size_t k = 0; k < picks.size(); ++k) {
    const int64_t i = picks[k] < 0 ? picks[k] + len : picks[k];
    if (i < 0 || i >= len || !it->second[size_t(i)].value) return std::nullopt;
    out.mutable_data<int64_t>()[k] = *it->second[size_t(i)].value;
  }
  return out;
}

}  // namespace

size_t fold_constants(ir::Model& model, ir::Graph& graph, const ep::KernelRegistry* kernels,
                      bool keep_dequantize) {
  std::set<std::string> graph_inputs, graph_outputs;
  for (const auto& in : graph.inputs) graph_inputs.insert(in.name);
  for (const auto& o : graph.outputs) graph_outputs.insert(o.name);
  auto constant = [&](const std::string& name) -> const Tensor* {
    if (graph_inputs.count(name)) return nullptr;
    auto it = graph.initializers.find(name);
    return it == graph.initializers.end() ? nullptr : &it->second;
  };
  // Shapes follow the walk, so a Shape of a value computed from folded ones
  // folds in the same pass (torch's shape arithmetic chains Shape -> Gather
  // -> ... -> Reshape -> Shape many levels deep).
  ShapeInferrer shapes(model, graph);
  // The dims each Shape of a partially known value gives, some unknown.
  std::unordered_map<std::string, ops::PartialShape> shape_dims;
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t folded = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& n = graph.nodes[i];
    bool pinned = false;
    for (const auto& o : n.outputs) pinned = pinned || graph_outputs.count(o);
    const bool kept =
        keep_dequantize && n.op_type == "DequantizeLinear" && ir::is_onnx_domain(n.domain);
    if (never_fold(n) || pinned || kept) {  // keep graph outputs produced by nodes
      shapes.visit(n);
      continue;
    }
    if ((n.op_type == "Shape" || n.op_type == "Size") && ir::is_onnx_domain(n.domain) &&
        n.inputs.size() == 1 && n.outputs.size() == 1) {
      if (const ShapeInferrer::Dims* d = shapes.dims(n.inputs[0])) {
        graph.initializers[n.outputs[0]] = shape_value(model, n, *d);
        dead[i] = true;
        ++folded;
        continue;
      }
      if (const ops::PartialShape* p = shapes.partial(n.inputs[0]); p && n.op_type == "Shape") {
        const ops::OpSchema& s = ops::schema_of(n, model.opset(n.domain));
        const auto [start, end] =
            ops::shape_range(int64_t(p->size()), ops::shape_start(s, n), ops::shape_end(s, n));
        shape_dims[n.outputs[0]] = ops::PartialShape(p->begin() + start, p->begin() + end);
      }
    }
    if (n.op_type == "Gather" && n.inputs.size() == 2 && n.outputs.size() == 1) {
      if (auto t = gathered_dims(model, n, shape_dims, constant(n.inputs[1]))) {
        graph.initializers[n.outputs[0]] = std::move(*t);
        dead[i] = true;
        ++folded;
        continue;
      }
    }
    bool ok = true;
    std::vector<const Tensor*> inputs;
    for (const auto& in : n.inputs) {
      const Tensor* t = in.empty() ? nullptr : constant(in);
      if (!in.empty() && !t) ok = false;
      inputs.push_back(t);
    }
    auto outs = ok && kernels ? evaluate(*kernels, model, n, inputs) : std::nullopt;
    if (!outs) {
      shapes.visit(n);
      continue;
    }
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty()) graph.initializers[n.outputs[k]] = std::move((*outs)[k]);
    dead[i] = true;
    ++folded;
  }
  if (folded) erase_nodes(graph, dead);
  return folded;
}

}  // namespace tessera::optimizer
