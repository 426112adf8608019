#include "ops/contrib_bodies.hpp"

#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/error.hpp"

namespace tessera::ops {

namespace {

constexpr int64_t kOpen = std::numeric_limits<int32_t>::max();
constexpr const char* kMs = kMicrosoftDomain;

// The bodies follow ONNX Runtime's operator documentation
// (docs/ContribOperators.md of its repository): inputs, outputs and
// attribute defaults as listed there. Optional inputs the caller omits are
// empty names: Sum and the trailing optional inputs of the standard ops take
// them as absent (a Sum left with two inputs is written as Add).
const FunctionRow kRows[] = {
    // --- activations and element-wise fusions (transformer optimizer) ---
    {kMs, "Gelu", 1, kOpen, "", "", false, R"(
Gelu (X) => (Y) {
  Y = com.tessera.Gelu (X)
})"},
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) of X + bias.
    {kMs, "FastGelu", 1, kOpen, "", "", false, R"(
FastGelu (X, bias) => (Y) {
  Xb = Sum (X, bias)
  Y = com.tessera.Gelu <approximate = "tanh"> (Xb)
})"},
    {kMs, "BiasGelu", 1, kOpen, "", "", false, R"(
BiasGelu (A, B) => (C) {
  AB = Add (A, B)
  C = com.tessera.Gelu (AB)
})"},
    // x * sigmoid(alpha * x)
    {kMs, "QuickGelu", 1, kOpen, "", "", false, R"(
QuickGelu <alpha: float = 1.702> (X) => (Y) {
  alpha_f = Constant <value_float = @alpha> ()
  alpha_t = CastLike (alpha_f, X)
  AX = Mul (X, alpha_t)
  S = Sigmoid (AX)
  Y = Mul (X, S)
})"},
    {kMs, "BiasAdd", 1, kOpen, "", "", false, R"(
BiasAdd (X, bias, skip) => (Y) {
  Xb = Add (X, bias)
  Y = Add (Xb, skip)
})"},
    // LayerNormalization(input + skip + bias) over the last axis; the sum is
    // output 3. The bias joins the input first: that is the MatMul + bias
    // the optimizer folds back into its SkipLayerNormalization.
    {kMs, "SkipLayerNormalization", 1, kOpen, "", "", false, R"(
SkipLayerNormalization <epsilon: float = 1e-12>
     (input, skip, gamma, beta, bias) => (output, mean, inv_std_var, input_skip_bias_sum) {
  Xb = Sum (input, bias)
  input_skip_bias_sum = Add (Xb, skip)
  output, mean, inv_std_var = com.tessera.LayerNormalization <axis = -1, epsilon = @epsilon>
      (input_skip_bias_sum, gamma, beta)
})"},
    // The RMS form (language models): the default domain's
    // SimplifiedLayerNormalization of input + skip + bias.
    {kMs, "SkipSimplifiedLayerNormalization", 1, kOpen, "", "", false, R"(
SkipSimplifiedLayerNormalization <epsilon: float = 1e-12>
     (input, skip, gamma, bias) => (output, mean, inv_std_var, input_skip_bias_sum) {
  Xb = Sum (input, bias)
  input_skip_bias_sum = Add (Xb, skip)
  output = SimplifiedLayerNormalization <axis = -1, epsilon = @epsilon> (input_skip_bias_sum, gamma)
})"},
    // --- 8-bit quantization (ONNX Runtime's quantizer, QOperator form) ---
    // Dequantize, the float op, quantize: the optimizer's Q/DQ passes and the
    // per-tensor fast paths take it from there.
    {kMs, "QLinearAdd", 1, kOpen, "", "", false, R"(
QLinearAdd (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point) => (C) {
  a = DequantizeLinear (A, A_scale, A_zero_point)
  b = DequantizeLinear (B, B_scale, B_zero_point)
  c = Add (a, b)
  C = QuantizeLinear (c, C_scale, C_zero_point)
})"},
    {kMs, "QLinearMul", 1, kOpen, "", "", false, R"(
QLinearMul (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point) => (C) {
  a = DequantizeLinear (A, A_scale, A_zero_point)
  b = DequantizeLinear (B, B_scale, B_zero_point)
  c = Mul (a, b)
  C = QuantizeLinear (c, C_scale, C_zero_point)
})"},
    {kMs, "QLinearSigmoid", 1, kOpen, "", "", false, R"(
QLinearSigmoid (X, X_scale, X_zero_point, Y_scale, Y_zero_point) => (Y) {
  x = DequantizeLinear (X, X_scale, X_zero_point)
  y = Sigmoid (x)
  Y = QuantizeLinear (y, Y_scale, Y_zero_point)
})"},
    {kMs, "QLinearLeakyRelu", 1, kOpen, "", "", false, R"(
QLinearLeakyRelu <alpha: float = 0.01> (X, X_scale, X_zero_point, Y_scale, Y_zero_point) => (Y) {
  x = DequantizeLinear (X, X_scale, X_zero_point)
  y = LeakyRelu <alpha = @alpha> (x)
  Y = QuantizeLinear (y, Y_scale, Y_zero_point)
})"},
    // channels_last = 1 (NHWC) has no body: such a node is reported as
    // having no kernel.
    {kMs, "QLinearGlobalAveragePool", 1, kOpen, "channels_last", "0", true, R"(
QLinearGlobalAveragePool (X, x_scale, x_zero_point, y_scale, y_zero_point) => (Y) {
  x = DequantizeLinear (X, x_scale, x_zero_point)
  y = GlobalAveragePool (x)
  Y = QuantizeLinear (y, y_scale, y_zero_point)
})"},
    {kMs, "QLinearAveragePool", 1, kOpen, "channels_last", "0", true, R"(
QLinearAveragePool (X, x_scale, x_zero_point, y_scale, y_zero_point) => (Y) {
  x = DequantizeLinear (X, x_scale, x_zero_point)
  y = AveragePool <auto_pad = @auto_pad, ceil_mode = @ceil_mode,
                   count_include_pad = @count_include_pad, kernel_shape = @kernel_shape,
                   pads = @pads, strides = @strides> (x)
  Y = QuantizeLinear (y, y_scale, y_zero_point)
})"},
    // The float product of a dynamically quantized A and an 8-bit B: the
    // integer MatMul, Cast and scale that fuse into MatMulIntegerToFloat.
    {kMs, "DynamicQuantizeMatMul", 1, kOpen, "", "", false, R"(
DynamicQuantizeMatMul (A, B, b_scale, b_zero_point, bias) => (Y) {
  a_q, a_scale, a_zero_point = DynamicQuantizeLinear (A)
  prod = MatMulInteger (a_q, B, a_zero_point, b_zero_point)
  prod_f = Cast <to = 1> (prod)
  scale = Mul (a_scale, b_scale)
  scaled = Mul (prod_f, scale)
  Y = Sum (scaled, bias)
})"},
    {kMs, "MatMulIntegerToFloat", 1, kOpen, "", "", false, R"(
MatMulIntegerToFloat (A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias) => (Y) {
  prod = MatMulInteger (A, B, a_zero_point, b_zero_point)
  prod_f = Cast <to = 1> (prod)
  scale = Mul (a_scale, b_scale)
  scaled = Mul (prod_f, scale)
  Y = Sum (scaled, bias)
})"},
    {kMs, "QLinearWhere", 1, kOpen, "", "", false, R"(
QLinearWhere (condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale,
              z_zero_point) => (Z) {
  x = DequantizeLinear (X, x_scale, x_zero_point)
  y = DequantizeLinear (Y, y_scale, y_zero_point)
  z = Where (condition, x, y)
  Z = QuantizeLinear (z, z_scale, z_zero_point)
})"},
    // Softmax over the last axis reads the same under the coerce-to-2-D
    // definition (the `opset` attribute before 13) and the per-axis one, so
    // the body is right whichever the model's opset is; other axes have none.
    {kMs, "QLinearSoftmax", 1, kOpen, "axis", "-1", true, R"(
QLinearSoftmax (X, X_scale, x_zero_point, y_scale, y_zero_point) => (Y) {
  x = DequantizeLinear (X, X_scale, x_zero_point)
  y = Softmax <axis = -1> (x)
  Y = QuantizeLinear (y, y_scale, y_zero_point)
})"},
    // Attention over a quantized input and weights (ONNX Runtime's
    // quantize_dynamic of an optimized transformer): the two dequantized,
    // then Attention's kernel (the weights' DequantizeLinear folds into float
    // weights). A key/value cache (past, present) is refused there by name.
    {kMs, "QAttention", 1, kOpen, "", "", false, R"(
QAttention <num_heads: int = 0, unidirectional: int = 0, mask_filter_value: float = -10000.0,
            do_rotary: int = 0, past_present_share_buffer: int = 0>
     (input, weight, bias, input_scale, weight_scale, mask_index, input_zero_point,
      weight_zero_point, past) => (output, present) {
  x = DequantizeLinear (input, input_scale, input_zero_point)
  w = DequantizeLinear <axis = 1> (weight, weight_scale, weight_zero_point)
  output = com.microsoft.Attention <num_heads = @num_heads, unidirectional = @unidirectional,
                                    mask_filter_value = @mask_filter_value, scale = @scale,
                                    do_rotary = @do_rotary,
                                    past_present_share_buffer = @past_present_share_buffer>
      (x, w, bias, mask_index, past)
})"},
    // The standard QLinearConv, as ONNX Runtime's domain also registers it
    // (channels_last = 1, its NHWC form, has no body).
    {kMs, "QLinearConv", 1, kOpen, "channels_last", "0", true, R"(
QLinearConv (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B) => (y) {
  y = QLinearConv <auto_pad = @auto_pad, dilations = @dilations, group = @group,
                   kernel_shape = @kernel_shape, pads = @pads, strides = @strides>
      (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B)
})"},
    // The standard ops (axis from opset 13), kept in ONNX Runtime's domain by
    // its quantizer for 16-bit types (which need the model at opset 21).
    {kMs, "QuantizeLinear", 1, kOpen, "", "", false, R"(
QuantizeLinear <axis: int = 1> (x, y_scale, y_zero_point) => (y) {
  y = QuantizeLinear <axis = @axis> (x, y_scale, y_zero_point)
})"},
    {kMs, "DequantizeLinear", 1, kOpen, "", "", false, R"(
DequantizeLinear <axis: int = 1> (x, x_scale, x_zero_point) => (y) {
  y = DequantizeLinear <axis = @axis> (x, x_scale, x_zero_point)
})"},
};

void import_tessera(FunctionBody& b) {
  // Bodies call com.tessera ops: their import joins the model's with them.
  b.function.opset_imports.push_back({"com.tessera", 1});
}

// The fusions ONNX Runtime saves in optimized models: FusedConv (Conv, + Z)
// and FusedGemm, each followed by the activation its `activation` attribute
// names, one body per activation. activation_params carries FusedConv's
// LeakyRelu alpha, Clip min and max, HardSigmoid alpha and beta; FusedGemm
// has activation_alpha.
std::vector<FunctionBody> fused_op_bodies() {
  const char* conv_head = R"(FusedConv (X, W, B, Z) => (Y) {
  C = Conv <auto_pad = @auto_pad, dilations = @dilations, group = @group,
            kernel_shape = @kernel_shape, pads = @pads, strides = @strides> (X, W, B)
  CZ = Sum (C, Z)
)";
  // The first two parameters as CastLike'd scalars p0 and p1.
  const char* params = R"(  params = Constant <value_floats = @activation_params> ()
  i0 = Constant <value_int = 0> ()
  i1 = Constant <value_int = 1> ()
  p0_f = Gather (params, i0)
  p0 = CastLike (p0_f, X)
)";
  const std::string p1 =
      std::string(params) + "  p1_f = Gather (params, i1)\n  p1 = CastLike (p1_f, X)\n";
  const std::vector<std::pair<const char*, std::string>> conv = {
      {"", "  Y = Identity (CZ)\n"},
      {"Relu", "  Y = Relu (CZ)\n"},
      {"Sigmoid", "  Y = Sigmoid (CZ)\n"},
      {"Tanh", "  Y = Tanh (CZ)\n"},
      {"LeakyRelu", std::string(params) + "  Y = PRelu (CZ, p0)\n"},
      {"Clip", p1 + "  Y = Clip (CZ, p0, p1)\n"},
      {"HardSigmoid", p1 + R"(  zero_f = Constant <value_float = 0.0> ()
  one_f = Constant <value_float = 1.0> ()
  zero = CastLike (zero_f, X)
  one = CastLike (one_f, X)
  AX = Mul (CZ, p0)
  AXB = Add (AX, p1)
  Y = Clip (AXB, zero, one)
)"}};
  const char* gemm_head = R"(FusedGemm <activation_alpha: float = 0.01> (A, B, C) => (Y) {
  G = Gemm <alpha = @alpha, beta = @beta, transA = @transA, transB = @transB> (A, B, C)
)";
  const std::vector<std::pair<const char*, std::string>> gemm = {
      {"", "  Y = Identity (G)\n"},
      {"Relu", "  Y = Relu (G)\n"},
      {"Sigmoid", "  Y = Sigmoid (G)\n"},
      {"Tanh", "  Y = Tanh (G)\n"},
      {"LeakyRelu", "  Y = LeakyRelu <alpha = @activation_alpha> (G)\n"}};
  std::vector<std::string> texts;
  std::vector<FunctionRow> rows;
  for (const auto& [act, tail] : conv) texts.push_back(conv_head + tail + "}");
  for (const auto& [act, tail] : gemm) texts.push_back(gemm_head + tail + "}");
  for (size_t i = 0; i < texts.size(); ++i) {
    const bool is_conv = i < conv.size();
    const char* act = is_conv ? conv[i].first : gemm[i - conv.size()].first;
    rows.push_back({kMs, is_conv ? "FusedConv" : "FusedGemm", 1, kOpen, "activation", act,
                    *act == 0, texts[i].c_str()});
  }
  return parse_function_rows(rows);
}

std::vector<FunctionBody> parse_contrib() {
  std::vector<FunctionBody> bodies = parse_function_rows(kRows);
  for (auto& b : fused_op_bodies()) bodies.push_back(std::move(b));
  for (auto& b : bodies) import_tessera(b);
  return bodies;
}

bool present(const ir::Node& n, size_t i) { return i < n.inputs.size() && !n.inputs[i].empty(); }

// Bodies whose shape depends on the node: how many inputs a QLinearConcat
// has, and which of QGemm's optional inputs are given (C; y_scale, which
// makes the output 8-bit instead of float). Written as text for that node,
// parsed once per distinct form and kept.
std::string generated_text(const ir::Node& n, std::string& key) {
  if (n.op_type == "QLinearConcat") {
    if (n.inputs.size() < 5 || (n.inputs.size() - 2) % 3 != 0) return "";
    const size_t parts = (n.inputs.size() - 2) / 3;
    key = str_cat("QLinearConcat/", parts);
    std::string head = "QLinearConcat (Y_scale, Y_zero_point", body, list;
    for (size_t i = 0; i < parts; ++i) {
      head += str_cat(", X", i, ", S", i, ", Z", i);
      body += str_cat("  x", i, " = DequantizeLinear (X", i, ", S", i, ", Z", i, ")\n");
      list += str_cat(i ? ", x" : "x", i);
    }
    return str_cat(head, ") => (Y) {\n", body, "  y = Concat <axis = @axis> (", list,
                   ")\n  Y = QuantizeLinear (y, Y_scale, Y_zero_point)\n}");
  }
  if (n.op_type == "QGemm") {
    // Y = alpha * a_scale * b_scale * ((A - a_zp) op (B - b_zp) + C): C is
    // int32 at the accumulator's scale. B's per-column scales lie along its
    // axis 1, or 0 when transB says B is stored [N, K].
    const bool c = present(n, 6), y = present(n, 7);
    const ir::Attribute* tb = n.attr("transB");
    const int b_axis = tb && tb->i != 0 ? 0 : 1;
    key = str_cat("QGemm/", c, y, b_axis);
    std::string t =
        "QGemm <alpha: float = 1.0> (A, a_scale, a_zero_point, B, b_scale, b_zero_point, C, "
        "y_scale, y_zero_point) => (Y) {\n"
        "  a = DequantizeLinear (A, a_scale, a_zero_point)\n";
    t += str_cat("  b = DequantizeLinear <axis = ", b_axis, "> (B, b_scale, b_zero_point)\n");
    if (c)
      t += "  c_f = Cast <to = 1> (C)\n  ab = Mul (a_scale, b_scale)\n  c = Mul (c_f, ab)\n"
           "  g = Gemm <alpha = @alpha, beta = @alpha, transA = @transA, transB = @transB> "
           "(a, b, c)\n";
    else
      t += "  g = Gemm <alpha = @alpha, transA = @transA, transB = @transB> (a, b)\n";
    t += y ? "  Y = QuantizeLinear (g, y_scale, y_zero_point)\n}" : "  Y = Identity (g)\n}";
    return t;
  }
  return "";
}

const FunctionBody* generated_body(const ir::Node& n) {
  std::string key;
  const std::string text = generated_text(n, key);
  if (text.empty()) return nullptr;
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<FunctionBody>> made;
  std::lock_guard<std::mutex> lock(mu);
  auto& b = made[key];
  if (!b) {
    const FunctionRow row{kMs, n.op_type.c_str(), 1, kOpen, "", "", false, text.c_str()};
    b = std::make_unique<FunctionBody>(std::move(parse_function_rows({&row, 1}).front()));
    import_tessera(*b);
  }
  return b.get();
}

}  // namespace

const std::vector<FunctionBody>& contrib_bodies() {
  static const std::vector<FunctionBody> bodies = parse_contrib();
  return bodies;
}

const std::vector<std::string>& contrib_ops_with_generated_bodies() {
  static const std::vector<std::string> ops = {"QGemm", "QLinearConcat"};
  return ops;
}

const FunctionBody* find_contrib_body(const ir::Node& node, int64_t opset) {
  if (node.domain != kMicrosoftDomain) return nullptr;
  if (const FunctionBody* b = find_body_in(contrib_bodies(), node, opset)) return b;
  return opset >= 1 ? generated_body(node) : nullptr;
}

}  // namespace tessera::ops
