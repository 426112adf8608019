// Neural-network ops: MatMul and Gemm, Conv and the pools (their window
// rule is ops/window.hpp's), and the normalizations and activations over an
// axis, whose first output is shaped like their input.
#include <utility>

#include "ops/broadcast.hpp"
#include "ops/schema_families.hpp"
#include "ops/window.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

// numpy.matmul: 1-D operands promoted (and the added dim dropped again),
// batch dims broadcast. com.microsoft's FusedMatMul and TransposeMatMul
// transpose the last two dims of an operand of rank 2 or more by transA /
// transB.
OutShapes matmul(const ShapeQuery& q) { return matmul_of(q, 0, 1); }

}  // namespace

OutShapes matmul_of(const ShapeQuery& q, size_t ia, size_t ib) {
  const Shape* a = shape_of(q, ia);
  const Shape* b = shape_of(q, ib);
  if (!a || !b) return {};
  if (a->rank() == 0 || b->rank() == 0)
    q.fail("MatMul inputs must have rank >= 1: ", q.input_desc(ia), ", ", q.input_desc(ib));
  std::vector<int64_t> ad = a->dims(), bd = b->dims();
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  auto trans = [&](const char* name, bool vec) {
    return !vec && q.schema().attr_def(name) && q.attr_int(name) != 0;
  };
  if (trans("transA", a_vec)) std::swap(ad[ad.size() - 1], ad[ad.size() - 2]);
  if (trans("transB", b_vec)) std::swap(bd[bd.size() - 1], bd[bd.size() - 2]);
  if (a_vec) ad.insert(ad.begin(), 1);
  if (b_vec) bd.push_back(1);
  if (ad.back() != bd[bd.size() - 2])
    q.fail("inner dimensions differ: ", q.input_desc(ia), ", ", q.input_desc(ib));
  Shape batch;
  try {
    batch = broadcast_shapes({Shape(std::vector<int64_t>(ad.begin(), ad.end() - 2)),
                              Shape(std::vector<int64_t>(bd.begin(), bd.end() - 2))});
  } catch (const Error&) {
    q.fail("batch dimensions do not broadcast: ", q.input_desc(ia), ", ", q.input_desc(ib));
  }
  std::vector<int64_t> out = batch.dims();
  if (!a_vec) out.push_back(ad[ad.size() - 2]);
  if (!b_vec) out.push_back(bd.back());
  return {Shape(out)};
}

OutShapes gemm_shapes(const ShapeQuery& q) {
  const Shape* a = shape_of(q, 0);
  const Shape* b = shape_of(q, 1);
  if (!a || !b) return {};
  if (a->rank() != 2 || b->rank() != 2)
    q.fail("Gemm's A and B must be matrices: ", q.input_desc(0), ", ", q.input_desc(1));
  const bool ta = q.attr_int("transA") != 0, tb = q.attr_int("transB") != 0;
  if ((ta ? (*a)[0] : (*a)[1]) != (tb ? (*b)[1] : (*b)[0]))
    q.fail("inner dimensions differ: ", q.input_desc(0), (ta ? " (transposed)" : ""), ", ",
           q.input_desc(1), (tb ? " (transposed)" : ""));
  const int64_t m = ta ? (*a)[1] : (*a)[0], n = tb ? (*b)[0] : (*b)[1];
  // C broadcasts one way to [M, N].
  if (const Shape* c = shape_of(q, 2)) {
    const int64_t cm = c->rank() == 2 ? (*c)[0] : 1, cn = c->rank() ? (*c)[c->rank() - 1] : 1;
    if (c->rank() > 2 || (cm != 1 && cm != m) || (cn != 1 && cn != n))
      q.fail(q.input_desc(2), " does not broadcast to [", m, ",", n, "]");
  }
  return {Shape{m, n}};
}

namespace {

OutShapes first_output_as_input0(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  return {*x};
}

// Each version's attributes and outputs: before 9, `spatial` (and `is_test`
// before 7); before 14, Y then four statistics of X's type; from 14, Y and
// the running mean and variance (training_mode), of the statistics' type U;
// from 15, scale and bias have a type T1 of their own and the statistics T2.
void add_batch_normalization(std::vector<OpSchema>& t) {
  const auto& f = float_types();
  auto bn = [&](int64_t since, std::vector<AttrDef> attrs, std::vector<TypeParam> types) {
    t.push_back({"", "BatchNormalization", since, std::move(attrs), std::move(types), nullptr,
                 first_output_as_input0});
  };
  const AttrDef eps = float_attr("epsilon", 1e-5f), momentum = float_attr("momentum", 0.9f);
  const TypeParam all_t = {"T", {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, f};
  bn(1,
     {eps, momentum, int_attr("spatial", 1), int_attr("is_test", 0),
      optional_attr("consumed_inputs", ir::AttrType::kInts)},
     {all_t});
  bn(7, {eps, momentum, int_attr("spatial", 1)}, {all_t});
  bn(9, {eps, momentum}, {all_t});
  bn(14, {eps, momentum, int_attr("training_mode", 0)},
     {{"T", {0, 1, 2}, {0}, f}, {"U", {3, 4}, {1, 2}, f}});
  bn(15, {eps, momentum, int_attr("training_mode", 0)},
     {{"T", {0}, {0}, f}, {"T1", {1, 2}, {}, f}, {"T2", {3, 4}, {1, 2}, f}});
}

void add_normalizations(std::vector<OpSchema>& t) {
  const TypeParam fl = same_type(float_types());
  auto first = [&](const char* op, int64_t since, std::vector<AttrDef> attrs, TypeRule type) {
    t.push_back({"", op, since, std::move(attrs), {fl}, type, first_output_as_input0});
  };
  add_batch_normalization(t);
  first("InstanceNormalization", 1, {float_attr("epsilon", 1e-5f)}, type_of_input0);
  first("LRN", 1,
        {required_attr("size", ir::AttrType::kInt), float_attr("alpha", 1e-4f),
         float_attr("beta", 0.75f), float_attr("bias", 1.0f)},
        type_of_input0);
  // Mean and InvStdDev have the stash type. Opset 17 made it standard; ONNX
  // Runtime's optimizer writes it into the default domain of models of any
  // opset, with the same attributes.
  t.push_back({"",
               "LayerNormalization",
               1,
               {int_attr("axis", -1), float_attr("epsilon", 1e-5f), int_attr("stash_type", 1)},
               {{"T", {0, 1, 2}, {0}, float_types()},
                {"U", {}, {1, 2}, float_types(), false, "stash_type"}},
               nullptr,
               first_output_as_input0});
  first("LpNormalization", 1, {int_attr("axis", -1), int_attr("p", 2)}, type_of_input0);
  first("MeanVarianceNormalization", 9, {ints_attr("axes", {0, 2, 3})}, type_of_input0);
  // The softmax family's axis was 1 (over the flattened trailing dims) before opset 13.
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    first(op, 1, {int_attr("axis", 1)}, type_of_input0);
    first(op, 13, {int_attr("axis", -1)}, type_of_input0);
  }
  // The mask had the data's type before opset 10, bool from then on.
  const TypeParam mask{"T1", {}, {1}, bool_type()};
  TypeParam data_and_mask = fl;
  data_and_mask.outputs = {0, 1};
  t.push_back({"",
               "Dropout",
               1,
               {float_attr("ratio", 0.5f)},
               {data_and_mask},
               nullptr,
               same_shape_as_input0});
  t.push_back(
      {"", "Dropout", 10, {float_attr("ratio", 0.5f)}, {fl, mask}, nullptr, same_shape_as_input0});
  // From 12 ratio and training_mode are inputs 1 and 2.
  const std::vector<TypeParam> dropout12 = {
      {"T", {0}, {0}, fl.allowed}, {"T1", {1}, {}, fl.allowed}, {"T2", {2}, {1}, bool_type()}};
  t.push_back({"", "Dropout", 12, {int_attr("seed", 0)}, dropout12, nullptr, same_shape_as_input0});
  std::vector<TypeParam> dropout22 = dropout12;  // opset 22 adds the 8-bit floats
  for (int k : {0, 1})
    dropout22[size_t(k)].allowed.insert(dropout22[size_t(k)].allowed.end(), float8_types().begin(),
                                        float8_types().end());
  t.push_back({"", "Dropout", 22, {int_attr("seed", 0)}, dropout22, nullptr, same_shape_as_input0});
}

}  // namespace

void add_nn_schemas(std::vector<OpSchema>& t) {
  const TypeParam fl = same_type(numeric_types());
  t.push_back({"", "MatMul", 1, {}, {fl}, type_of_input0, matmul});
  t.push_back({"",
               "Gemm",
               1,
               {float_attr("alpha", 1.0f), float_attr("beta", 1.0f), int_attr("transA", 0),
                int_attr("transB", 0)},
               {fl},
               type_of_input0,
               gemm_shapes});
  for (const char* op : {"FusedMatMul", "TransposeMatMul"})
    t.push_back({"com.microsoft",
                 op,
                 1,
                 {float_attr("alpha", 1.0f), int_attr("transA", 0), int_attr("transB", 0),
                  int_attr("transBatchA", 0), int_attr("transBatchB", 0)},
                 {same_type(float_types())},
                 type_of_input0,
                 matmul});
  // A is a sparse tensor (unchecked here: the constraints read dense inputs);
  // Y is dense, of B's type, and its shape depends on A's dense shape, which
  // static shapes do not carry.
  const TypeParam sparse_matmul_t{"T",
                                  {1},
                                  {0},
                                  {DataType::kFloat, DataType::kDouble, DataType::kInt32,
                                   DataType::kInt64, DataType::kUInt32, DataType::kUInt64}};
  t.push_back({"com.microsoft",
               "SparseToDenseMatMul",
               1,
               {float_attr("alpha", 1.0f), int_attr("transA", 0), int_attr("transB", 0)},
               {sparse_matmul_t},
               type_of_input1,
               unknown_shapes});
  add_normalizations(t);
  add_window_schemas(t);
  add_qdq_schemas(t);
}

}  // namespace tessera::ops
