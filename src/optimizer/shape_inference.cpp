// Static shapes (shape_inference.hpp): the shape of every value that
// follows from the graph inputs' declared shapes (when every dim is a number)
// and the constants. fold_constants walks with them, folding Shape and Size
// of activations and then what reads them: torch exports shape arithmetic
// that runs at run time (Swin-T's window padding and attention masks: some
// 40 Shape, Gather, Range, Where, ScatterND... nodes a block), which a model
// with static input shapes need not run at all. infer_static_shapes writes
// them into value_info for the later passes.
//
// Only exact rules: a shape is recorded only when the op's output shape is
// certain from its inputs' shapes, attributes and constant inputs (anything
// else, e.g. a pool with ceil_mode, stays unknown). The run-time check of
// inputs against their declared shapes keeps these valid for every run.
#include "optimizer/shape_inference.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include "core/error.hpp"
#include "ops/broadcast.hpp"
#include "ops/graph_types.hpp"
#include "ops/shape_rules.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

using Dims = ShapeInferrer::Dims;
using OutDims = std::vector<std::optional<Dims>>;

// Ops whose first output has the first input's shape.
const std::set<std::string>& same_shape_ops() {
  static const std::set<std::string> s = {"Abs",
                                          "Acos",
                                          "Acosh",
                                          "Asin",
                                          "Asinh",
                                          "Atan",
                                          "Atanh",
                                          "BatchNormalization",
                                          "Cast",
                                          "CastLike",
                                          "Ceil",
                                          "Celu",
                                          "Clip",
                                          "Cos",
                                          "Cosh",
                                          "CumSum",
                                          "DequantizeLinear",
                                          "Dropout",
                                          "Elu",
                                          "Erf",
                                          "Exp",
                                          "Floor",
                                          "Gelu",
                                          "HardSigmoid",
                                          "HardSwish",
                                          "Hardmax",
                                          "Identity",
                                          "InstanceNormalization",
                                          "IsInf",
                                          "IsNaN",
                                          "LRN",
                                          "LayerNormalization",
                                          "LeakyRelu",
                                          "Log",
                                          "LogSoftmax",
                                          "LpNormalization",
                                          "MeanVarianceNormalization",
                                          "Mish",
                                          "Neg",
                                          "Not",
                                          "PRelu",
                                          "QuantizeLinear",
                                          "Reciprocal",
                                          "Relu",
                                          "Round",
                                          "ScatterElements",
                                          "ScatterND",
                                          "Selu",
                                          "Shrink",
                                          "Sigmoid",
                                          "Sign",
                                          "Sin",
                                          "Sinh",
                                          "Softmax",
                                          "Softplus",
                                          "Softsign",
                                          "Sqrt",
                                          "Tan",
                                          "Tanh",
                                          "ThresholdedRelu",
                                          "Trilu"};
  return s;
}

// Ops whose output is their inputs broadcast together.
const std::set<std::string>& broadcast_ops() {
  static const std::set<std::string> s = {
      "Add",  "And",         "BitShift", "Div",  "Equal", "Greater", "GreaterOrEqual",
      "Less", "LessOrEqual", "Max",      "Mean", "Min",   "Mod",     "Mul",
      "Or",   "Pow",         "Sub",      "Sum",  "Where", "Xor"};
  return s;
}

const std::set<std::string>& reduce_ops() {
  static const std::set<std::string> s = {
      "ReduceL1",   "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
      "ReduceMean", "ReduceMin", "ReduceProd",   "ReduceSum",       "ReduceSumSquare"};
  return s;
}

// Dims come from the model (declared input shapes, constants): arithmetic on
// them is checked, and a result that overflows is no shape.
std::optional<int64_t> product(const Dims& d, size_t b, size_t e) {
  int64_t p = 1;
  for (size_t i = b; i < e; ++i)
    if (__builtin_mul_overflow(p, d[i], &p)) return std::nullopt;
  return p;
}

// `a` made non-negative for rank `r`, or -1 when out of range.
int64_t norm_axis(int64_t a, int64_t r) {
  if (a < 0) a += r;
  return a >= 0 && a < r ? a : -1;
}

// Conv (w: the filter's dims) and the windowed pools (w null).
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

// A list attribute `name`, or the constant input `index` (for ops that moved
// it to an input at some opset); nullopt when it is an input that is not
// constant, an empty optional inside when neither is given.
std::optional<std::optional<Dims>> ShapeInferrer::attr_or_input(const ir::Node& n, const char* name,
                                                                size_t index) const {
  if (const ir::Attribute* a = n.attr(name)) return std::optional<Dims>(a->ints);
  if (n.inputs.size() > index && !n.inputs[index].empty()) {
    auto v = ints(n.inputs[index]);
    if (!v) return std::nullopt;
    return std::optional<Dims>(*v);
  }
  return std::optional<Dims>();
}

// The axes a Reduce* or Squeeze lists (attribute, or constant input 1) as
// a mask over x's axes; an empty optional inside when it lists none (or an
// empty list); nullopt when they are not constant or out of range.
std::optional<std::optional<std::vector<bool>>> ShapeInferrer::listed_axes(const ir::Node& n,
                                                                           const Dims& x) const {
  auto axes = attr_or_input(n, "axes", 1);
  if (!axes) return std::nullopt;
  if (!*axes || (*axes)->empty()) return std::optional<std::vector<bool>>();
  std::vector<bool> mask(x.size(), false);
  for (int64_t a : **axes) {
    const int64_t k = norm_axis(a, int64_t(x.size()));
    if (k < 0) return std::nullopt;
    mask[size_t(k)] = true;
  }
  return std::optional<std::vector<bool>>(mask);
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

OutDims ShapeInferrer::window(const ir::Node& n, const Dims& x, const Dims* w, bool conv) const {
  if (x.size() < 3) return {};
  const size_t sp = x.size() - 2;
  Dims kernel;
  if (const ir::Attribute* k = n.attr("kernel_shape"))
    kernel = k->ints;
  else if (w && w->size() == x.size())
    kernel.assign(w->begin() + 2, w->end());
  if (kernel.size() != sp) return {};
  if (!conv && attr_int(n, "ceil_mode", 0) != 0) return {};
  auto list = [&](const char* name, int64_t def, size_t len) {
    const ir::Attribute* a = n.attr(name);
    return a && !a->ints.empty() ? a->ints : Dims(len, def);
  };
  const Dims strides = list("strides", 1, sp), dil = list("dilations", 1, sp);
  const Dims pads = list("pads", 0, 2 * sp);
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) return {};
  const ir::Attribute* ap = n.attr("auto_pad");
  const std::string auto_pad = ap && !ap->s.empty() ? ap->s : "NOTSET";
  Dims out = {x[0], conv ? (*w)[0] : x[1]};
  for (size_t i = 0; i < sp; ++i) {
    if (strides[i] <= 0 || dil[i] <= 0 || kernel[i] <= 0 || pads[i] < 0 || pads[i + sp] < 0)
      return {};
    const int64_t in = x[i + 2];
    int64_t span = 0, padded = 0, o = 0;
    if (__builtin_mul_overflow(kernel[i] - 1, dil[i], &span) ||
        __builtin_add_overflow(in, pads[i], &padded) ||
        __builtin_add_overflow(padded, pads[i + sp], &padded) || in > INT64_MAX / 2 ||
        strides[i] > INT64_MAX / 2)
      return {};
    span += 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")
      o = (in + strides[i] - 1) / strides[i];
    else if (auto_pad == "VALID")
      o = in >= span ? (in - span) / strides[i] + 1 : 0;
    else if (auto_pad == "NOTSET")
      o = padded >= span ? (padded - span) / strides[i] + 1 : 0;
    else
      return {};
    if (o <= 0) return {};  // the kernel reports it
    out.push_back(o);
  }
  OutDims r = {out};
  if (n.op_type == "MaxPool" && n.outputs.size() > 1) r.push_back(out);  // indices
  return r;
}

OutDims ShapeInferrer::infer(const ir::Node& n) const {
  if (!ir::is_onnx_domain(n.domain) || n.inputs.empty()) return {};
  for (const auto& a : n.attributes)
    if (a.g || !a.graphs.empty()) return {};  // control flow
  const std::string& op = n.op_type;
  const int64_t opset = model_.opset(n.domain);
  const Dims* x = n.inputs[0].empty() ? nullptr : dims(n.inputs[0]);
  if (same_shape_ops().count(op)) {
    if (!x) return {};
    if (op == "Dropout") return {*x, *x};  // the mask too
    return {*x};
  }
  if (broadcast_ops().count(op)) {
    std::vector<Shape> in;
    for (const auto& name : n.inputs) {
      const Dims* d = name.empty() ? nullptr : dims(name);
      if (!d) return {};
      in.emplace_back(*d);
    }
    return {ops::broadcast_shapes(in).dims()};
  }
  if (reduce_ops().count(op)) {
    if (!x) return {};
    // Axes: an attribute before the opset that made them an input (13 for
    // ReduceSum, 18 for the others).
    auto listed = listed_axes(n, *x);
    if (!listed) return {};
    std::vector<bool> reduce(x->size(), true);  // no axes: all of them
    if (*listed)
      reduce = **listed;
    else if (attr_int(n, "noop_with_empty_axes", 0))
      return {*x};
    const bool keep = attr_int(n, "keepdims", 1) != 0;
    Dims out;
    for (size_t i = 0; i < x->size(); ++i) {
      if (!reduce[i])
        out.push_back((*x)[i]);
      else if (keep)
        out.push_back(1);
    }
    return {out};
  }
  if (op == "ArgMax" || op == "ArgMin") {
    if (!x) return {};
    const int64_t k = norm_axis(attr_int(n, "axis", 0), int64_t(x->size()));
    if (k < 0) return {};
    Dims out = *x;
    if (attr_int(n, "keepdims", 1))
      out[size_t(k)] = 1;
    else
      out.erase(out.begin() + k);
    return {out};
  }
  if (op == "MatMul" && n.inputs.size() == 2) {
    const Dims* b = dims(n.inputs[1]);
    if (!x || !b || x->empty() || b->empty()) return {};
    Dims a = *x, bb = *b;
    const bool a_vec = a.size() == 1, b_vec = bb.size() == 1;
    if (a_vec) a.insert(a.begin(), 1);
    if (b_vec) bb.push_back(1);
    if (a.back() != bb[bb.size() - 2]) return {};
    const Dims out_batch = ops::broadcast_shapes({Shape(Dims(a.begin(), a.end() - 2)),
                                                  Shape(Dims(bb.begin(), bb.end() - 2))})
                               .dims();
    Dims out = out_batch;
    if (!a_vec) out.push_back(a[a.size() - 2]);
    if (!b_vec) out.push_back(bb.back());
    return {out};
  }
  if (op == "Gemm" && n.inputs.size() >= 2) {
    const Dims* b = dims(n.inputs[1]);
    if (!x || !b || x->size() != 2 || b->size() != 2) return {};
    const bool ta = attr_int(n, "transA", 0), tb = attr_int(n, "transB", 0);
    if ((ta ? (*x)[0] : (*x)[1]) != (tb ? (*b)[1] : (*b)[0])) return {};
    return {Dims{ta ? (*x)[1] : (*x)[0], tb ? (*b)[0] : (*b)[1]}};
  }
  if (op == "Conv" && n.inputs.size() >= 2) {
    const Dims* w = dims(n.inputs[1]);
    if (!x || !w || w->size() != x->size()) return {};
    return window(n, *x, w, true);
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    if (!x) return {};
    return window(n, *x, nullptr, false);
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool") {
    if (!x || x->size() < 3) return {};
    Dims out(x->size(), 1);
    out[0] = (*x)[0], out[1] = (*x)[1];
    return {out};
  }
  if (op == "Transpose") {
    if (!x) return {};
    const int64_t r = int64_t(x->size());
    Dims perm;
    if (const ir::Attribute* p = n.attr("perm"))
      perm = p->ints;
    else
      for (int64_t k = r - 1; k >= 0; --k) perm.push_back(k);
    if (int64_t(perm.size()) != r) return {};
    Dims out;
    std::vector<bool> seen(size_t(r), false);
    for (int64_t p : perm) {
      const int64_t k = norm_axis(p, r);
      if (k < 0 || seen[size_t(k)]) return {};
      seen[size_t(k)] = true;
      out.push_back((*x)[size_t(k)]);
    }
    return {out};
  }
  if (op == "Reshape" && n.inputs.size() == 2) {
    auto spec = ints(n.inputs[1]);
    if (!x || !spec) return {};
    return {ops::reshape_shape(Shape(*x), *spec, attr_int(n, "allowzero", 0) != 0).dims()};
  }
  if (op == "Flatten") {
    if (!x) return {};
    const int64_t r = int64_t(x->size());
    int64_t a = attr_int(n, "axis", 1);
    if (a < 0) a += r;
    if (a < 0 || a > r) return {};
    const auto outer = product(*x, 0, size_t(a)), inner = product(*x, size_t(a), x->size());
    if (!outer || !inner) return {};
    return {Dims{*outer, *inner}};
  }
  if (op == "Squeeze") {
    if (!x) return {};
    auto listed = listed_axes(n, *x);
    if (!listed) return {};
    std::vector<bool> drop(x->size(), false);
    for (size_t i = 0; i < x->size(); ++i) {
      drop[i] = *listed ? (**listed)[i] : (*x)[i] == 1;  // no axes: every 1
      if (drop[i] && (*x)[i] != 1) return {};
    }
    Dims out;
    for (size_t i = 0; i < x->size(); ++i)
      if (!drop[i]) out.push_back((*x)[i]);
    return {out};
  }
  if (op == "Unsqueeze") {
    if (!x) return {};
    auto axes = attr_or_input(n, "axes", 1);
    if (!axes || !*axes) return {};
    const int64_t r = int64_t(x->size() + (*axes)->size());
    std::vector<bool> one(size_t(r), false);
    for (int64_t a : **axes) {
      const int64_t k = norm_axis(a, r);
      if (k < 0 || one[size_t(k)]) return {};
      one[size_t(k)] = true;
    }
    Dims out;
    size_t j = 0;
    for (int64_t i = 0; i < r; ++i) out.push_back(one[size_t(i)] ? 1 : (*x)[j++]);
    return {out};
  }
  if (op == "Concat") {
    // The kernels' rule; anything it refuses stays unknown here.
    std::vector<Shape> shapes;
    for (const auto& name : n.inputs) {
      const Dims* d = name.empty() ? nullptr : dims(name);
      if (!d) return {};
      shapes.emplace_back(*d);
    }
    std::vector<const Shape*> in;
    for (const Shape& x : shapes) in.push_back(&x);
    try {
      size_t axis = 0;
      return {ops::concat_shape(in, attr_int(n, "axis", 0), &axis).dims()};
    } catch (const Error&) {
      return {};
    }
  }
  if (op == "Slice") {
    if (!x) return {};
    Dims starts, ends, axes, steps;
    if (opset < 10) {
      const ir::Attribute* s = n.attr("starts");
      const ir::Attribute* e = n.attr("ends");
      if (!s || !e) return {};
      starts = s->ints, ends = e->ints;
      if (const ir::Attribute* a = n.attr("axes")) axes = a->ints;
    } else {
      auto s = ints(n.inputs.size() > 1 ? n.inputs[1] : "");
      auto e = ints(n.inputs.size() > 2 ? n.inputs[2] : "");
      if (!s || !e) return {};
      starts = *s, ends = *e;
      for (size_t i : {size_t(3), size_t(4)}) {
        if (n.inputs.size() <= i || n.inputs[i].empty()) continue;
        auto v = ints(n.inputs[i]);
        if (!v) return {};
        (i == 3 ? axes : steps) = *v;
      }
    }
    return {ops::slice_window(Shape(*x), starts, ends, axes, steps).dims};
  }
  if (op == "Split") {
    if (!x) return {};
    const int64_t axis_attr = attr_int(n, "axis", 0);
    const int64_t k = norm_axis(axis_attr, int64_t(x->size()));
    if (k < 0) return {};
    auto split = attr_or_input(n, "split", 1);
    if (!split) return {};
    const auto sizes = ops::split_sizes(Shape(*x), size_t(k), axis_attr, int64_t(n.outputs.size()),
                                        *split ? **split : Dims{}, opset);
    if (sizes.size() != n.outputs.size()) return {};
    OutDims out;
    for (int64_t s : sizes) {
      Dims d = *x;
      d[size_t(k)] = s;
      out.push_back(d);
    }
    return out;
  }
  if (op == "Gather" && n.inputs.size() == 2) {
    const Dims* idx = dims(n.inputs[1]);
    if (!x || !idx) return {};
    const int64_t k = norm_axis(attr_int(n, "axis", 0), int64_t(x->size()));
    if (k < 0) return {};
    Dims out(x->begin(), x->begin() + k);
    out.insert(out.end(), idx->begin(), idx->end());
    out.insert(out.end(), x->begin() + k + 1, x->end());
    return {out};
  }
  if (op == "Shape") {
    if (!x) return {};
    const int64_t r = int64_t(x->size());
    auto clamp_axis = [r](int64_t a) { return std::clamp(a < 0 ? a + r : a, int64_t(0), r); };
    const int64_t s = clamp_axis(attr_int(n, "start", 0)), e = clamp_axis(attr_int(n, "end", r));
    return {Dims{std::max<int64_t>(0, e - s)}};
  }
  if (op == "Size") return x ? OutDims{Dims{}} : OutDims{};
  if (op == "ConstantOfShape") {
    auto target = ints(n.inputs[0]);
    if (!target) return {};
    for (int64_t d : *target)
      if (d < 0) return {};
    return {*target};
  }
  if (op == "Expand" && n.inputs.size() == 2) {
    auto target = ints(n.inputs[1]);
    if (!x || !target) return {};
    return {ops::expand_shape(Shape(*x), Shape(*target)).dims()};
  }
  if (op == "Tile" && n.inputs.size() == 2) {
    auto rep = ints(n.inputs[1]);
    if (!x || !rep || rep->size() != x->size()) return {};
    Dims out = *x;
    for (size_t i = 0; i < out.size(); ++i) {
      if ((*rep)[i] < 0) return {};
      if (__builtin_mul_overflow(out[i], (*rep)[i], &out[i])) return {};
    }
    return {out};
  }
  if (op == "Pad") {
    if (!x) return {};
    if (n.inputs.size() > 3 && !n.inputs[3].empty()) return {};  // axes: not handled
    auto pads = attr_or_input(n, "pads", 1);
    if (!pads || !*pads || (*pads)->size() != 2 * x->size()) return {};
    Dims out = *x;
    for (size_t i = 0; i < out.size(); ++i) {
      if (__builtin_add_overflow(out[i], (**pads)[i], &out[i]) ||
          __builtin_add_overflow(out[i], (**pads)[i + out.size()], &out[i]) || out[i] < 0)
        return {};
    }
    return {out};
  }
  return {};
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
