#include "ops/type_inference.hpp"

#include <algorithm>

#include "ops/schema.hpp"

namespace tessera::ops {

namespace {

using ir::TypeInfo;
using Kind = TypeInfo::Kind;

TypeInfo tensor_of(DataType t) {
  TypeInfo ti;
  ti.kind = Kind::kTensor;
  ti.elem_type = t;
  return ti;
}

// Input `t`'s type without its shape: a type variable binds the type, not
// the shape. (Built field by field: resetting a copy's optional shape trips
// GCC 12's maybe-uninitialized warning.)
TypeInfo type_only(const TypeInfo& t) {
  TypeInfo r;
  r.kind = t.kind;
  r.elem_type = t.elem_type;
  r.inner = t.inner;
  r.denotation = t.denotation;
  return r;
}

bool known(const TypeInfo& t) {
  return t.kind != Kind::kUnknown &&
         !(t.kind == Kind::kTensor && t.elem_type == DataType::kUndefined);
}

// The node's attribute `name` as a data type, or kUndefined when it is
// absent, not an int, 0 (the spec's "not set") or not a data type.
DataType node_dtype(const ir::Node& n, const std::string& name) {
  const ir::Attribute* a = n.attr(name);
  if (!a || a->type != ir::AttrType::kInt || a->i == 0 || !is_valid_data_type(int32_t(a->i)))
    return DataType::kUndefined;
  return static_cast<DataType>(a->i);
}

// The type of variable `p` at this node: TypeParam's order of sources.
TypeInfo param_type(const OpSchema& s, const TypeParam& p, const ir::Node& n,
                    const std::vector<TypeInfo>& inputs) {
  if (!p.dtype_attr.empty())
    if (DataType t = node_dtype(n, p.dtype_attr); t != DataType::kUndefined) return tensor_of(t);
  std::vector<size_t> bound(p.inputs.begin(), p.inputs.end());
  if (p.variadic && !bound.empty())
    for (size_t i = bound.back() + 1; i < inputs.size(); ++i) bound.push_back(i);
  for (size_t i : bound) {
    if (i >= inputs.size() || i >= n.inputs.size() || n.inputs[i].empty() || !known(inputs[i]))
      continue;
    return type_only(inputs[i]);
  }
  if (p.like_input >= 0 && size_t(p.like_input) < inputs.size() &&
      known(inputs[size_t(p.like_input)])) {
    return type_only(inputs[size_t(p.like_input)]);
  }
  if (!p.dtype_attr.empty())
    if (const AttrDef* d = s.attr_def(p.dtype_attr);
        d && d->i != 0 && is_valid_data_type(int32_t(d->i)))
      return tensor_of(static_cast<DataType>(d->i));
  if (p.fallback != DataType::kUndefined) return tensor_of(p.fallback);
  if (p.allowed.size() == 1) return tensor_of(p.allowed[0]);
  return TypeInfo();
}

// Each output typed by the variable that lists it.
std::vector<TypeInfo> types_from_params(const OpSchema& s, const ir::Node& n,
                                        const std::vector<TypeInfo>& inputs) {
  std::vector<TypeInfo> out(n.outputs.size());
  for (const TypeParam& p : s.types) {
    if (p.outputs.empty()) continue;
    std::vector<size_t> at(p.outputs.begin(), p.outputs.end());
    if (p.variadic_outputs)
      for (size_t o = at.back() + 1; o < out.size(); ++o) at.push_back(o);
    if (std::none_of(at.begin(), at.end(), [&](size_t o) { return o < out.size(); })) continue;
    const TypeInfo t = param_type(s, p, n, inputs);
    for (size_t o : at)
      if (o < out.size()) out[o] = t;
  }
  return out;
}

}  // namespace

std::vector<ir::TypeInfo> infer_output_types(const ir::Node& node, int64_t opset,
                                             const std::vector<ir::TypeInfo>& inputs) {
  const OpSchema* s = find_schema(node, opset);
  if (!s) return std::vector<ir::TypeInfo>(node.outputs.size());
  std::vector<ir::TypeInfo> out =
      s->type_rule ? s->type_rule(node, opset, inputs) : types_from_params(*s, node, inputs);
  out.resize(node.outputs.size());
  return out;
}

}  // namespace tessera::ops
