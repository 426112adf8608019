// Float16 and bfloat16 nodes computed in float32 (see cpu_transforms.hpp).
// Without this, each CPU kernel that meets a half type converts its inputs to
// float, runs, and rounds its outputs back, node by node, and the fusions and
// the blocked convolution layout, which are made for float32, pass it by.
// Converting at the edges of the float region once, at session creation,
// costs one pass over the weights instead of one per node per run.
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/float16.hpp"
#include "ir/graph_algorithms.hpp"
#include "linalg/half_convert.hpp"
#include "ops/graph_types.hpp"
#include "optimizer/def_use.hpp"
#include "providers/cpu/cpu_provider.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"

namespace tessera::cpu {

namespace {

using optimizer::DefUse;

bool is_half(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }

// ai.onnx ops whose float32 result means what their half result means, only
// more precisely: no output type set by an attribute, no result that depends
// on where a half type overflows (IsInf, IsNaN), no count that depends on
// rounding (Range).
const std::unordered_set<std::string>& onnx_ops() {
  static const std::unordered_set<std::string> ops = {
      // element-wise math
      "Abs", "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Clip", "Cos",
      "Cosh", "Div", "Erf", "Exp", "Floor", "Log", "Max", "Mean", "Min", "Mod", "Mul", "Neg", "Pow",
      "Reciprocal", "Round", "Sign", "Sin", "Sinh", "Sqrt", "Sub", "Sum", "Tan", "Tanh", "Equal",
      "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Where",
      // activations
      "Celu", "Elu", "Gelu", "HardSigmoid", "HardSwish", "LeakyRelu", "Mish", "PRelu", "Relu",
      "Selu", "Sigmoid", "Softplus", "Softsign", "Swish", "ThresholdedRelu", "Softmax",
      "LogSoftmax", "Hardmax", "Dropout",
      // convolutions and products
      "Conv", "ConvTranspose", "MatMul", "Gemm", "Einsum",
      // normalizations and pools
      "BatchNormalization", "InstanceNormalization", "LayerNormalization", "GroupNormalization",
      "RMSNormalization", "LpNormalization", "MeanVarianceNormalization", "LRN", "AveragePool",
      "MaxPool", "LpPool", "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool",
      // reductions
      "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare",
      "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ArgMax", "ArgMin", "CumSum",
      "TopK",
      // resampling, shape and view ops, data movement
      "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "Reshape", "Flatten", "Squeeze",
      "Unsqueeze", "Identity", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements",
      "GatherND", "ScatterElements", "ScatterND", "Pad", "Expand", "Tile", "Trilu", "Compress",
      "ReverseSequence"};
  return ops;
}

// The contrib and internal ops of the same kinds that the CPU provider has
// kernels for, as "domain/op" (the other contrib ops are expanded into
// standard ones before provider transforms run).
const std::unordered_set<std::string>& contrib_ops() {
  static const std::unordered_set<std::string> ops = {
      "com.microsoft/Attention",
      "com.microsoft/EmbedLayerNormalization",
      "com.microsoft/FusedMatMul",
      "com.microsoft/GroupQueryAttention",
      "com.microsoft/MatMulNBits",
      "com.microsoft/RotaryEmbedding",
      "com.microsoft/TransposeMatMul",
      "com.tessera/BiasGelu",
      "com.tessera/FusedConv",
      "com.tessera/FusedGemm",
      "com.tessera/Gelu",
      "com.tessera/LayerNormalization",
      "com.tessera/MatMulBias",
      "com.tessera/MultiHeadAttention",
      "com.tessera/SkipLayerNormalization",
  };
  return ops;
}

bool listed(const ir::Node& n) {
  if (ir::is_onnx_domain(n.domain)) return onnx_ops().count(n.op_type) > 0;
  return contrib_ops().count(n.domain + "/" + n.op_type) > 0;
}

// Ops whose outputs do not depend on their input's element type: they read
// a value in whichever type it ends up.
bool type_blind(const ir::Node& n) {
  return ir::is_onnx_domain(n.domain) && (n.op_type == "Shape" || n.op_type == "Size");
}

bool has_subgraph(const ir::Node& n) {
  for (const auto& a : n.attributes)
    if (a.g || !a.graphs.empty()) return true;
  return false;
}

bool is_cast(const ir::Node& n) { return ir::is_onnx_domain(n.domain) && n.op_type == "Cast"; }

Tensor to_float(const Tensor& h) {
  Tensor f(DataType::kFloat, h.shape());
  float* d = f.mutable_data<float>();
  const int64_t n = h.num_elements();
  if (h.dtype() == DataType::kFloat16) {
    linalg::halves_to_floats(static_cast<const uint16_t*>(h.raw_data()), d, n);
  } else {
    linalg::bfloats_to_floats(static_cast<const uint16_t*>(h.raw_data()), d, n);
  }
  return f;
}

ir::Node cast_node(std::string name, std::string from, std::string to, DataType type) {
  ir::Node n;
  n.name = std::move(name);
  n.op_type = "Cast";
  n.inputs = {std::move(from)};
  n.outputs = {std::move(to)};
  ir::Attribute a;
  a.name = "to";
  a.type = ir::AttrType::kInt;
  a.i = int64_t(type);
  n.attributes.push_back(std::move(a));
  return n;
}

class HalfToFloat {
 public:
  HalfToFloat(ir::Model& model, ir::Graph& g) : model_(model), g_(g), uses_(g) {
    ops::infer_graph_types(model, g, types_);
    for (const auto& n : g.nodes) {
      names_.insert(n.name);
      for (const auto& o : n.outputs) names_.insert(o);
    }
    for (const auto& v : g.inputs) names_.insert(v.name);
    for (const auto& [name, t] : g.initializers) names_.insert(name);
    for (size_t k = 0; k < g.value_info.size(); ++k) info_index_.emplace(g.value_info[k].name, k);
  }

  size_t run();

 private:
  DataType type_of(const std::string& v) const {
    auto it = v.empty() ? types_.end() : types_.find(v);
    if (it == types_.end() || !it->second.is_tensor()) return DataType::kUndefined;
    return it->second.elem_type;
  }
  bool computable_in_float(const ir::Node& n) const;
  bool cast_in_float(int i, DataType& to_after) const;
  void decide();
  void plan_value(const std::string& v);
  void rebuild();
  size_t drop_identity_casts();
  std::string fresh(const std::string& base);
  ir::ValueInfo* find_info(const std::string& v);
  void declare_float(const std::string& v, const std::string& f);

  ir::Model& model_;
  ir::Graph& g_;
  DefUse uses_;
  ops::ValueTypes types_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, size_t> info_index_;  // into g_.value_info
  // value_info entries of values that go (dropped at the end).
  std::unordered_set<std::string> dropped_info_;
  // Per node: computed in float; for Casts also the `to` they get.
  std::vector<char> convert_;
  std::unordered_map<int, DataType> cast_to_;
  // Half values that converted nodes make in float (under float_name_).
  std::unordered_set<std::string> made_in_float_;
  // The name of each half value's float version, for the converted readers.
  std::unordered_map<std::string, std::string> float_name_;
  // A converted node's output renamed (its half name stays for the others).
  std::unordered_map<std::string, std::string> output_rename_;
  // Casts to put after a node (-1: before all nodes).
  std::unordered_map<int, std::vector<ir::Node>> casts_after_;
  // Readers of a converted initializer that see any type (Shape) follow it.
  std::unordered_map<std::string, std::string> blind_rename_;
  // Output names of the Casts the conversion made identities.
  std::vector<std::string> identity_casts_;
  size_t changed_ = 0;
};

std::string HalfToFloat::fresh(const std::string& base) {
  std::string name = base;
  for (int k = 1; names_.count(name); ++k) name = str_cat(base, "_", k);
  names_.insert(name);
  return name;
}

ir::ValueInfo* HalfToFloat::find_info(const std::string& v) {
  auto it = info_index_.find(v);
  return it == info_index_.end() ? nullptr : &g_.value_info[it->second];
}

// `f`, the float version of `v`, keeps v's static shape, which the layout
// choices read.
void HalfToFloat::declare_float(const std::string& v, const std::string& f) {
  const ir::ValueInfo* vi = find_info(v);
  if (!vi) vi = g_.find_value_info(v);  // a graph input or output
  if (!vi || !vi->type.is_tensor()) return;
  ir::ValueInfo copy = *vi;
  copy.name = f;
  copy.type.elem_type = DataType::kFloat;
  g_.value_info.push_back(std::move(copy));
}

bool HalfToFloat::computable_in_float(const ir::Node& n) const {
  return computes_half_in_float(model_, n, [this](const std::string& v) { return type_of(v); });
}

// A Cast reading a half value made in float reads the float one; a Cast to
// a half type read only by converted nodes casts to float instead.
bool HalfToFloat::cast_in_float(int i, DataType& to_after) const {
  const ir::Node& n = g_.nodes[size_t(i)];
  const ir::Attribute* to = n.attr("to");
  if (n.inputs.size() != 1 || n.outputs.size() != 1 || !to) return false;
  const DataType from = type_of(n.inputs[0]);
  to_after = DataType(to->i);
  if (is_half(from)) {
    const int p = uses_.producer(n.inputs[0]);
    return p >= 0 && convert_[size_t(p)] && !is_cast(g_.nodes[size_t(p)]);
  }
  if (!is_half(DataType(to->i)) || from == DataType::kUndefined) return false;
  const std::string& out = n.outputs[0];
  const auto& readers = uses_.consumers(out);
  if (uses_.pinned(out) || readers.empty()) return false;
  for (int r : readers) {
    const ir::Node& rn = g_.nodes[size_t(r)];
    if (!(convert_[size_t(r)] && !is_cast(rn)) && !type_blind(rn)) return false;
  }
  to_after = DataType::kFloat;
  return true;
}

void HalfToFloat::decide() {
  convert_.assign(g_.nodes.size(), 0);
  for (size_t i = 0; i < g_.nodes.size(); ++i)
    convert_[i] = !is_cast(g_.nodes[i]) && computable_in_float(g_.nodes[i]);
  // Casts after the others: their choice depends on their neighbours'.
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    DataType to = DataType::kUndefined;
    if (!is_cast(g_.nodes[i]) || !cast_in_float(int(i), to)) continue;
    convert_[i] = 1;
    cast_to_[int(i)] = to;
    const DataType from = type_of(g_.nodes[i].inputs[0]);
    if ((is_half(from) ? DataType::kFloat : from) == to)
      identity_casts_.push_back(g_.nodes[i].outputs[0]);
  }
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    if (!convert_[i]) continue;
    auto it = cast_to_.find(int(i));
    if (it != cast_to_.end() && it->second != DataType::kFloat) continue;
    for (const auto& o : g_.nodes[i].outputs)
      if (is_half(type_of(o))) made_in_float_.insert(o);
  }
}

// Chooses where half value `v` gets its float version, and whether its half
// version must stay for the others that read it.
void HalfToFloat::plan_value(const std::string& v) {
  bool half_wanted = uses_.pinned(v), float_wanted = false;
  for (int r : uses_.consumers(v)) {
    const ir::Node& n = g_.nodes[size_t(r)];
    if (convert_[size_t(r)])
      float_wanted = true;
    else if (!type_blind(n))
      half_wanted = true;
  }
  const int producer = uses_.producer(v);
  const DataType half = type_of(v);
  if (made_in_float_.count(v)) {
    if (!half_wanted) {
      float_name_[v] = v;
      if (ir::ValueInfo* vi = find_info(v)) vi->type.elem_type = DataType::kFloat;
      return;
    }
    const std::string f = fresh(v + "_float");
    float_name_[v] = f;
    output_rename_[v] = f;
    declare_float(v, f);
    casts_after_[producer].push_back(cast_node(fresh("Cast_" + v), f, v, half));
    ++changed_;
    return;
  }
  if (!float_wanted) return;
  const std::string f = fresh(v + "_float");
  float_name_[v] = f;
  ++changed_;
  if (const Tensor* w = uses_.constant(v); w && !half_wanted && w->has_data()) {
    // Dropped at once: the half copy does not stay beside the float one.
    g_.initializers.emplace(f, to_float(*w));
    g_.initializers.erase(v);
    dropped_info_.insert(v);
    blind_rename_[v] = f;
    return;
  }
  declare_float(v, f);
  casts_after_[producer].push_back(cast_node(fresh("Cast_" + v), v, f, DataType::kFloat));
}

void HalfToFloat::rebuild() {
  std::vector<ir::Node> nodes;
  nodes.reserve(g_.nodes.size() + casts_after_.size());
  auto place_casts = [&](int after) {
    auto it = casts_after_.find(after);
    if (it == casts_after_.end()) return;
    for (auto& c : it->second) nodes.push_back(std::move(c));
  };
  place_casts(-1);
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    ir::Node n = std::move(g_.nodes[i]);
    if (convert_[i]) {
      ++changed_;
      for (auto& in : n.inputs) {
        auto it = in.empty() ? float_name_.end() : float_name_.find(in);
        if (it != float_name_.end()) in = it->second;
      }
      for (auto& o : n.outputs) {
        auto it = o.empty() ? output_rename_.end() : output_rename_.find(o);
        if (it != output_rename_.end()) o = it->second;
      }
      auto to = cast_to_.find(int(i));
      if (to != cast_to_.end())
        for (auto& a : n.attributes)
          if (a.name == "to") a.i = int64_t(to->second);
    } else if (type_blind(n)) {
      for (auto& in : n.inputs) {
        auto it = in.empty() ? blind_rename_.end() : blind_rename_.find(in);
        if (it != blind_rename_.end()) in = it->second;
      }
    }
    nodes.push_back(std::move(n));
    place_casts(int(i));
  }
  g_.nodes = std::move(nodes);
}

// A Cast the conversion made an identity goes: its readers read its input,
// or, where its output must keep its name (a graph output), the input's
// producer writes that name.
size_t HalfToFloat::drop_identity_casts() {
  size_t dropped = 0;
  for (const std::string& out : identity_casts_) {
    const DefUse v(g_);
    const int c = v.producer(out);
    if (c < 0) continue;
    const std::string in = g_.nodes[size_t(c)].inputs[0];
    std::string from = out, to = in;
    if (v.pinned(out)) {
      if (v.producer(in) < 0 || v.pinned(in)) continue;
      from = in;
      to = out;
    }
    for (auto& n : g_.nodes) {
      for (auto& s : n.inputs)
        if (s == from) s = to;
      for (auto& s : n.outputs)
        if (s == from && &n != &g_.nodes[size_t(c)]) s = to;
    }
    dropped_info_.insert(from);
    g_.nodes.erase(g_.nodes.begin() + c);
    ++dropped;
  }
  return dropped;
}

size_t HalfToFloat::run() {
  decide();
  bool any = false;
  for (char c : convert_) any |= c != 0;
  if (!any) return 0;
  // Every half value, once: graph inputs, initializers, node outputs.
  std::vector<std::string> values;
  for (const auto& v : g_.inputs) values.push_back(v.name);
  for (const auto& [name, t] : g_.initializers)
    if (!g_.find_input(name)) values.push_back(name);
  for (const auto& n : g_.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) values.push_back(o);
  for (const auto& v : values)
    if (is_half(type_of(v))) plan_value(v);
  rebuild();
  changed_ += drop_identity_casts();
  std::erase_if(g_.value_info,
                [&](const ir::ValueInfo& vi) { return dropped_info_.count(vi.name); });
  ir::topological_sort(g_);
  return changed_;
}

}  // namespace

bool computes_half_in_float(const ir::Model& model, const ir::Node& n,
                            const std::function<DataType(const std::string&)>& type_of) {
  if (!listed(n) || has_subgraph(n)) return false;
  bool any_half = false;
  std::vector<DataType> in_types;
  for (const auto& in : n.inputs) {
    if (in.empty()) {
      in_types.push_back(DataType::kUndefined);
      continue;
    }
    const DataType t = type_of(in);
    if (t == DataType::kUndefined) return false;
    any_half |= is_half(t);
    in_types.push_back(is_half(t) ? DataType::kFloat : t);
  }
  for (const auto& o : n.outputs) {
    if (o.empty()) continue;
    const DataType t = type_of(o);
    if (t == DataType::kUndefined) return false;
    any_half |= is_half(t);
  }
  if (!any_half) return false;
  // The Casts around the node must be valid at the graph's opset: Cast takes
  // bfloat16 from opset 13 on, so an older graph keeps its bfloat16 nodes.
  if (model.opset("") < 13) {
    bool bf16 = false;
    for (const auto& v : n.inputs) bf16 |= !v.empty() && type_of(v) == DataType::kBFloat16;
    for (const auto& v : n.outputs) bf16 |= !v.empty() && type_of(v) == DataType::kBFloat16;
    if (bf16) return false;
  }
  return cpu_kernel_registry().lookup(n.domain, n.op_type, model.opset(n.domain), in_types).entry;
}

size_t compute_half_in_float(ir::Model& model, ir::Graph& graph) {
  return HalfToFloat(model, graph).run();
}

}  // namespace tessera::cpu
