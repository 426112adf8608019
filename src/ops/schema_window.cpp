// Conv and the pools: the output is (N, C or M, the window's sizes); the
// global pools keep N and C and make every spatial dim 1.
#include "ops/schema_families.hpp"
#include "ops/window.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

OutShapes windowed(const ShapeQuery& q, const Shape& x, int64_t channels, const Shape* w) {
  if (x.rank() < 3) q.fail("expected an input of rank 3 or more, got ", q.input_desc(0));
  const size_t sp = x.rank() - 2;
  const WindowSpec spec = window_spec(q, sp, w);
  WindowDims d;
  try {
    d = window_dims(std::vector<int64_t>(x.dims().begin() + 2, x.dims().end()), spec);
  } catch (const Error& e) {
    q.fail(e.what());
  }
  std::vector<int64_t> out = {x[0], channels};
  out.insert(out.end(), d.out.begin(), d.out.end());
  return OutShapes(q.num_outputs(), Shape(out));  // MaxPool's indices too
}

OutShapes conv(const ShapeQuery& q) { return conv_of(q, 0, 1); }

OutShapes pool(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  return windowed(q, *x, x->rank() > 1 ? (*x)[1] : 0, nullptr);
}

OutShapes global_pool(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  if (x->rank() < 3) q.fail("expected an input of rank 3 or more, got ", q.input_desc(0));
  std::vector<int64_t> out(x->rank(), 1);
  out[0] = (*x)[0], out[1] = (*x)[1];
  return {Shape(out)};
}

std::vector<AttrDef> window_attrs(std::vector<AttrDef> more) {
  std::vector<AttrDef> a = {string_attr("auto_pad", "NOTSET"), ints_attr("kernel_shape"),
                            ints_attr("pads"), ints_attr("strides")};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

}  // namespace

// The window's attributes with their defaults filled in for `sp` spatial
// dims (kernel_shape from the filter `w` when absent, for Conv).
WindowSpec window_spec(const ShapeQuery& q, size_t sp, const Shape* w) {
  WindowSpec s;
  // DeformConv has no auto_pad.
  s.auto_pad = q.schema().attr_def("auto_pad") ? q.attr_string("auto_pad") : "NOTSET";
  if (s.auto_pad.empty()) s.auto_pad = "NOTSET";
  if (s.auto_pad != "NOTSET" && s.auto_pad != "SAME_UPPER" && s.auto_pad != "SAME_LOWER" &&
      s.auto_pad != "VALID")
    q.fail("auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got '", s.auto_pad, "'");
  s.kernel = q.attr_ints("kernel_shape");
  if (s.kernel.empty() && w) s.kernel.assign(w->dims().begin() + 2, w->dims().end());
  auto list = [&](const char* name, int64_t def, size_t len) {
    if (!q.schema().attr_def(name)) return std::vector<int64_t>(len, def);
    std::vector<int64_t> v = q.attr_ints(name);
    return v.empty() ? std::vector<int64_t>(len, def) : v;
  };
  s.strides = list("strides", 1, sp);
  s.dilations = list("dilations", 1, sp);
  s.pads = list("pads", 0, 2 * sp);
  s.ceil_mode = q.schema().attr_def("ceil_mode") && q.attr_int("ceil_mode") != 0;
  auto check = [&](const char* name, const std::vector<int64_t>& v, size_t len, int64_t least) {
    if (v.size() != len)
      q.fail(name, " ", Shape(v).to_string(), " need ", len, " values for ", q.input_desc(0));
    for (int64_t x : v)
      if (x < least)
        q.fail(name, " ", Shape(v).to_string(), " must be ", least ? "positive" : "non-negative");
  };
  check("kernel_shape", s.kernel, sp, 1);
  check("strides", s.strides, sp, 1);
  check("dilations", s.dilations, sp, 1);
  check("pads", s.pads, 2 * sp, 0);
  return s;
}

OutShapes conv_of(const ShapeQuery& q, size_t ix, size_t iw) {
  const Shape* x = shape_of(q, ix);
  const Shape* w = shape_of(q, iw);
  if (!x || !w) return {};
  if (w->rank() != x->rank())
    q.fail("the filter ", q.input_desc(iw), " must have the rank of ", q.input_desc(ix));
  if (x->rank() < 3) q.fail("expected an input of rank 3 or more, got ", q.input_desc(ix));
  const int64_t group = q.attr_int("group");
  if (group <= 0 || (*x)[1] != (*w)[1] * group)
    q.fail(q.input_desc(ix), " has not group (", group, ") times the filter's channels (",
           q.input_desc(iw), ")");
  return {windowed(q, *x, (*w)[0], w)[0]};
}

std::vector<AttrDef> conv_attrs() {
  return window_attrs({ints_attr("dilations"), int_attr("group", 1)});
}

void add_window_schemas(std::vector<OpSchema>& t) {
  const std::vector<TypeParam> fl = {same_type(float_types())};
  t.push_back({"", "Conv", 1, window_attrs({ints_attr("dilations"), int_attr("group", 1)}), fl,
               type_of_input0, conv});
  const AttrDef kernel = required_attr("kernel_shape", ir::AttrType::kInts);
  auto pool_attrs = [&](std::vector<AttrDef> more) {
    std::vector<AttrDef> a = window_attrs(std::move(more));
    a[1] = kernel;
    return a;
  };
  t.push_back({"", "MaxPool", 1, pool_attrs({}), fl, input0_then_int64, pool});
  t.push_back(
      {"", "MaxPool", 8, pool_attrs({int_attr("storage_order", 0)}), fl, input0_then_int64, pool});
  const TypeParam indices{"I", {}, {1}, int64_type()};  // opset 8 adds Indices
  t.back().types.push_back(indices);
  // From opset 12 MaxPool takes int8 and uint8 too.
  std::vector<TypeParam> fl_int8 = fl;
  fl_int8[0].allowed.insert(fl_int8[0].allowed.end(), {DataType::kInt8, DataType::kUInt8});
  t.push_back(
      {"", "MaxPool", 10,
       pool_attrs({int_attr("storage_order", 0), int_attr("ceil_mode", 0), ints_attr("dilations")}),
       fl, input0_then_int64, pool});
  t.back().types.push_back(indices);
  t.push_back(
      {"", "MaxPool", 12,
       pool_attrs({int_attr("storage_order", 0), int_attr("ceil_mode", 0), ints_attr("dilations")}),
       fl_int8, input0_then_int64, pool});
  t.back().types.push_back(indices);
  t.push_back({"", "AveragePool", 1, pool_attrs({}), fl, type_of_input0, pool});
  t.push_back({"", "AveragePool", 7, pool_attrs({int_attr("count_include_pad", 0)}), fl,
               type_of_input0, pool});
  t.push_back({"", "AveragePool", 10,
               pool_attrs({int_attr("count_include_pad", 0), int_attr("ceil_mode", 0)}), fl,
               type_of_input0, pool});
  t.push_back({"", "AveragePool", 19,
               pool_attrs({int_attr("count_include_pad", 0), int_attr("ceil_mode", 0),
                           ints_attr("dilations")}),
               fl, type_of_input0, pool});
  // LpPool-1 and GlobalLpPool-1 had a float p.
  t.push_back({"", "LpPool", 1, pool_attrs({float_attr("p", 2.0f)}), fl, type_of_input0, pool});
  t.push_back({"", "LpPool", 2, pool_attrs({int_attr("p", 2)}), fl, type_of_input0, pool});
  t.push_back({"", "LpPool", 18,
               pool_attrs({int_attr("p", 2), int_attr("ceil_mode", 0), ints_attr("dilations")}), fl,
               type_of_input0, pool});
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"})
    t.push_back({"", op, 1, {}, fl, type_of_input0, global_pool});
  t.push_back({"", "GlobalLpPool", 1, {float_attr("p", 2.0f)}, fl, type_of_input0, global_pool});
  t.push_back({"", "GlobalLpPool", 2, {int_attr("p", 2)}, fl, type_of_input0, global_pool});
}

}  // namespace tessera::ops
