#include "ops/function_bodies.hpp"

#include <limits>

#include "core/error.hpp"
#include "ops/function_text.hpp"

namespace tessera::ops {

namespace {

constexpr int64_t kOpen = std::numeric_limits<int32_t>::max();

using Row = FunctionRow;

// Constants are float attributes cast to the input's type with CastLike, as
// the spec's bodies do, so one body serves every float type. Optional inputs
// that the caller omits become empty names; the bodies pass them only to
// variadic ops (Sum, Max, Min), which the expansion then calls without them.
const Row kRows[] = {
    {"", "Celu", 15, kOpen, "", "", false, R"(
Celu <alpha: float = 1.0> (X) => (Y) {
  alpha_f = Constant <value_float = @alpha> ()
  alpha_t = CastLike (alpha_f, X)
  X_alpha = Div (X, alpha_t)
  elu = Elu <alpha = 1.0> (X_alpha)
  Y = Mul (alpha_t, elu)
})"},
    {"", "Elu", 15, kOpen, "", "", false, R"(
Elu <alpha: float = 1.0> (X) => (Y) {
  alpha_f = Constant <value_float = @alpha> ()
  alpha_t = CastLike (alpha_f, X)
  zero_f = Constant <value_float = 0.0> ()
  zero = CastLike (zero_f, X)
  one_f = Constant <value_float = 1.0> ()
  one = CastLike (one_f, X)
  negative = Less (X, zero)
  e = Exp (X)
  em1 = Sub (e, one)
  scaled = Mul (alpha_t, em1)
  Y = Where (negative, scaled, X)
})"},
    {"", "Selu", 15, kOpen, "", "", false, R"(
Selu <alpha: float = 1.67326319217681884765625, gamma: float = 1.05070102214813232421875>
     (X) => (Y) {
  alpha_f = Constant <value_float = @alpha> ()
  alpha_t = CastLike (alpha_f, X)
  gamma_f = Constant <value_float = @gamma> ()
  gamma_t = CastLike (gamma_f, X)
  zero_f = Constant <value_float = 0.0> ()
  zero = CastLike (zero_f, X)
  positive = Greater (X, zero)
  e = Exp (X)
  ae = Mul (alpha_t, e)
  neg_part = Sub (ae, alpha_t)
  inner = Where (positive, X, neg_part)
  Y = Mul (gamma_t, inner)
})"},
    {"", "LeakyRelu", 16, kOpen, "", "", false, R"(
LeakyRelu <alpha: float = 0.01> (X) => (Y) {
  alpha_f = Constant <value_float = @alpha> ()
  alpha_t = CastLike (alpha_f, X)
  zero_f = Constant <value_float = 0.0> ()
  zero = CastLike (zero_f, X)
  negative = Less (X, zero)
  scaled = Mul (alpha_t, X)
  Y = Where (negative, scaled, X)
})"},
    {"", "PRelu", 16, kOpen, "", "", false, R"(
PRelu (X, slope) => (Y) {
  zero_f = Constant <value_float = 0.0> ()
  zero = CastLike (zero_f, X)
  negative = Less (X, zero)
  scaled = Mul (X, slope)
  Y = Where (negative, scaled, X)
})"},
    {"", "ThresholdedRelu", 15, kOpen, "", "", false, R"(
ThresholdedRelu <alpha: float = 1.0> (X) => (Y) {
  alpha_f = Constant <value_float = @alpha> ()
  alpha_t = CastLike (alpha_f, X)
  zero_f = Constant <value_float = 0.0> ()
  zero = CastLike (zero_f, X)
  above = Greater (X, alpha_t)
  Y = Where (above, X, zero)
})"},
    {"", "HardSigmoid", 15, kOpen, "", "", false, R"(
HardSigmoid <alpha: float = 0.2, beta: float = 0.5> (X) => (Y) {
  alpha_f = Constant <value_float = @alpha> ()
  alpha_t = CastLike (alpha_f, X)
  beta_f = Constant <value_float = @beta> ()
  beta_t = CastLike (beta_f, X)
  zero_f = Constant <value_float = 0.0> ()
  zero = CastLike (zero_f, X)
  one_f = Constant <value_float = 1.0> ()
  one = CastLike (one_f, X)
  ax = Mul (alpha_t, X)
  axb = Add (ax, beta_t)
  upper = Min (one, axb)
  Y = Max (zero, upper)
})"},
    {"", "HardSwish", 14, kOpen, "", "", false, R"(
HardSwish (X) => (Y) {
  hs = HardSigmoid <alpha = 0.16666666666666666, beta = 0.5> (X)
  Y = Mul (X, hs)
})"},
    {"", "Softsign", 15, kOpen, "", "", false, R"(
Softsign (input) => (output) {
  one_f = Constant <value_float = 1.0> ()
  one = CastLike (one_f, input)
  a = Abs (input)
  denominator = Add (one, a)
  output = Div (input, denominator)
})"},
    {"", "Softplus", 15, kOpen, "", "", false, R"(
Softplus (X) => (Y) {
  one_f = Constant <value_float = 1.0> ()
  one = CastLike (one_f, X)
  e = Exp (X)
  e1 = Add (e, one)
  Y = Log (e1)
})"},
    {"", "Mish", 18, kOpen, "", "", false, R"(
Mish (X) => (Y) {
  sp = Softplus (X)
  t = Tanh (sp)
  Y = Mul (X, t)
})"},
    {"", "Swish", 24, kOpen, "", "", false, R"(
Swish <alpha: float = 1.0> (X) => (Y) {
  alpha_f = Constant <value_float = @alpha> ()
  alpha_t = CastLike (alpha_f, X)
  ax = Mul (alpha_t, X)
  s = Sigmoid (ax)
  Y = Mul (X, s)
})"},
    {"", "Gelu", 20, kOpen, "approximate", "none", true, R"(
Gelu (X) => (Y) {
  half_f = Constant <value_float = 0.5> ()
  half = CastLike (half_f, X)
  one_f = Constant <value_float = 1.0> ()
  one = CastLike (one_f, X)
  rsqrt2_f = Constant <value_float = 0.70710678118654752> ()
  rsqrt2 = CastLike (rsqrt2_f, X)
  scaled = Mul (X, rsqrt2)
  erf = Erf (scaled)
  erf1 = Add (one, erf)
  hx = Mul (half, X)
  Y = Mul (hx, erf1)
})"},
    {"", "Gelu", 20, kOpen, "approximate", "tanh", false, R"(
Gelu (X) => (Y) {
  half_f = Constant <value_float = 0.5> ()
  half = CastLike (half_f, X)
  one_f = Constant <value_float = 1.0> ()
  one = CastLike (one_f, X)
  k_f = Constant <value_float = 0.79788456080286536> ()
  k = CastLike (k_f, X)
  c_f = Constant <value_float = 0.044715> ()
  c = CastLike (c_f, X)
  x2 = Mul (X, X)
  x3 = Mul (x2, X)
  cx3 = Mul (c, x3)
  inner = Add (X, cx3)
  scaled = Mul (k, inner)
  t = Tanh (scaled)
  t1 = Add (one, t)
  hx = Mul (half, X)
  Y = Mul (hx, t1)
})"},
    {"", "GreaterOrEqual", 12, kOpen, "", "", false, R"(
GreaterOrEqual (A, B) => (C) {
  gt = Greater (A, B)
  eq = Equal (A, B)
  C = Or (gt, eq)
})"},
    {"", "LessOrEqual", 12, kOpen, "", "", false, R"(
LessOrEqual (A, B) => (C) {
  lt = Less (A, B)
  eq = Equal (A, B)
  C = Or (lt, eq)
})"},
    {"", "Shrink", 15, kOpen, "", "", false, R"(
Shrink <bias: float = 0.0, lambd: float = 0.5> (input) => (output) {
  lambd_f = Constant <value_float = @lambd> ()
  lambd_t = CastLike (lambd_f, input)
  bias_f = Constant <value_float = @bias> ()
  bias_t = CastLike (bias_f, input)
  zero_f = Constant <value_float = 0.0> ()
  zero = CastLike (zero_f, input)
  neg_lambd = Neg (lambd_t)
  below = Less (input, neg_lambd)
  above = Greater (input, lambd_t)
  plus_bias = Add (input, bias_t)
  minus_bias = Sub (input, bias_t)
  upper = Where (above, minus_bias, zero)
  output = Where (below, plus_bias, upper)
})"},
    // Clip-6 takes its bounds as attributes (defaults: the float range); from
    // opset 8 Max/Min broadcast, which the scalar bounds need.
    {"", "Clip", 8, 10, "", "", false, R"(
Clip <min: float = -3.4028234663852886e38, max: float = 3.4028234663852886e38> (input) => (output) {
  lo = Constant <value_float = @min> ()
  hi = Constant <value_float = @max> ()
  clipped_low = Max (input, lo)
  output = Min (clipped_low, hi)
})"},
    // From opset 11 the bounds are optional inputs; an omitted one drops out of
    // the variadic Max/Min.
    {"", "Clip", 11, kOpen, "", "", false, R"(
Clip (input, min, max) => (output) {
  clipped_low = Max (input, min)
  output = Min (clipped_low, max)
})"},
    // number = max(ceil((limit - start) / delta), 0), computed in double;
    // output[i] = start + i * delta, with i from a cumulative sum of ones.
    {"", "Range", 15, 26, "", "", false, R"(
Range (start, limit, delta) => (output) {
  span = Sub (limit, start)
  span_d = Cast <to = 11> (span)
  delta_d = Cast <to = 11> (delta)
  steps = Div (span_d, delta_d)
  steps_up = Ceil (steps)
  zero_d = Constant <value_float = 0.0> ()
  zero_dd = Cast <to = 11> (zero_d)
  count_d = Max (steps_up, zero_dd)
  count = Cast <to = 7> (count_d)
  one_shape = Constant <value_ints = [1]> ()
  count_1d = Reshape (count, one_shape)
  one_f = Constant <value_float = 1.0> ()
  one = CastLike (one_f, start)
  ones = Expand (one, count_1d)
  axis0 = Constant <value_int = 0> ()
  upto = CumSum (ones, axis0)
  index = Sub (upto, ones)
  offset = Mul (index, delta)
  output = Add (start, offset)
})"},
    // Normalizes over axes [axis, rank): those axes are computed from the
    // input's rank at run time, so ReduceMean must take them as an input (18+).
    {"", "LayerNormalization", 18, kOpen, "", "", false, R"(
LayerNormalization <axis: int = -1, epsilon: float = 1e-05, stash_type: int = 1>
     (X, Scale, B) => (Y, Mean, InvStdDev) {
  shape = Shape (X)
  rank = Size (shape)
  axis_v = Constant <value_int = @axis> ()
  zero_i = Constant <value_int = 0> ()
  one_i = Constant <value_int = 1> ()
  is_neg = Less (axis_v, zero_i)
  is_neg_i = Cast <to = 7> (is_neg)
  shift = Mul (is_neg_i, rank)
  first = Add (axis_v, shift)
  axes = Range (first, rank, one_i)
  Xs = Cast <to = @stash_type> (X)
  Mean = ReduceMean <keepdims = 1> (Xs, axes)
  D = Sub (Xs, Mean)
  D2 = Mul (D, D)
  Var = ReduceMean <keepdims = 1> (D2, axes)
  eps_f = Constant <value_float = @epsilon> ()
  eps = CastLike (eps_f, Xs)
  VarEps = Add (Var, eps)
  StdDev = Sqrt (VarEps)
  InvStdDev = Reciprocal (StdDev)
  Norm = Mul (D, InvStdDev)
  NormX = CastLike (Norm, X)
  Scaled = Mul (NormX, Scale)
  Y = Sum (Scaled, B)
})"},
    {"", "RMSNormalization", 23, kOpen, "", "", false, R"(
RMSNormalization <axis: int = -1, epsilon: float = 1e-05, stash_type: int = 1>
     (X, scale) => (Y) {
  shape = Shape (X)
  rank = Size (shape)
  axis_v = Constant <value_int = @axis> ()
  zero_i = Constant <value_int = 0> ()
  one_i = Constant <value_int = 1> ()
  is_neg = Less (axis_v, zero_i)
  is_neg_i = Cast <to = 7> (is_neg)
  shift = Mul (is_neg_i, rank)
  first = Add (axis_v, shift)
  axes = Range (first, rank, one_i)
  Xs = Cast <to = @stash_type> (X)
  X2 = Mul (Xs, Xs)
  MeanSquare = ReduceMean <keepdims = 1> (X2, axes)
  eps_f = Constant <value_float = @epsilon> ()
  eps = CastLike (eps_f, Xs)
  MeanSquareEps = Add (MeanSquare, eps)
  RMS = Sqrt (MeanSquareEps)
  Norm = Div (Xs, RMS)
  NormX = CastLike (Norm, X)
  Y = Mul (NormX, scale)
})"},
    // (X - E[X]) / sqrt(E[(X - E[X])^2]), with the spec body's 1e-9 guard.
    {"", "MeanVarianceNormalization", 15, 17, "", "", false, R"(
MeanVarianceNormalization <axes: ints = [0, 2, 3]> (X) => (Y) {
  EX = ReduceMean <axes = @axes> (X)
  D = Sub (X, EX)
  D2 = Mul (D, D)
  Var = ReduceMean <axes = @axes> (D2)
  Std = Sqrt (Var)
  eps_f = Constant <value_float = 1e-09> ()
  eps = CastLike (eps_f, X)
  StdEps = Add (Std, eps)
  Y = Div (D, StdEps)
})"},
    {"", "MeanVarianceNormalization", 18, kOpen, "", "", false, R"(
MeanVarianceNormalization <axes: ints = [0, 2, 3]> (X) => (Y) {
  axes_t = Constant <value_ints = @axes> ()
  EX = ReduceMean (X, axes_t)
  D = Sub (X, EX)
  D2 = Mul (D, D)
  Var = ReduceMean (D2, axes_t)
  Std = Sqrt (Var)
  eps_f = Constant <value_float = 1e-09> ()
  eps = CastLike (eps_f, X)
  StdEps = Add (Std, eps)
  Y = Div (D, StdEps)
})"},
    {"", "ReduceSumSquare", 18, kOpen, "", "", false, R"(
ReduceSumSquare <keepdims: int = 1, noop_with_empty_axes: int = 0> (data, axes) => (reduced) {
  sq = Mul (data, data)
  reduced = ReduceSum <keepdims = @keepdims, noop_with_empty_axes = @noop_with_empty_axes> (sq, axes)
})"},
    {"", "ReduceL1", 18, kOpen, "", "", false, R"(
ReduceL1 <keepdims: int = 1, noop_with_empty_axes: int = 0> (data, axes) => (reduced) {
  a = Abs (data)
  reduced = ReduceSum <keepdims = @keepdims, noop_with_empty_axes = @noop_with_empty_axes> (a, axes)
})"},
    {"", "ReduceL2", 18, kOpen, "", "", false, R"(
ReduceL2 <keepdims: int = 1, noop_with_empty_axes: int = 0> (data, axes) => (reduced) {
  sq = Mul (data, data)
  sum = ReduceSum <keepdims = @keepdims, noop_with_empty_axes = @noop_with_empty_axes> (sq, axes)
  reduced = Sqrt (sum)
})"},
    {"", "ReduceLogSum", 18, kOpen, "", "", false, R"(
ReduceLogSum <keepdims: int = 1, noop_with_empty_axes: int = 0> (data, axes) => (reduced) {
  sum = ReduceSum <keepdims = @keepdims, noop_with_empty_axes = @noop_with_empty_axes> (data, axes)
  reduced = Log (sum)
})"},
    {"", "ReduceLogSumExp", 18, kOpen, "", "", false, R"(
ReduceLogSumExp <keepdims: int = 1, noop_with_empty_axes: int = 0> (data, axes) => (reduced) {
  e = Exp (data)
  sum = ReduceSum <keepdims = @keepdims, noop_with_empty_axes = @noop_with_empty_axes> (e, axes)
  reduced = Log (sum)
})"},
};

}  // namespace

std::vector<FunctionBody> parse_function_rows(std::span<const FunctionRow> rows) {
  std::vector<FunctionBody> out;
  for (const Row& r : rows) {
    FunctionBody b;
    b.domain = r.domain;
    b.op_type = r.op;
    b.since = r.since;
    b.until = r.until;
    b.when_attr = r.when_attr;
    b.when_value = r.when_value;
    b.when_default = r.when_default;
    try {
      b.function = parse_function_text(r.text);
    } catch (const Error& e) {
      fail(e.code(), "function body of ", b.describe(), ": ", e.what());
    }
    check_code(b.function.name == b.op_type, ErrorCode::kInvalidGraph, "function body of ",
               b.describe(), " is named '", b.function.name, "'");
    b.function.domain = b.domain;
    out.push_back(std::move(b));
  }
  return out;
}

std::string FunctionBody::describe() const {
  std::string s = str_cat(domain.empty() ? "" : domain + ".", op_type, "-", since);
  if (!when_attr.empty()) s += str_cat(" (", when_attr, "=", when_value, ")");
  return s;
}

const std::vector<FunctionBody>& function_bodies() {
  static const std::vector<FunctionBody> bodies = parse_function_rows(kRows);
  return bodies;
}

const FunctionBody* find_body_in(const std::vector<FunctionBody>& bodies, const ir::Node& node,
                                 int64_t opset) {
  for (const auto& b : bodies) {
    if (b.op_type != node.op_type || opset < b.since || opset > b.until) continue;
    if (!(b.domain == node.domain ||
          (ir::is_onnx_domain(b.domain) && ir::is_onnx_domain(node.domain))))
      continue;
    if (!b.when_attr.empty()) {
      // A string attribute compares as it is, an int one as its decimal text.
      const ir::Attribute* a = node.attr(b.when_attr);
      if (a ? (a->type == ir::AttrType::kInt ? std::to_string(a->i) : a->s) != b.when_value
            : !b.when_default)
        continue;
    }
    return &b;
  }
  return nullptr;
}

const FunctionBody* find_function_body(const ir::Node& node, int64_t opset) {
  return find_body_in(function_bodies(), node, opset);
}

}  // namespace tessera::ops
