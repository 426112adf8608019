// Reductions: Reduce* (axes an attribute until opset 13 for ReduceSum and 18
// for the others, then input 1), ArgMax/ArgMin and TopK.
#include "ops/reduce_axes.hpp"
#include "ops/schema_families.hpp"

namespace tessera::ops {

std::string reduced_axes(const std::vector<int64_t>& axes, size_t rank,
                         std::vector<bool>& reduced) {
  const int64_t r = int64_t(rank);
  reduced.assign(rank, axes.empty());
  for (int64_t a : axes) {
    if (a < -r || a >= r) return str_cat("axis ", a, " is out of range for rank ", rank);
    const size_t k = size_t(a < 0 ? a + r : a);
    if (reduced[k]) return str_cat("axis ", a, " is listed more than once");
    reduced[k] = true;
  }
  return "";
}

// Axes: an attribute before the opset that made them input 1 (13 for
// ReduceSum, 18 for the others).
std::optional<Reduction> reduction_of(const ShapeQuery& q) {
  const Shape* x = q.has_input(0) ? q.shape(0) : nullptr;
  if (!x) return std::nullopt;
  std::vector<int64_t> axes;
  if (q.schema().attr_def("axes")) {
    axes = q.attr_ints("axes");
  } else if (q.has_input(1)) {
    auto v = q.ints(1);
    if (!v) return std::nullopt;
    axes = *v;
  }
  Reduction red;
  if (axes.empty() && q.schema().attr_def("noop_with_empty_axes") &&
      q.attr_int("noop_with_empty_axes") != 0) {
    red.noop = true;
    red.out = *x;
    red.reduced.assign(x->rank(), false);
    return red;
  }
  if (std::string why = reduced_axes(axes, x->rank(), red.reduced); !why.empty())
    q.fail(why, " (", q.input_desc(0), ")");
  const bool keep = q.attr_int("keepdims") != 0;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < x->rank(); ++i) {
    if (!red.reduced[i])
      dims.push_back((*x)[i]);
    else if (keep)
      dims.push_back(1);
  }
  red.out = Shape(dims);
  return red;
}

namespace {

using namespace schema;

OutShapes reduce(const ShapeQuery& q) {
  auto red = reduction_of(q);
  if (!red) return {};
  return {red->out};
}

OutShapes arg_reduce(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  const size_t k = axis_in(q, q.attr_int("axis"), int64_t(x->rank()));
  std::vector<int64_t> dims = x->dims();
  if (q.attr_int("keepdims") != 0)
    dims[k] = 1;
  else
    dims.erase(dims.begin() + int64_t(k));
  return {Shape(dims)};
}

// Values and Indices: the input with K along the axis (K the attribute k
// before opset 10, then input 1, one value).
OutShapes top_k(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  int64_t k = 0;
  if (q.schema().attr_def("k")) {
    k = q.attr_int("k");
  } else {
    auto v = q.ints(1);
    if (!v) return {};
    if (v->size() != 1) q.fail("K must hold one value, got ", Shape(*v).to_string());
    k = (*v)[0];
  }
  const size_t axis = axis_in(q, q.attr_int("axis"), int64_t(x->rank()));
  if (k < 0 || k > (*x)[axis])
    q.fail("K ", k, " is not in [0, ", (*x)[axis], "] for axis ", q.attr_int("axis"), " of ",
           q.input_desc(0));
  std::vector<int64_t> dims = x->dims();
  dims[axis] = k;
  return OutShapes(q.num_outputs(), Shape(dims));
}

}  // namespace

void add_reduce_schemas(std::vector<OpSchema>& t) {
  const TypeParam num = same_type(numeric_types());
  const TypeParam axes_in{"tensor(int64)", {1}, {}, int64_type()};
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
                         "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare"}) {
    const int64_t input_since = std::string(op) == "ReduceSum" ? 13 : 18;
    t.push_back(
        {"", op, 1, {ints_attr("axes"), int_attr("keepdims", 1)}, {num}, type_of_input0, reduce});
    // ReduceMax and ReduceMin take bool from opset 20.
    TypeParam data = num;
    if (std::string(op) == "ReduceMax" || std::string(op) == "ReduceMin")
      data.allowed.push_back(DataType::kBool);
    t.push_back({"",
                 op,
                 input_since,
                 {int_attr("keepdims", 1), int_attr("noop_with_empty_axes", 0)},
                 {data, axes_in},
                 type_of_input0,
                 reduce});
  }
  const std::vector<TypeParam> top_k_types = {{"T", {0}, {0}, numeric_types()},
                                              {"I", {}, {1}, int64_type()}};
  t.push_back({"",
               "TopK",
               1,
               {int_attr("axis", -1), required_attr("k", ir::AttrType::kInt)},
               top_k_types,
               input0_then_int64,
               top_k});
  t.push_back({"", "TopK", 10, {int_attr("axis", -1)}, top_k_types, input0_then_int64, top_k});
  t.push_back({"",
               "TopK",
               11,
               {int_attr("axis", -1), int_attr("largest", 1), int_attr("sorted", 1)},
               top_k_types,
               input0_then_int64,
               top_k});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    const std::vector<TypeParam> types = {{"T", {0}, {}, numeric_types()},
                                          {"tensor(int64)", {}, {0}, int64_type()}};
    t.push_back({"",
                 op,
                 1,
                 {int_attr("axis", 0), int_attr("keepdims", 1)},
                 types,
                 int64_outputs,
                 arg_reduce});
    t.push_back({"",
                 op,
                 12,
                 {int_attr("axis", 0), int_attr("keepdims", 1), int_attr("select_last_index", 0)},
                 types,
                 int64_outputs,
                 arg_reduce});
  }
}

}  // namespace tessera::ops
