// Reductions: Reduce* (axes an attribute until opset 13 for ReduceSum and 18
// for the others, then input 1) and ArgMax/ArgMin.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

// No axes reduce every axis, unless noop_with_empty_axes (then the output is
// the input). Repeated axes count once.
OutShapes reduce(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  std::vector<int64_t> axes;
  if (q.schema().attr_def("axes")) {
    axes = q.attr_ints("axes");
  } else if (q.has_input(1)) {
    auto v = q.ints(1);
    if (!v) return {};
    axes = *v;
  }
  const int64_t r = int64_t(x->rank());
  std::vector<bool> reduced(size_t(r), axes.empty());
  if (axes.empty() && q.schema().attr_def("noop_with_empty_axes") &&
      q.attr_int("noop_with_empty_axes") != 0)
    return {*x};
  for (int64_t a : axes) reduced[axis_in(q, a, r)] = true;
  const bool keep = q.attr_int("keepdims") != 0;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < size_t(r); ++i) {
    if (!reduced[i])
      dims.push_back((*x)[i]);
    else if (keep)
      dims.push_back(1);
  }
  return {Shape(dims)};
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

}  // namespace

void add_reduce_schemas(std::vector<OpSchema>& t) {
  const TypeParam num = same_type(numeric_types());
  const TypeParam axes_in{"tensor(int64)", {1}, {}, int64_type()};
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
                         "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare"}) {
    const int64_t input_since = std::string(op) == "ReduceSum" ? 13 : 18;
    t.push_back(
        {"", op, 1, {ints_attr("axes"), int_attr("keepdims", 1)}, {num}, type_of_input0, reduce});
    t.push_back({"",
                 op,
                 input_since,
                 {int_attr("keepdims", 1), int_attr("noop_with_empty_axes", 0)},
                 {num, axes_in},
                 type_of_input0,
                 reduce});
  }
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
