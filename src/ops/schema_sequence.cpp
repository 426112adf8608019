// Sequence and optional ops. Their outputs are mostly sequences or
// optionals, which have no tensor shape; SequenceLength and
// OptionalHasElement give scalars.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::TypeInfo;
using Kind = TypeInfo::Kind;

TypeInfo wrap(Kind kind, TypeInfo inner) {
  TypeInfo t;
  t.kind = kind;
  t.inner = std::make_shared<TypeInfo>(std::move(inner));
  return t;
}

TypeInfo inner_of(const TypeInfo& t) {
  if ((t.kind == Kind::kSequence || t.kind == Kind::kOptional) && t.inner) return *t.inner;
  return TypeInfo();
}

TypeInfo input(const std::vector<TypeInfo>& in, size_t i) {
  return i < in.size() ? in[i] : TypeInfo();
}

std::vector<TypeInfo> all(const ir::Node& n, const TypeInfo& t) {
  return std::vector<TypeInfo>(n.outputs.size(), t);
}

std::vector<TypeInfo> empty_sequence(const ir::Node& n, int64_t, const std::vector<TypeInfo>&) {
  return all(n, wrap(Kind::kSequence, TypeInfo::tensor(attr_dtype(n, "dtype", DataType::kFloat))));
}

std::vector<TypeInfo> sequence_of_input0(const ir::Node& n, int64_t,
                                         const std::vector<TypeInfo>& in) {
  return all(n, wrap(Kind::kSequence, input(in, 0)));
}

std::vector<TypeInfo> element_of_input0(const ir::Node& n, int64_t,
                                        const std::vector<TypeInfo>& in) {
  return all(n, inner_of(input(in, 0)));
}

// Each output a sequence of the body's output type.
std::vector<TypeInfo> sequence_map_types(const ir::Node& n, int64_t, const std::vector<TypeInfo>&) {
  std::vector<TypeInfo> out(n.outputs.size());
  const std::vector<TypeInfo> body = graph_output_types(n, "body");
  for (size_t i = 0; i < out.size() && i < body.size(); ++i)
    out[i] = wrap(Kind::kSequence, body[i]);
  return out;
}

// Optional of the `type` attribute, else of the input's type.
std::vector<TypeInfo> optional_types(const ir::Node& n, int64_t, const std::vector<TypeInfo>& in) {
  const ir::Attribute* a = n.attr("type");
  if (a && a->type == ir::AttrType::kTypeProto) return all(n, wrap(Kind::kOptional, a->tp));
  return all(n, wrap(Kind::kOptional, input(in, 0)));
}

// The element of an optional; a tensor or sequence given as it is (opset 18).
std::vector<TypeInfo> optional_element(const ir::Node& n, int64_t,
                                       const std::vector<TypeInfo>& in) {
  const TypeInfo t = input(in, 0);
  return all(n, t.kind == Kind::kOptional ? inner_of(t) : t);
}

OutShapes scalar(const ShapeQuery& q) { return OutShapes(q.num_outputs(), Shape{}); }

}  // namespace

void add_sequence_schemas(std::vector<OpSchema>& t) {
  const TypeParam index{"I", {}, {}, index_types()};
  auto with_index = [&](std::vector<int> inputs) {
    TypeParam p = index;
    p.inputs = std::move(inputs);
    return std::vector<TypeParam>{p};
  };
  t.push_back(
      {"", "SequenceEmpty", 11, {int_attr("dtype", 1)}, {}, empty_sequence, unknown_shapes});
  TypeParam construct{"T", {0}, {}, all_types()};
  construct.variadic = true;
  t.push_back({"", "SequenceConstruct", 11, {}, {construct}, sequence_of_input0, unknown_shapes});
  t.push_back({"", "SequenceInsert", 11, {}, with_index({2}), type_of_input0, unknown_shapes});
  t.push_back({"", "SequenceErase", 11, {}, with_index({1}), type_of_input0, unknown_shapes});
  t.push_back({"", "SequenceAt", 11, {}, with_index({1}), element_of_input0, unknown_shapes});
  t.push_back({"", "SequenceLength", 11, {}, {}, int64_outputs, scalar});
  // The joined shape depends on the sequence's tensors, known only at run time.
  t.push_back({"",
               "ConcatFromSequence",
               11,
               {required_attr("axis", ir::AttrType::kInt), int_attr("new_axis", 0)},
               {},
               element_of_input0,
               unknown_shapes});
  t.push_back({"",
               "SplitToSequence",
               11,
               {int_attr("axis", 0), int_attr("keepdims", 1)},
               {{"T", {0}, {}, all_types()}, {"I", {1}, {}, index_types()}},
               sequence_of_input0,
               unknown_shapes});
  t.push_back({"",
               "SequenceMap",
               17,
               {required_attr("body", ir::AttrType::kGraph)},
               {},
               sequence_map_types,
               unknown_shapes});
  t.push_back({"", "Optional", 15, {}, {}, optional_types, unknown_shapes});
  for (int64_t since : {15, 18}) {
    t.push_back({"", "OptionalGetElement", since, {}, {}, optional_element, unknown_shapes});
    t.push_back({"", "OptionalHasElement", since, {}, {}, bool_outputs, scalar});
  }
}

}  // namespace tessera::ops
