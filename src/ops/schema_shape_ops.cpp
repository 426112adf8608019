// Ops that rearrange tensors: Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Concat, Split, Slice, Gather.
#include <algorithm>

#include "ops/schema_families.hpp"
#include "ops/shape_rules.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

// The shared rules (shape_rules.hpp) say what is wrong; this adds the node.
template <typename Fn>
auto named(const ShapeQuery& q, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kInvalidArgument) throw;
    q.fail(e.what());
  }
}

// A list attribute (where the op's version has it), else input `i`'s
// values; nullopt when that input is not known, an empty list when neither
// is given.
std::optional<std::vector<int64_t>> attr_or_input(const ShapeQuery& q, const char* name, size_t i) {
  if (q.schema().attr_def(name) && q.has_attr(name)) return q.attr_ints(name);
  if (!q.has_input(i)) return std::vector<int64_t>{};
  return q.ints(i);
}

OutShapes reshape(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!q.schema().attr_def("shape") && !q.has_input(1)) q.fail("input 1 (shape) is missing");
  auto spec = q.schema().attr_def("shape") ? q.attr_ints("shape") : q.ints(1);
  if (!x || !spec) return {};
  const bool allowzero = q.schema().attr_def("allowzero") && q.attr_int("allowzero") != 0;
  return {named(q, [&] { return reshape_shape(*x, *spec, allowzero); })};
}

OutShapes flatten(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  const int64_t r = int64_t(x->rank()), a0 = q.attr_int("axis");
  const int64_t a = a0 < 0 ? a0 + r : a0;
  if (a < 0 || a > r) q.fail("axis ", a0, " is out of range for ", q.input_desc(0));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i)
    if (__builtin_mul_overflow(i < a ? outer : inner, (*x)[size_t(i)], i < a ? &outer : &inner))
      q.fail(q.input_desc(0), " has more elements than int64 holds");
  return {Shape{outer, inner}};
}

// Squeeze with no axes (or an empty list) drops every dim of size 1.
OutShapes squeeze(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  auto axes = attr_or_input(q, "axes", 1);
  if (!x || !axes) return {};
  const int64_t r = int64_t(x->rank());
  std::vector<bool> drop(size_t(r), axes->empty());
  for (size_t k = 0; axes->empty() && k < x->rank(); ++k) drop[k] = (*x)[k] == 1;
  for (int64_t a : *axes) {
    const size_t k = axis_in(q, a, r);
    if ((*x)[k] != 1)
      q.fail("cannot squeeze axis ", a, " of shape ", x->to_string(), ": its size is not 1 (",
             q.input_desc(0), ")");
    drop[k] = true;
  }
  std::vector<int64_t> dims;
  for (size_t k = 0; k < x->rank(); ++k)
    if (!drop[k]) dims.push_back((*x)[k]);
  return {Shape(dims)};
}

OutShapes unsqueeze(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  auto axes = attr_or_input(q, "axes", 1);
  if (!x || !axes) return {};
  if (axes->empty()) q.fail("axes are required");
  const int64_t r = int64_t(x->rank() + axes->size());
  std::vector<bool> one(size_t(r), false);
  for (int64_t a : *axes) {
    if (a < -r || a >= r)
      q.fail("axis ", a, " is out of range for output rank ", r, " (", q.input_desc(0), ")");
    const size_t k = size_t(a < 0 ? a + r : a);
    if (one[k]) q.fail("axis ", a, " is repeated");
    one[k] = true;
  }
  std::vector<int64_t> dims;
  size_t j = 0;
  for (size_t k = 0; k < size_t(r); ++k) dims.push_back(one[k] ? 1 : (*x)[j++]);
  return {Shape(dims)};
}

// perm absent: the axes reversed.
OutShapes transpose(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  const size_t r = x->rank();
  std::vector<int64_t> perm = q.attr_ints("perm");
  if (!q.has_attr("perm"))
    for (size_t k = 0; k < r; ++k) perm.push_back(int64_t(r - 1 - k));
  if (perm.size() != r) q.fail("perm has ", perm.size(), " entries for ", q.input_desc(0));
  std::vector<bool> seen(r, false);
  std::vector<int64_t> dims;
  for (int64_t p : perm) {
    const int64_t k = p < 0 ? p + int64_t(r) : p;
    if (k < 0 || k >= int64_t(r) || seen[size_t(k)])
      q.fail("perm ", Shape(perm).to_string(), " is not a permutation of the axes of ",
             q.input_desc(0));
    seen[size_t(k)] = true;
    dims.push_back((*x)[size_t(k)]);
  }
  return {Shape(dims)};
}

std::string shapes_list(const std::vector<const Shape*>& in) {
  std::string s;
  for (const Shape* x : in) s += str_cat(s.empty() ? "" : ", ", x->to_string());
  return s;
}

// The inputs have one rank above 0 and equal dims off the axis; the axis'
// sum must fit in int64.
OutShapes concat(const ShapeQuery& q) {
  std::vector<const Shape*> in;
  for (size_t i = 0; i < q.num_inputs(); ++i) {
    const Shape* s = shape_of(q, i);
    if (!s) return {};
    in.push_back(s);
  }
  if (in.empty()) q.fail("needs at least one input");
  const Shape& s0 = *in[0];
  const int64_t r = int64_t(s0.rank()), axis_attr = q.attr_int("axis");
  if (r == 0) q.fail("cannot concatenate scalars (", q.input_desc(0), ")");
  if (axis_attr < -r || axis_attr >= r)
    q.fail("axis ", axis_attr, " is out of range for inputs of shapes ", shapes_list(in));
  const size_t k = size_t(axis_attr < 0 ? axis_attr + r : axis_attr);
  std::vector<int64_t> dims = s0.dims();
  dims[k] = 0;
  for (const Shape* x : in) {
    bool same = x->rank() == s0.rank();
    for (size_t d = 0; same && d < s0.rank(); ++d) same = d == k || (*x)[d] == s0[d];
    if (!same)
      q.fail("inputs of shapes ", shapes_list(in), " differ outside the concatenation axis ",
             axis_attr);
    if (__builtin_add_overflow(dims[k], (*x)[k], &dims[k]))
      q.fail("the sizes along the concatenation axis ", axis_attr, " of inputs of shapes ",
             shapes_list(in), " overflow int64");
  }
  return {Shape(dims)};
}

OutShapes split(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  auto sizes = attr_or_input(q, "split", 1);
  if (!x || !sizes) return {};
  const int64_t axis_attr = q.attr_int("axis");
  const size_t k = axis_in(q, axis_attr, int64_t(x->rank()));
  const int64_t n = int64_t(q.num_outputs());
  if (q.schema().attr_def("num_outputs") && q.has_attr("num_outputs") &&
      q.attr_int("num_outputs") != n)
    q.fail("num_outputs ", q.attr_int("num_outputs"), " differs from the node's ", n, " outputs");
  auto parts = named(q, [&] { return split_sizes(*x, k, axis_attr, n, *sizes, q.opset()); });
  OutShapes out;
  for (int64_t s : parts) {
    std::vector<int64_t> d = x->dims();
    d[k] = s;
    out.push_back(Shape(d));
  }
  return out;
}

OutShapes slice(const ShapeQuery& q) {
  auto w = slice_window(q);
  if (!w) return {};
  return {Shape(w->dims)};
}

OutShapes gather(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* idx = shape_of(q, 1);
  if (!x || !idx) return {};
  const size_t k = axis_in(q, q.attr_int("axis"), int64_t(x->rank()));
  std::vector<int64_t> d(x->dims().begin(), x->dims().begin() + int64_t(k));
  d.insert(d.end(), idx->dims().begin(), idx->dims().end());
  d.insert(d.end(), x->dims().begin() + int64_t(k) + 1, x->dims().end());
  return {Shape(d)};
}

}  // namespace

void add_shape_op_schemas(std::vector<OpSchema>& t) {
  const TypeParam any = same_type(all_types());
  TypeParam every_input = any;  // Concat's inputs: one type
  every_input.variadic = true;
  const TypeParam shape_in{"T1", {1}, {}, int64_type()};
  t.push_back({"", "Reshape", 1, {ints_attr("shape")}, {any}, type_of_input0, reshape});
  t.push_back({"", "Reshape", 5, {}, {any, shape_in}, type_of_input0, reshape});
  t.push_back(
      {"", "Reshape", 14, {int_attr("allowzero", 0)}, {any, shape_in}, type_of_input0, reshape});
  t.push_back({"", "Flatten", 1, {int_attr("axis", 1)}, {any}, type_of_input0, flatten});
  for (auto [op, rule] :
       {std::pair<const char*, ShapeRule>{"Squeeze", squeeze}, {"Unsqueeze", unsqueeze}}) {
    t.push_back({"", op, 1, {ints_attr("axes")}, {any}, type_of_input0, rule});
    t.push_back({"", op, 13, {}, {any, shape_in}, type_of_input0, rule});
  }
  t.push_back({"", "Transpose", 1, {ints_attr("perm")}, {any}, type_of_input0, transpose});
  // Concat's axis had a default (1) only in opset 1.
  t.push_back({"", "Concat", 1, {int_attr("axis", 1)}, {every_input}, type_of_input0, concat});
  t.push_back({"",
               "Concat",
               4,
               {required_attr("axis", ir::AttrType::kInt)},
               {every_input},
               type_of_input0,
               concat});
  t.push_back(
      {"", "Split", 1, {int_attr("axis", 0), ints_attr("split")}, {any}, type_of_input0, split});
  t.back().types[0].variadic_outputs = true;
  t.push_back(
      {"", "Split", 2, {int_attr("axis", 0), ints_attr("split")}, {any}, type_of_input0, split});
  t.back().types[0].variadic_outputs = true;
  t.push_back({"", "Split", 13, {int_attr("axis", 0)}, {any, shape_in}, type_of_input0, split});
  t.back().types[0].variadic_outputs = true;
  t.push_back({"",
               "Split",
               18,
               {int_attr("axis", 0), int_attr("num_outputs", 0)},
               {any, shape_in},
               type_of_input0,
               split});
  t.back().types[0].variadic_outputs = true;
  t.push_back({"",
               "Slice",
               1,
               {required_attr("starts", ir::AttrType::kInts),
                required_attr("ends", ir::AttrType::kInts), ints_attr("axes")},
               {any},
               type_of_input0,
               slice});
  t.push_back({"",
               "Slice",
               10,
               {},
               {any, {"Tind", {1, 2, 3, 4}, {}, index_types()}},
               type_of_input0,
               slice});
  t.push_back({"",
               "Gather",
               1,
               {int_attr("axis", 0)},
               {{"T", {0}, {0}, all_types()}, {"Tind", {1}, {}, index_types()}},
               type_of_input0,
               gather});
}

}  // namespace tessera::ops
