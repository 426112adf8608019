// Static shapes (shape_inference.hpp): the shape of every value that
// follows from the graph inputs' declared shapes and the constants, full
// where every dim is known, partial (a rank, some dims, the model's symbols)
// where some are not. fold_constants walks with them, folding Shape and Size
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
// time). Partial input shapes go through ops::partial_output_shapes, which
// runs the same rule over probe shapes. The run-time check of inputs against their declared shapes
// keeps these valid for every run.
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

// A node's inputs as the inferrer knows them when every one's shape is full:
// the shapes it recorded or declared, the values of constants.
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
  // Declared shapes (an overridable initializer has its input's, or none).
  auto declare = [&](const ir::ValueInfo& v) {
    if (!v.type.is_tensor() || !v.type.shape) return;
    ops::PartialShape p = *v.type.shape;
    for (auto& dim : p)
      if (dim.value && *dim.value < 0) dim.value.reset();  // -1: an unknown dim
    if (auto full = ops::full_shape(p))
      dims_[v.name] = full->dims();
    else
      partial_[v.name] = std::move(p);
  };
  for (const auto& in : g.inputs) declare(in);
  for (const auto& vi : g.value_info) declare(vi);
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

const ops::PartialShape* ShapeInferrer::partial(const std::string& value) const {
  auto it = partial_.find(value);
  return it == partial_.end() ? nullptr : &it->second;
}

std::optional<ops::PartialShape> ShapeInferrer::shape(const std::string& value) const {
  if (const Dims* d = dims(value)) return ops::to_partial(Shape(*d));
  if (const ops::PartialShape* p = partial(value)) return *p;
  return std::nullopt;
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
  ops::PartialOutShapes out;
  try {
    out = infer(n);
  } catch (const Error&) {
    return;  // an invalid node: its kernel reports it at run time
  }
  for (size_t k = 0; k < n.outputs.size() && k < out.size(); ++k) {
    if (n.outputs[k].empty() || !out[k]) continue;
    if (auto full = ops::full_shape(*out[k])) {
      set(n.outputs[k], full->dims());
    } else {
      dims_.erase(n.outputs[k]);
      partial_[n.outputs[k]] = std::move(*out[k]);
    }
  }
}

ops::PartialOutShapes ShapeInferrer::infer(const ir::Node& n) const {
  if (n.inputs.empty()) return {};
  for (const auto& a : n.attributes)
    if (a.g || !a.graphs.empty()) return {};  // control flow
  const int64_t opset = model_.opset(n.domain);
  const ops::OpSchema* schema = ops::find_schema(n, opset);
  if (!schema || !schema->shape_rule) return {};
  bool all_full = true;
  for (const auto& name : n.inputs) all_full = all_full && (name.empty() || !partial(name));
  ops::PartialOutShapes out;
  if (all_full) {  // the common case: the rule over full shapes, as kernels run it
    const StaticQuery q(*this, n, opset, *schema);
    for (auto& s : schema->shape_rule(q))
      out.push_back(s ? std::optional<ops::PartialShape>(ops::to_partial(*s)) : std::nullopt);
    return out;
  }
  std::vector<std::optional<ops::PartialShape>> held;
  held.reserve(n.inputs.size());
  for (const auto& name : n.inputs) held.push_back(name.empty() ? std::nullopt : shape(name));
  std::vector<const ops::PartialShape*> in;
  for (const auto& h : held) in.push_back(h ? &*h : nullptr);
  const ops::IntsOf ints_of = [&](size_t i) -> std::optional<Dims> {
    return i < n.inputs.size() && !n.inputs[i].empty() ? ints(n.inputs[i]) : std::nullopt;
  };
  return ops::partial_output_shapes(*schema, n, opset, in, ints_of);
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
      auto shape = name.empty() || declared.count(name) ? std::nullopt : inf.shape(name);
      auto t = shape ? types.find(name) : types.end();
      if (t == types.end() || !t->second.is_tensor() || t->second.elem_type == DataType::kUndefined)
        continue;
      found.push_back({name, ir::TypeInfo::tensor(t->second.elem_type, *shape), ""});
      declared.insert(name);
    }
  }
  g.value_info.insert(g.value_info.end(), found.begin(), found.end());
  return found.size();
}

}  // namespace tessera::optimizer
