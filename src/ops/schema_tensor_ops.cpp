// Ops that read shapes (Shape, Size, ConstantOfShape), that grow tensors
// (Expand, Tile, Pad), and the ones whose output is shaped like their data
// (CumSum, ScatterElements, ScatterND, Trilu).
#include <algorithm>

#include "ops/schema_families.hpp"
#include "ops/shape_rules.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

// start and end (opset 15): shape_range's.
OutShapes shape_op(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  const auto [b, e] = shape_range(int64_t(x->rank()), shape_start(q.schema(), q.node()),
                                  shape_end(q.schema(), q.node()));
  return {Shape{e - b}};
}

OutShapes size_op(const ShapeQuery& q) { return shape_of(q, 0) ? OutShapes{Shape{}} : OutShapes{}; }

OutShapes constant_of_shape(const ShapeQuery& q) {
  auto target = q.ints(0);
  if (!target) return {};
  for (int64_t d : *target)
    if (d < 0) q.fail("shape ", Shape(*target).to_string(), " has a negative dimension");
  return {Shape(*target)};
}

// The type of `value` (a one-element tensor), float when it is absent.
std::vector<ir::TypeInfo> constant_of_shape_type(const ir::Node& n, int64_t,
                                                 const std::vector<ir::TypeInfo>&) {
  const ir::Attribute* a = n.attr("value");
  ir::TypeInfo t;
  t.kind = ir::TypeInfo::Kind::kTensor;
  t.elem_type = a && a->t.defined() ? a->t.dtype() : DataType::kFloat;
  return {t};
}

OutShapes expand(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  auto target = q.ints(1);
  if (!x || !target) return {};
  try {
    return {expand_shape(*x, Shape(*target))};
  } catch (const Error& e) {
    q.fail(e.what());
  }
}

// Tile-1 repeats one axis (input 2) `tiles` (input 1) times; from opset 6
// input 1 holds a count per axis.
OutShapes tile(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  auto rep = q.ints(1);
  if (!x || !rep) return {};
  if (q.schema().since < 6) {
    auto axis = q.ints(2);
    if (!axis || axis->size() != 1 || rep->size() != 1) return {};
    std::vector<int64_t> all(x->rank(), 1);
    all[axis_in(q, (*axis)[0], int64_t(x->rank()))] = (*rep)[0];
    rep = all;
  }
  if (rep->size() != x->rank())
    q.fail("repeats ", Shape(*rep).to_string(), " need one value per axis of ", q.input_desc(0));
  std::vector<int64_t> out = x->dims();
  for (size_t i = 0; i < out.size(); ++i) {
    if ((*rep)[i] < 0) q.fail("repeats ", Shape(*rep).to_string(), " hold a negative value");
    if (__builtin_mul_overflow(out[i], (*rep)[i], &out[i]))
      q.fail("tiling ", q.input_desc(0), " by ", Shape(*rep).to_string(), " overflows int64");
  }
  return {Shape(out)};
}

// pads: the attribute before opset 11 (`paddings` in Pad-1), input 1
// after; with axes (input 3, opset 18) the shape is left to the kernel.
OutShapes pad(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x || q.has_input(3)) return {};
  const char* attr = q.schema().attr_def("pads") ? "pads" : "paddings";
  auto pads = q.schema().attr_def(attr) ? std::optional(q.attr_ints(attr)) : q.ints(1);
  if (!pads) return {};
  const size_t r = x->rank();
  if (pads->size() != 2 * r)
    q.fail("pads ", Shape(*pads).to_string(), " need ", 2 * r, " values for ", q.input_desc(0));
  std::vector<int64_t> out = x->dims();
  for (size_t i = 0; i < r; ++i)
    if (__builtin_add_overflow(out[i], (*pads)[i], &out[i]) ||
        __builtin_add_overflow(out[i], (*pads)[i + r], &out[i]) || out[i] < 0)
      q.fail("pads ", Shape(*pads).to_string(), " leave no valid shape for ", q.input_desc(0));
  return {Shape(out)};
}

void add_data_shaped(std::vector<OpSchema>& t) {
  const TypeParam any = same_type(all_types());
  t.push_back({"",
               "CumSum",
               11,
               {int_attr("exclusive", 0), int_attr("reverse", 0)},
               {same_type(numeric_types()), {"T2", {1}, {}, index_types()}},
               type_of_input0,
               same_shape_as_input0});
  t.push_back({"",
               "ScatterElements",
               11,
               {int_attr("axis", 0)},
               {any},
               type_of_input0,
               same_shape_as_input0});
  t.push_back({"",
               "ScatterElements",
               16,
               {int_attr("axis", 0), string_attr("reduction", "none")},
               {any},
               type_of_input0,
               same_shape_as_input0});
  t.push_back({"", "ScatterND", 11, {}, {any}, type_of_input0, same_shape_as_input0});
  t.push_back({"",
               "ScatterND",
               16,
               {string_attr("reduction", "none")},
               {any},
               type_of_input0,
               same_shape_as_input0});
  t.push_back(
      {"", "Trilu", 14, {int_attr("upper", 1)}, {any}, type_of_input0, same_shape_as_input0});
}

}  // namespace

int64_t shape_start(const OpSchema& s, const ir::Node& n) {
  return s.attr_def("start") ? s.attr_int(n, "start") : 0;
}

std::optional<int64_t> shape_end(const OpSchema& s, const ir::Node& n) {
  if (!s.attr_def("end") || !n.attr("end")) return std::nullopt;
  return s.attr_int(n, "end");
}

void add_tensor_op_schemas(std::vector<OpSchema>& t) {
  const TypeParam any = same_type(all_types());
  const TypeParam shape_in{"T1", {1}, {}, int64_type()};
  const TypeParam out_i64{"T1", {}, {0}, int64_type()};
  t.push_back(
      {"", "Shape", 1, {}, {{"T", {0}, {}, all_types()}, out_i64}, int64_outputs, shape_op});
  t.push_back({"",
               "Shape",
               15,
               {int_attr("start", 0), int_attr("end", 0)},
               {{"T", {0}, {}, all_types()}, out_i64},
               int64_outputs,
               shape_op});
  t.push_back({"", "Size", 1, {}, {{"T", {0}, {}, all_types()}, out_i64}, int64_outputs, size_op});
  t.push_back({"",
               "ConstantOfShape",
               9,
               {optional_attr("value", ir::AttrType::kTensor)},
               {{"T1", {0}, {}, int64_type()}, {"T2", {}, {0}, all_types()}},
               constant_of_shape_type,
               constant_of_shape});
  t.push_back({"", "Expand", 8, {}, {any, shape_in}, type_of_input0, expand});
  t.push_back({"", "Tile", 1, {}, {any}, type_of_input0, tile});
  t.push_back({"", "Tile", 6, {}, {any, shape_in}, type_of_input0, tile});
  t.push_back({"",
               "Pad",
               1,
               {ints_attr("paddings"), string_attr("mode", "constant"), float_attr("value", 0.0f)},
               {any},
               type_of_input0,
               pad});
  t.push_back({"",
               "Pad",
               2,
               {ints_attr("pads"), string_attr("mode", "constant"), float_attr("value", 0.0f)},
               {any},
               type_of_input0,
               pad});
  t.push_back(
      {"", "Pad", 11, {string_attr("mode", "constant")}, {any, shape_in}, type_of_input0, pad});
  add_data_shaped(t);
}

}  // namespace tessera::ops
