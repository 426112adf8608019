// Indexing and per-element ops not covered by the elementwise family:
// GatherElements, GatherND, Scatter, TensorScatter, OneHot, ReverseSequence,
// CumProd, BitCast, BitwiseNot, Det and Einsum.
#include "ops/einsum_labels.hpp"
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

// The output has the indices' shape; both have the data's rank.
OutShapes gather_elements(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* i = shape_of(q, 1);
  if (!x || !i) return {};
  if (x->rank() == 0 || i->rank() != x->rank())
    q.fail(q.input_desc(1), " must have the rank of ", q.input_desc(0), " (at least 1)");
  axis_in(q, q.attr_int("axis"), int64_t(x->rank()));
  return {*i};
}

// indices [b..., q..., k] pick slices data[b..., k dims, rest...]:
// output = indices' dims but the last, then data's dims after batch_dims + k.
OutShapes gather_nd(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* i = shape_of(q, 1);
  if (!x || !i) return {};
  const int64_t b = q.schema().attr_def("batch_dims") ? q.attr_int("batch_dims") : 0;
  const int64_t r = int64_t(x->rank()), qr = int64_t(i->rank());
  if (r < 1 || qr < 1 || b < 0 || b >= std::min(r, qr))
    q.fail("batch_dims ", b, " must be below the ranks of ", q.input_desc(0), " and ",
           q.input_desc(1));
  const int64_t k = (*i)[size_t(qr - 1)];
  if (k < 1 || k > r - b)
    q.fail("the last dim of ", q.input_desc(1), " must be in [1, ", r - b, "]");
  for (size_t d = 0; d < size_t(b); ++d)
    if ((*i)[d] != (*x)[d])
      q.fail("the batch dims of ", q.input_desc(0), " and ", q.input_desc(1), " differ");
  std::vector<int64_t> out(i->dims().begin(), i->dims().end() - 1);
  out.insert(out.end(), x->dims().begin() + b + k, x->dims().end());
  return {Shape(out)};
}

// depth (input 1) values inserted at `axis` of the indices' shape.
OutShapes one_hot(const ShapeQuery& q) {
  const Shape* i = shape_of(q, 0);
  auto depth = q.ints(1);
  if (!i || !depth) return {};
  if (depth->size() != 1) q.fail("depth must hold one value: ", q.input_desc(1));
  if ((*depth)[0] < 1) q.fail("depth ", (*depth)[0], " is not positive");
  const int64_t r = int64_t(i->rank()) + 1;
  std::vector<int64_t> out = i->dims();
  out.insert(out.begin() + int64_t(axis_in(q, q.attr_int("axis"), r)), (*depth)[0]);
  return {Shape(out)};
}

// [..., M, M] -> [...]
OutShapes det(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  const size_t r = x->rank();
  if (r < 2 || (*x)[r - 1] != (*x)[r - 2])
    q.fail("Det needs square matrices in the last two dims: ", q.input_desc(0));
  return {Shape(std::vector<int64_t>(x->dims().begin(), x->dims().end() - 2))};
}

// The same bit width in and out (the spec's condition): the shape is kept.
OutShapes bit_cast(const ShapeQuery& q) {
  const int64_t to = q.attr_int("to");
  if (!is_valid_data_type(int32_t(to)) || to == int64_t(DataType::kString))
    q.fail("'to' ", to, " is not a non-string data type");
  return same_shape_as_input0(q);
}

// OneHot's output has the type of its values (input 2).
std::vector<ir::TypeInfo> values_type(const ir::Node& n, int64_t,
                                      const std::vector<ir::TypeInfo>& in) {
  return std::vector<ir::TypeInfo>(n.outputs.size(), in.size() > 2 ? in[2] : ir::TypeInfo());
}

// The equation's output labels, sized from the inputs.
OutShapes einsum(const ShapeQuery& q) {
  std::vector<Shape> in;
  if (!all_input_shapes(q, &in)) return {};
  try {
    return {einsum_labels(parse_einsum(q.attr_string("equation")), in).out_shape()};
  } catch (const Error& e) {
    q.fail(e.what());
  }
}

std::vector<DataType> without_2bit(std::vector<DataType> v) {
  std::erase_if(v, [](DataType t) { return t == DataType::kInt2 || t == DataType::kUInt2; });
  return v;
}

}  // namespace

void add_index_schemas(std::vector<OpSchema>& t) {
  const TypeParam data{"T", {0}, {0}, standard_types()};
  const TypeParam tind{"Tind", {1}, {}, index_types()};
  t.push_back({"",
               "GatherElements",
               11,
               {int_attr("axis", 0)},
               {data, tind},
               type_of_input0,
               gather_elements});
  t.push_back({"",
               "GatherND",
               11,
               {},
               {data, {"indices", {1}, {}, int64_type()}},
               type_of_input0,
               gather_nd});
  t.push_back({"",
               "GatherND",
               12,
               {int_attr("batch_dims", 0)},
               {data, {"indices", {1}, {}, int64_type()}},
               type_of_input0,
               gather_nd});
  // Scatter: ScatterElements under its old name (deprecated at opset 11).
  t.push_back({"",
               "Scatter",
               9,
               {int_attr("axis", 0)},
               {{"T", {0, 2}, {0}, standard_types()}, tind},
               type_of_input0,
               same_shape_as_input0});
  t.push_back(
      {"",
       "TensorScatter",
       24,
       {int_attr("axis", -2), string_attr("mode", "linear")},
       {{"T", {0, 1}, {0}, without_2bit(all_types())}, {"write_indices", {2}, {}, int64_type()}},
       type_of_input0,
       same_shape_as_input0});
  std::vector<DataType> one_hot_in = numeric_types();
  std::erase(one_hot_in, DataType::kBFloat16);
  t.push_back({"",
               "OneHot",
               9,
               {int_attr("axis", -1)},
               {{"T1", {0}, {}, one_hot_in},
                {"T2", {1}, {}, one_hot_in},
                {"T3", {2}, {0}, standard_types()}},
               values_type,
               one_hot});
  t.push_back({"",
               "ReverseSequence",
               10,
               {int_attr("batch_axis", 1), int_attr("time_axis", 0)},
               {data, {"sequence_lens", {1}, {}, int64_type()}},
               type_of_input0,
               same_shape_as_input0});
  t.push_back({"",
               "CumProd",
               26,
               {int_attr("exclusive", 0), int_attr("reverse", 0)},
               {{"T",
                 {0},
                 {0},
                 {DataType::kUInt32, DataType::kUInt64, DataType::kInt32, DataType::kInt64,
                  DataType::kFloat16, DataType::kFloat, DataType::kDouble, DataType::kBFloat16}},
                {"T2", {1}, {}, index_types()}},
               type_of_input0,
               same_shape_as_input0});
  const std::vector<DataType> bits = [] {
    std::vector<DataType> v = all_types();
    std::erase(v, DataType::kString);
    return v;
  }();
  t.push_back({"",
               "BitCast",
               26,
               {required_attr("to", AttrType::kInt)},
               {{"T1", {0}, {}, bits}, {"T2", {}, {0}, bits, false, "to"}},
               nullptr,
               bit_cast});
  t.push_back({"",
               "BitwiseNot",
               18,
               {},
               {same_type(integer_types())},
               type_of_input0,
               same_shape_as_input0});
  TypeParam operands{"T", {0}, {0}, numeric_types()};
  std::erase(operands.allowed, DataType::kBFloat16);
  operands.variadic = true;
  t.push_back({"",
               "Einsum",
               12,
               {required_attr("equation", AttrType::kString)},
               {operands},
               type_of_input0,
               einsum});
  t.push_back({"", "Det", 11, {}, {same_type(float_types())}, type_of_input0, det});
}

}  // namespace tessera::ops
