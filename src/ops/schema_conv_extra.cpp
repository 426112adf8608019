// The convolutions and unpooling outside the Conv family: ConvTranspose,
// DeformConv, MaxUnpool and CausalConvWithState.
#include "ops/conv_transpose.hpp"
#include "ops/schema_families.hpp"

namespace tessera::ops {

std::optional<ConvTransposeGeometry> conv_transpose_geometry(const ShapeQuery& q) {
  using schema::shape_of;
  const Shape* x = shape_of(q, 0);
  const Shape* w = shape_of(q, 1);
  if (!x || !w) return std::nullopt;
  if (x->rank() < 3) q.fail("X must be [N, C, spatial...]: ", q.input_desc(0));
  if (w->rank() != x->rank()) q.fail(q.input_desc(1), " must have the rank of ", q.input_desc(0));
  const int64_t group = q.attr_int("group");
  if (group <= 0) q.fail("group ", group, " is not positive");
  if ((*w)[0] != (*x)[1] || (*x)[1] % group != 0)
    q.fail(q.input_desc(0), " must have W's dim 0 channels, divisible by group ", group, ": ",
           q.input_desc(1));
  int64_t m = 0;
  if (__builtin_mul_overflow((*w)[1], group, &m))
    q.fail(q.input_desc(1), " with group ", group, " has more output channels than int64 holds");
  if (const Shape* b = shape_of(q, 2); b && (b->rank() != 1 || (*b)[0] != m))
    q.fail(q.input_desc(2), " must be [", m, "]");
  const size_t sp = x->rank() - 2;
  ConvTransposeGeometry g;
  g.window = window_spec(q, sp, w);
  if (g.window.kernel != std::vector<int64_t>(w->dims().begin() + 2, w->dims().end()))
    q.fail("kernel_shape ", Shape(g.window.kernel).to_string(), " does not match ",
           q.input_desc(1));
  TransposedWindowSpec t;
  t.auto_pad = g.window.auto_pad;
  t.kernel = g.window.kernel;
  t.strides = g.window.strides;
  t.dilations = g.window.dilations;
  t.pads = g.window.pads;
  t.output_padding = q.attr_ints("output_padding");
  if (t.output_padding.empty()) t.output_padding.assign(sp, 0);
  if (t.output_padding.size() != sp)
    q.fail("output_padding ", Shape(t.output_padding).to_string(), " needs ", sp, " values");
  // output_shape may give N and C too.
  t.output_shape = q.attr_ints("output_shape");
  if (t.output_shape.size() == sp + 2)
    t.output_shape.erase(t.output_shape.begin(), t.output_shape.begin() + 2);
  if (!t.output_shape.empty() && t.output_shape.size() != sp)
    q.fail("output_shape ", Shape(q.attr_ints("output_shape")).to_string(), " needs ", sp,
           " spatial values");
  try {
    g.dims =
        transposed_window_dims(std::vector<int64_t>(x->dims().begin() + 2, x->dims().end()), t);
  } catch (const Error& e) {
    q.fail(e.what());
  }
  std::vector<int64_t> y = {(*x)[0], m};
  y.insert(y.end(), g.dims.out.begin(), g.dims.out.end());
  g.y = Shape(y);
  return g;
}

namespace {

using namespace schema;
using ir::AttrType;

OutShapes conv_transpose(const ShapeQuery& q) {
  auto g = conv_transpose_geometry(q);
  if (!g) return {};
  return {g->y};
}

// DeformConv: Conv's output (its offsets and mask follow the output's size).
OutShapes deform_conv(const ShapeQuery& q) { return conv_of(q, 0, 1); }

// output_shape (input 2) when given; else per spatial dim
// (in - 1) * stride + kernel - pads.
OutShapes max_unpool(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  if (x->rank() < 3) q.fail("X must be [N, C, spatial...]: ", q.input_desc(0));
  if (q.has_input(2)) {
    auto s = q.ints(2);
    if (!s) return {};
    if (s->size() != x->rank())
      q.fail("output_shape ", Shape(*s).to_string(), " needs ", x->rank(), " values");
    for (int64_t d : *s)
      if (d < 0) q.fail("output_shape ", Shape(*s).to_string(), " has a negative size");
    return {Shape(*s)};
  }
  const size_t sp = x->rank() - 2;
  const WindowSpec w = window_spec(q, sp, nullptr);
  std::vector<int64_t> out = {(*x)[0], (*x)[1]};
  for (size_t i = 0; i < sp; ++i) {
    int64_t o = 0;
    if (__builtin_mul_overflow((*x)[i + 2] - 1, w.strides[i], &o) ||
        __builtin_add_overflow(o, w.kernel[i] - w.pads[i] - w.pads[i + sp], &o) || o < 0)
      q.fail("no valid output size for ", q.input_desc(0));
    out.push_back(o);
  }
  return {Shape(out)};
}

// input [B, C, L], weight [C, 1, k] -> output [B, C, L], present_state [B, C, k - 1].
OutShapes causal_conv(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* w = shape_of(q, 1);
  if (!x) return {};
  if (x->rank() != 3) q.fail("input must be [batch, channels, length]: ", q.input_desc(0));
  OutShapes out = {*x};
  if (!w) return out;
  if (w->rank() != 3 || (*w)[0] != (*x)[1] || (*w)[1] != 1 || (*w)[2] < 1)
    q.fail("weight must be [channels, 1, k]: ", q.input_desc(1), " for ", q.input_desc(0));
  out.push_back(Shape{(*x)[0], (*x)[1], (*w)[2] - 1});
  return out;
}

}  // namespace

void add_conv_extra_schemas(std::vector<OpSchema>& t) {
  const std::vector<TypeParam> fl = {same_type(float_types())};
  std::vector<AttrDef> ct = conv_attrs();
  ct.push_back(ints_attr("output_padding"));
  ct.push_back(ints_attr("output_shape"));
  t.push_back({"", "ConvTranspose", 1, ct, fl, type_of_input0, conv_transpose});
  t.push_back({"",
               "DeformConv",
               19,
               {ints_attr("dilations"), int_attr("group", 1), ints_attr("kernel_shape"),
                int_attr("offset_group", 1), ints_attr("pads"), ints_attr("strides")},
               fl,
               type_of_input0,
               deform_conv});
  t.push_back(
      {"",
       "MaxUnpool",
       9,
       {required_attr("kernel_shape", AttrType::kInts), ints_attr("pads"), ints_attr("strides")},
       {{"T1", {0}, {0}, float_types()}, {"T2", {1, 2}, {}, int64_type()}},
       type_of_input0,
       max_unpool});
  t.push_back({"",
               "CausalConvWithState",
               27,
               {string_attr("activation", "none")},
               {same_type({DataType::kFloat, DataType::kFloat16, DataType::kBFloat16})},
               type_of_input0,
               causal_conv});
}

}  // namespace tessera::ops
