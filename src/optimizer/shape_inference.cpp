// Static shapes (shape_inference.hpp): the shape of every value that
// follows from the graph inputs' declared shapes (when every dim is a number)
// and the constants. fold_constants walks with them, folding Shape and Size
// of activations and then what reads them: torch exports shape arithmetic
// that runs at run time (Swin-T's window padding and attention masks: some
// 40 Shape, Gather, Range, Where, ScatterND... nodes a block), which a model
// with static input shapes need not run at all. infer_static_shapes writes
// them into value_info for the later passes.
//
// The rules are the op schemas' (ops/schema.hpp), the ones the kernels size
// their outputs with, so a shape recorded here is the one the kernel makes.
// A rule says "unknown" for an input it needs and does not have here, and an
// input it rejects leaves the shape unknown too (the kernel reports it at run
// time). The run-time check of inputs against their declared shapes keeps
// these valid for every run.
#include "optimizer/shape_inference.hpp"

#include <cstdint>
#include <set>

#include "core/error.hpp"
#include "ops/graph_types.hpp"
#include "ops/schema.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

using Dims = ShapeInferrer::Dims;
using OutDims = std::vector<std::optional<Dims>>;

// A node's inputs as the inferrer knows them: the shapes it recorded or
// declared, the values of constants.
class StaticQuery : public ops::ShapeQuery {
 public:
  StaticQuery(const ShapeInferrer& inf, const ir::Node& n, int64_t opset, const ops::OpSchema& s)
      : ops::ShapeQuery(n, opset, s), inf_(inf) {
    for (const auto& name : n.inputs) {
      const Dims* d = name.empty() ? nullptr : inf.dims(name);
      shapes_.push_back(d ? std::optional<Shape>(Shape(*d)) : std::nullopt);
    }
  }
  const Shape* shape(size_t i) const override {
    return i < shapes_.size() && shapes_[i] ? &*shapes_[i] : nullptr;
  }
  std::optional<std::vector<int64_t>> ints(size_t i) const override {
    return has_input(i) ? inf_.ints(node().inputs[i]) : std::nullopt;
  }

 private:
  const ShapeInferrer& inf_;
  std::vector<std::optional<Shape>> shapes_;
};

}  // namespace

ShapeInferrer::ShapeInferrer(const ir::Model& m, const ir::Graph& g) : model_(m), g_(g) {
  for (const auto& in : g.inputs) graph_inputs_.insert(in.name);
  // Graph inputs: their declared shapes, when every dim is a number (an
  // overridable initializer has that one too, or none known).
  // The shape a type declares, when every dim is a number.
  auto full_dims = [](const ir::TypeInfo& t) -> std::optional<Dims> {
    if (!t.is_tensor() || !t.shape) return std::nullopt;
    Dims d;
    for (const auto& dim : *t.shape) {
      if (!dim.value || *dim.value < 0) return std::nullopt;
      d.push_back(*dim.value);
    }
    return d;
  };
  for (const auto& in : g.inputs)
    if (auto d = full_dims(in.type)) dims_[in.name] = std::move(*d);
  for (const auto& vi : g.value_info)
    if (auto d = full_dims(vi.type)) dims_[vi.name] = std::move(*d);
}

const Tensor* ShapeInferrer::constant(const std::string& value) const {
  if (value.empty() || graph_inputs_.count(value)) return nullptr;
  auto it = g_.initializers.find(value);
  return it == g_.initializers.end() ? nullptr : &it->second;
}

const Dims* ShapeInferrer::dims(const std::string& value) const {
  auto it = dims_.find(value);
  if (it != dims_.end()) return &it->second;
  const Tensor* t = constant(value);
  return t ? &t->shape().dims() : nullptr;
}

// The integer values of constant `value` (int64 or int32), when constant.
std::optional<Dims> ShapeInferrer::ints(const std::string& value) const {
  const Tensor* t = constant(value);
  if (!t) return std::nullopt;
  Dims out;
  if (t->dtype() == DataType::kInt64)
    out.assign(t->data<int64_t>(), t->data<int64_t>() + t->num_elements());
  else if (t->dtype() == DataType::kInt32)
    out.assign(t->data<int32_t>(), t->data<int32_t>() + t->num_elements());
  else
    return std::nullopt;
  return out;
}

void ShapeInferrer::visit(const ir::Node& n) {
  OutDims out;
  try {
    out = infer(n);
  } catch (const Error&) {
    return;  // an invalid node: its kernel reports it at run time
  }
  for (size_t k = 0; k < n.outputs.size() && k < out.size(); ++k)
    if (!n.outputs[k].empty() && out[k]) dims_[n.outputs[k]] = *out[k];
}

OutDims ShapeInferrer::infer(const ir::Node& n) const {
  if (n.inputs.empty()) return {};
  for (const auto& a : n.attributes)
    if (a.g || !a.graphs.empty()) return {};  // control flow
  const int64_t opset = model_.opset(n.domain);
  const ops::OpSchema* schema = ops::find_schema(n, opset);
  if (!schema || !schema->shape_rule) return {};
  const StaticQuery q(*this, n, opset, *schema);
  OutDims out;
  for (auto& s : schema->shape_rule(q))
    out.push_back(s ? std::optional<Dims>(s->dims()) : std::nullopt);
  return out;
}

size_t infer_static_shapes(const ir::Model& model, ir::Graph& g) {
  ops::ValueTypes types;  // element types, as the session plan infers them
  ops::infer_graph_types(model, g, types);
  ShapeInferrer inf(model, g);
  std::set<std::string> declared;  // names the graph already describes
  for (const auto& vi : g.value_info) declared.insert(vi.name);
  for (const auto& o : g.outputs) declared.insert(o.name);
  for (const auto& in : g.inputs) declared.insert(in.name);
  std::vector<ir::ValueInfo> found;
  for (const auto& n : g.nodes) {
    inf.visit(n);
    for (const auto& name : n.outputs) {
      const Dims* d = name.empty() || declared.count(name) ? nullptr : inf.dims(name);
      auto t = d ? types.find(name) : types.end();
      if (t == types.end() || !t->second.is_tensor() || t->second.elem_type == DataType::kUndefined)
        continue;
      std::vector<ir::Dim> shape;
      for (int64_t v : *d) shape.push_back(ir::Dim{v, ""});
      found.push_back({name, ir::TypeInfo::tensor(t->second.elem_type, shape), ""});
      declared.insert(name);
    }
  }
  g.value_info.insert(g.value_info.end(), found.begin(), found.end());
  return found.size();
}

}  // namespace tessera::optimizer
