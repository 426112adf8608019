// RNN, GRU and LSTM against an independent numpy implementation of the
// spec's equations (generated once; inputs rounded to two decimals):
// bidirectional and reverse directions, sequence_lens, initial states,
// peepholes, clip, input_forget, linear_before_reset, layout 1, activation
// lists with alpha/beta, and double / float16 inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

ir::Attribute attr_strings(const std::string& name, std::vector<std::string> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(v);
  return a;
}

Value make_float(const std::vector<double>& v, Shape s) {
  std::vector<float> f(v.begin(), v.end());
  return Tensor::from_vector<float>(f, std::move(s));
}
Value make_double(const std::vector<double>& v, Shape s) {
  return Tensor::from_vector<double>(v, std::move(s));
}
Value make_float16(const std::vector<double>& v, Shape s) {
  std::vector<Float16> f;
  for (double x : v) f.push_back(Float16(float(x)));
  return Tensor::from_vector<Float16>(f, std::move(s));
}

void expect_near(const Value& actual, const std::vector<double>& expected, const Shape& shape) {
  const Tensor& t = actual.tensor();
  ASSERT_EQ(t.shape(), shape);
  double tol = t.dtype() == DataType::kFloat16 ? 1e-2 : (t.dtype() == DataType::kDouble ? 1e-7 : 1e-5);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    EXPECT_NEAR(t.element_as_double(i), expected[size_t(i)], tol) << "element " << i;
}

}  // namespace

TEST(RecurrentKernels, LstmBidirectionalSeqLensPeepholesLayout1) {
  auto t = [](std::vector<double> v, Shape s) { return make_float(v, s); };
  std::vector<Value> in = {t({1.69, -0.47, -0.79, 0, 1.02, 0.6, 0.03, 0.41, -0, -1.75, -0.63, -0.17}, {2, 3, 2}), t({0.25, -0.13, -0.12, -0.73, 0.28, 0.06, 0.14, -0.76, 0.83, 0.08, -0.19, 1.01, -0.02, -0.73, -0.2, -1.14, 0.52, -0.21, -0.37, 0.54, -0.83, 0.27, -1.03, -0.33, -0.6, 0.73, 0.88, -0.16, 0.42, -0.09, 0.28, -0.38, -0.85, -0.9, 0.19, 1.12, 0.13, -0.26, 0.96, 0.12, 0.05, 0.13, -0.07, -0.15, -0.72, 0.25, -0.05, 0.6}, {2, 12, 2}), t({-0.18, -0.95, -0.05, 0.85, -0.19, -0.44, -0.6, -0.53, -0.15, -0.59, 0.75, -0.14, 0.05, 0.72, 0.75, -0.11, 0.17, 0.37, -0.1, -0.89, 0.33, 0.45, 0.21, -0.46, -0.1, -0.3, -0.15, 0.65, 0.76, 0.33, 0.27, 0.34, -0.01, -0.04, -0.34, -0.03, 1.13, 0.43, -0.17, -0.24, -0.43, 0.19, 0.2, -0.72, 0.24, -0.28, 0.71, 0.08, 0.86, -0.23, -0.14, 0.15, 0.53, 0.28, -0.62, 0.09, 0.01, -0.21, -0.32, 0.87, -0.2, -0.42, 0.32, 0.07, -0.04, 0.39, 0.24, 0.18, 0.48, 0.14, -0.31, -0.18}, {2, 12, 3}), t({-0.16, 0.06, -0.32, -0.55, 0.03, -0.4, -0.59, 0.11, -0.21, 0.15, -0.16, -0.34, -0.37, -0.15, -0.08, -0.25, -0.08, -0.46, 0, -0.54, -0.06, 0.21, 0.33, 0.51, -0.47, 0.23, 0.36, 0.29, -0.28, 0.12, 0.56, -0.45, 0.14, 0.33, -0.21, 0.17, -0.32, -0.24, -0.25, 0.06, -0.03, 0.29, -0.28, -0.04, 0.29, 0.17, -0.4, 0.2}, {2, 24}),
      Tensor::from_vector<int32_t>({3, 1}, {2}), t({-0.14, 0.12, 0.09, -0.41, 0.22, -0.08, 0.37, 0.03, -0.56, 0.34, 0.08, -0.22}, {2, 2, 3}), t({0.32, -0.24, -0.62, 0.28, 0.04, -0.51, 0.62, -0.57, 0.19, 0.3, -0.43, -0.4}, {2, 2, 3}), t({-0.11, 0.24, 0.09, 0.24, -0.13, -0.05, -0.34, -0.1, 0.18, -0.09, 0.14, -0.17, -0.18, 0.01, -0.06, 0.18, 0.05, 0.52}, {2, 9})};
  auto out = run_node("LSTM", in, {attr_string("direction", "bidirectional"), attr_int("hidden_size", 3), attr_int("layout", 1)}, 22, 3);
  expect_near(out[0], {-0.039851511, -0.379388627, -0.120795206, 0.193346971, -0.165838306, 0.0826937145, 0.0203479607, 0.0195945332, 0.0102240186, 0.17003927, -0.0781990144, 0.110008453, 0.0386128495, -0.102430349, -0.136555929, 0.149966433, -0.0551343747, 0.00698162017, 0.0735594471, -0.0190856687, 0.0267387958, 0.162717108, -0.136123775, 0.0713410678, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 3, 2, 3});
  expect_near(out[1], {0.0386128495, -0.102430349, -0.136555929, 0.193346971, -0.165838306, 0.0826937145, 0.0735594471, -0.0190856687, 0.0267387958, 0.162717108, -0.136123775, 0.0713410678}, {2, 2, 3});
  expect_near(out[2], {0.152956169, -0.145670287, -0.360225232, 0.282746218, -0.882023286, 0.150822836, 0.315737327, -0.0466438975, 0.0806744123, 0.322362396, -0.35392911, 0.100665705}, {2, 2, 3});
}

TEST(RecurrentKernels, LstmInputForgetClipReverse) {
  auto t = [](std::vector<double> v, Shape s) { return make_float(v, s); };
  std::vector<Value> in = {t({-0.22, -0.23, -1.04, 0.02, 0.68, -0.74, -0.05, 0.72, -0.13, -0.52, 0.97, 0.1}, {3, 2, 2}), t({0.2, 0.59, 0.57, -0.17, -0.26, 0.14, -0.07, -0.95, 0.64, 0.01, 0.37, -0.59, 0.64, -0.29, -0.05, -0.7}, {1, 8, 2}), t({-0.08, -0.11, -0.09, 0.22, 0.03, 0.49, -0.23, -0.5, -0.01, 0.31, 0.62, 0.41, -0.88, 0.19, 0.73, 0.03}, {1, 8, 2}), t({-0.15, 0.09, -0.15, 0.19, -0, 0.42, 0.15, -0.22, 0.18, 0.28, -0.17, -0.13, -0.69, 0.27, -0.18, -0.64}, {1, 16}),
      Tensor::from_vector<int32_t>({2, 3}, {2}), t({-0.53, -0.07, 0.23, -0.03}, {1, 2, 2}), t({0.14, -0.33, -0.4, 0.27}, {1, 2, 2}), t({0.15, -0.01, 0.38, -0.29, -0.13, 0.31}, {1, 6})};
  auto out = run_node("LSTM", in, {attr_string("direction", "reverse"), attr_int("hidden_size", 2), attr_float("clip", 0.4), attr_int("input_forget", 1)}, 7, 3);
  expect_near(out[0], {0.00928251025, -0.212500562, -0.11530818, -0.172875519, 0.0975516155, -0.206624665, -0.0687423297, -0.103186383, 0, 0, 0.003263393, -0.0561317413}, {3, 1, 2, 2});
  expect_near(out[1], {0.00928251025, -0.212500562, -0.11530818, -0.172875519}, {1, 2, 2});
  expect_near(out[2], {0.0229228993, -0.371089076, -0.261815642, -0.314502392}, {1, 2, 2});
}

TEST(RecurrentKernels, LstmCustomActivations) {
  auto t = [](std::vector<double> v, Shape s) { return make_float(v, s); };
  std::vector<Value> in = {t({1.84, 0.01, 1.68, -0.6, 0.33, -0.17, -1.59, 0.26, 0.93, -0.15, -0.07, 1.39}, {3, 2, 2}), t({-0.62, -0.75, -0.33, -0.6, 0.67, 0.15, -0.43, -0.31, 1.43, -0.31, -0.38, 0.15, 0.32, 0.11, -0.45, -0.58}, {1, 8, 2}), t({0.3, -0.03, -0.82, 0.59, 0.39, -0.12, -0.13, 0.12, -0.34, -0.67, 0.16, -0.72, 0.2, -0.72, -0.05, -0.07}, {1, 8, 2}), t({0.53, -0.32, -0.42, -0.19, -0.34, -0.18, 0.13, 0.23, 0.5, -0.22, 0.79, 0.59, -0.06, -0.69, -0.02, 0.02}, {1, 16}),
      Tensor::from_vector<int32_t>({3, 3}, {2}), t({-0.69, 0.02, -0.06, -0.24}, {1, 2, 2}), t({0.19, 0.3, -0.15, 0.07}, {1, 2, 2}), t({-0.2, -0.24, 0.02, 0.16, -0.17, -0.66}, {1, 6})};
  auto out = run_node("LSTM", in, {attr_string("direction", "forward"), attr_int("hidden_size", 2), attr_strings("activations", {"HardSigmoid", "LeakyRelu", "ScaledTanh"}), attr_floats("activation_alpha", {0.3f, 0.2f, 1.5f}), attr_floats("activation_beta", {0.4f, 0.7f})}, 7, 3);
  expect_near(out[0], {0.288341303, -0.00733298778, 0.213381014, -0.00150338778, 0.197902475, 0.0143069623, -0.0148315812, 0.173397966, 0.324872975, -0.000658528129, 0.0235116934, 0.0120700331}, {3, 1, 2, 2});
  expect_near(out[1], {0.324872975, -0.000658528129, 0.0235116934, 0.0120700331}, {1, 2, 2});
  expect_near(out[2], {0.445753191, -0.00154208389, 0.0405949801, 0.0281829263}, {1, 2, 2});
}

TEST(RecurrentKernels, GruLinearBeforeResetReverse) {
  auto t = [](std::vector<double> v, Shape s) { return make_double(v, s); };
  std::vector<Value> in = {t({0.59, -1.6, 0.12, 1.78, -0.02, -1.19, -1.46, 1.17, -0.02, 0.54, 0.93, -0.05}, {3, 2, 2}), t({-0.15, -0.47, -1.54, -0.76, -0.03, -0.09, 0.2, -0.06, 0.08, 0.39, -0.44, -0.14, -0.8, 0.49, 0.02, 0.24, 0.77, 0.54}, {1, 9, 2}), t({-0.03, 0.39, -0.72, 0.22, 0.07, -0.81, 0.67, -0.35, 0.34, -0.21, 0.5, 0.66, -0.42, -0.77, -0.07, 0.42, -0.19, -0.31, 0.24, -1.38, -0.33, -0.69, 0.15, -0.37, -0.56, -0.18, -0.73}, {1, 9, 3}), t({-0, -0.2, -0.11, -0.22, 0.27, -0.03, 0.16, 0.14, -0.24, 0.17, 0.1, 0.09, -0.12, -0.13, 0.24, 0.65, -0.25, 0.16}, {1, 18}),
      Tensor::from_vector<int32_t>({3, 2}, {2}), t({-0.11, 0.24, 0.13, 0.32, -0.84, -0.18}, {1, 2, 3})};
  auto out = run_node("GRU", in, {attr_string("direction", "reverse"), attr_int("hidden_size", 3), attr_int("linear_before_reset", 1)}, 7, 2);
  expect_near(out[0], {-0.120477596, -0.0872622929, -0.355500281, 0.82842311, -0.12714546, 0.0933589352, 0.0702529368, 0.0456358345, -0.27552415, 0.71053084, -0.675348183, -0.307532141, 0.209475869, 0.191857541, 0.101659391, 0, 0, 0}, {3, 1, 2, 3});
  expect_near(out[1], {-0.120477596, -0.0872622929, -0.355500281, 0.82842311, -0.12714546, 0.0933589352}, {1, 2, 3});
}

TEST(RecurrentKernels, GruBidirectionalSeqLens) {
  auto t = [](std::vector<double> v, Shape s) { return make_float(v, s); };
  std::vector<Value> in = {t({0.1, -0.84, 0.1, -0.24, 0.55, 0.12, -0.62, 0.19, -1.18, 0.82, 1.18, -1.18}, {3, 2, 2}), t({0.21, -0.5, 0.54, 0.45, -0.12, 0.5, -0.22, -0.32, -0.28, -0.07, -0.16, 0.08, -0.31, 0.38, 0.51, -0.25, -0.71, 0.36, 0.57, -0.08, -0.64, 0.13, 0.76, -0.94}, {2, 6, 2}), t({0.24, -0.16, -0.43, 0.25, -0.65, 0.15, 0.66, 0.09, -0.44, -0.89, -0.64, -0.92, 0.8, -0.12, -0.52, -0.65, -0.53, -0.17, -0.64, 0.84, -0.37, -0.39, 0.15, 0.73}, {2, 6, 2}), t({0.4, -0.15, 0.08, 0.04, 0.16, 0.08, -0.28, -0.38, 0.05, -0.36, 0.41, 0.01, -0.31, -0.1, -0.15, -0.04, 0.28, -0.43, -0.56, 0.1, -0.05, 0.05, 0.13, -0.05}, {2, 12}),
      Tensor::from_vector<int32_t>({1, 3}, {2}), t({0.24, -0.27, 0.02, -0.25, -0.34, 0.18, 0.17, -0.58}, {2, 2, 2})};
  auto out = run_node("GRU", in, {attr_string("direction", "bidirectional"), attr_int("hidden_size", 2)}, 7, 2);
  expect_near(out[0], {0.36067191, -0.0149517967, 0.254154286, 0.0111665655, 0.133872686, 0.280782296, 0.354327114, -0.435126299, 0, 0, 0.421957499, 0.0826563658, 0, 0, 0.419388958, -0.551924391, 0, 0, 0.370716443, -0.16503874, 0, 0, -0.268897526, -0.242516279}, {3, 2, 2, 2});
  expect_near(out[1], {0.36067191, -0.0149517967, 0.370716443, -0.16503874, 0.133872686, 0.280782296, 0.354327114, -0.435126299}, {2, 2, 2});
}

TEST(RecurrentKernels, RnnBidirectionalActivations) {
  auto t = [](std::vector<double> v, Shape s) { return make_float(v, s); };
  std::vector<Value> in = {t({0.15, -0.71, -0.12, -0.5, 1.9, 0.9, 1.26, 0.3, -0.56, 1.17, 1.65, 0.58}, {3, 2, 2}), t({-0.01, 0.54, -0.19, 0.38, -0.36, -0.49, 0.28, 0.17, 0.95, -0.14, 0.01, -0.57}, {2, 3, 2}), t({-0.93, -0.89, 0.23, -0.59, 0.56, 0.71, -0.14, 0.83, 0.11, 0.56, -0.11, 0.48, -0.47, 0.31, -0.23, -0.07, 0.32, 0.09}, {2, 3, 3}), t({-0.02, 0.22, 0.24, -0.42, 0.17, 0.2, -0.23, 0.12, -0.4, 0.43, -0.07, -0.02}, {2, 6}),
      Tensor::from_vector<int32_t>({3, 2}, {2}), t({0.36, -0.04, 0.18, -0.31, -0.17, -0.42, -0.06, 0.31, 0.07, 0.27, -0.31, -0.26}, {2, 2, 3})};
  auto out = run_node("RNN", in, {attr_string("direction", "bidirectional"), attr_int("hidden_size", 3), attr_strings("activations", {"Relu", "Affine"}), attr_floats("activation_alpha", {0.5f}), attr_floats("activation_beta", {0.1f})}, 7, 2);
  expect_near(out[0], {0, 0, 0.6701, 0, 0.0123, 0.5843, 0.155291015, 0.31692812, 0.206346995, 0.1651645, 0.1275785, 0.104421, 0.181123, 0.846771, 0, 0, 0.686341, 0, 0.514968, 0.935407, -0.408761, 0.43215, 0.6209, -0.25995, 0, 1.30832919, 0.74576271, 0, 0, 0, 0.204, -0.1688, -0.3914, 0, 0, 0}, {3, 2, 2, 3});
  expect_near(out[1], {0, 1.30832919, 0.74576271, 0, 0.686341, 0, 0.155291015, 0.31692812, 0.206346995, 0.1651645, 0.1275785, 0.104421}, {2, 2, 3});
}

TEST(RecurrentKernels, RnnForwardFloat16) {
  auto t = [](std::vector<double> v, Shape s) { return make_float16(v, s); };
  std::vector<Value> in = {t({-0.15, -1.77, 0.05, -1.03, 0.04, 0.47, -0.68, -1.02, 0.99, 0.35, -0.64, -3}, {3, 2, 2}), t({-0.02, 0.31, 0.56, -0.34}, {1, 2, 2}), t({-0.32, -0.22, 0.42, -0.59}, {1, 2, 2}), t({-0.03, -0.28, 0.08, -0.47}, {1, 4}),
      Tensor::from_vector<int32_t>({3, 3}, {2}), t({0.11, -0.15, -0.07, 0.16}, {1, 2, 2})};
  auto out = run_node("RNN", in, {attr_string("direction", "forward"), attr_int("hidden_size", 2)}, 7, 2);
  expect_near(out[0], {-0.460464015, -0.0971922172, -0.275771767, -0.458649759, 0.3484081, -0.771268611, -0.0633650763, -0.557515432, 0.194383209, 0.279168332, -0.619547139, 0.210716263}, {3, 1, 2, 2});
  expect_near(out[1], {0.194383209, 0.279168332, -0.619547139, 0.210716263}, {1, 2, 2});
}

TEST(RecurrentKernels, OpsetVersionsAndTypesAreRegistered) {
  auto x = make_float({1, 2}, {1, 1, 2});
  auto w = make_float({0.1, 0.2}, {1, 1, 2});
  auto r = make_float({0.3}, {1, 1, 1});
  for (int64_t opset : {1, 7, 14, 22}) {
    auto out = run_node("RNN", {x, w, r}, {attr_int("hidden_size", 1)}, opset, 2);
    expect_near(out[1], {std::tanh(0.5)}, {1, 1, 1});
  }
  // bfloat16 only from opset 22.
  auto to_bf16 = [](const Value& v) {
    std::vector<BFloat16> b;
    for (int64_t i = 0; i < v.tensor().num_elements(); ++i)
      b.push_back(BFloat16(float(v.tensor().element_as_double(i))));
    return Value(Tensor::from_vector<BFloat16>(b, v.tensor().shape()));
  };
  EXPECT_THROW(run_node("RNN", {to_bf16(x), to_bf16(w), to_bf16(r)}, {}, 14, 2), Error);
  auto out = run_node("RNN", {to_bf16(x), to_bf16(w), to_bf16(r)}, {}, 22, 2);
  EXPECT_NEAR(out[1].tensor().element_as_double(0), std::tanh(0.5), 1e-2);
}

TEST(RecurrentKernels, RejectsBadShapesAndAttributes) {
  auto x = make_float({1, 2}, {1, 1, 2});
  auto w = make_float({0.1, 0.2}, {1, 1, 2});
  auto r = make_float({0.3}, {1, 1, 1});
  // W for a GRU needs 3 * hidden rows.
  EXPECT_THROW(run_node("GRU", {x, w, r}, {attr_int("hidden_size", 1)}, 14, 2), Error);
  EXPECT_THROW(run_node("RNN", {x, w, r}, {attr_string("direction", "sideways")}, 14, 2), Error);
  EXPECT_THROW(run_node("RNN", {x, w, r}, {attr_strings("activations", {"Nope"})}, 14, 2), Error);
  // hidden_size unlike R's, and one whose gate rows overflow int64.
  EXPECT_THROW(run_node("RNN", {x, w, r}, {attr_int("hidden_size", 2)}, 14, 2), Error);
  EXPECT_THROW(run_node("LSTM", {x, w, r}, {attr_int("hidden_size", int64_t(1) << 62)}, 14, 3),
               Error);
  // sequence_lens beyond seq_length.
  EXPECT_THROW(run_node("RNN", {x, w, r, Value(), Tensor::from_vector<int32_t>({2}, {1})}, {}, 14, 2),
               Error);
}

}  // namespace tessera::test
