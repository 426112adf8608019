// The CUDA CNN kernels (MaxPool, AveragePool, GlobalMaxPool,
// GlobalAveragePool, BatchNormalization, ConvTranspose) against the CPU
// provider in float32, float16 and bfloat16 (the CPU reference runs in
// float32 on the same rounded values), over their attributes and edge
// shapes. Needs a CUDA device: without one every test here is skipped.
#include <optional>

#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

const std::vector<DataType> kTypes = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16};

// One input: its dims, whether it is an initializer, its value range and
// (when not the test's type) its own element type.
struct In {
  std::vector<int64_t> dims;
  bool constant = false;
  float lo = -1, hi = 1;
  std::optional<DataType> type = std::nullopt;
};

// Builds the node twice (inputs in their types, and the same values in
// float32), runs both and compares.
void check_op(const std::string& op, int64_t opset, const std::vector<In>& inputs, DataType t,
              std::vector<ir::Attribute> attrs = {}, double tol_scale = 1,
              const std::string& what = "") {
  OneNode m(op, opset, attrs), ref(op, opset, attrs);
  uint32_t seed = 11;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const In& in = inputs[i];
    const std::string name = "in" + std::to_string(i);
    if (in.dims.size() == 1 && in.dims[0] < 0) {  // omitted optional input
      m.omitted();
      ref.omitted();
      continue;
    }
    Tensor v = make_tensor(in.type.value_or(t), in.dims,
                           random_values(count(in.dims), seed++, in.lo, in.hi));
    m.input(name, v, in.constant);
    ref.input(name, as_float(v), in.constant);
  }
  m.output("out");
  ref.output("out");
  expect_cuda_matches_cpu(
      m, ref, t, op + " " + std::string(data_type_name(t)) + (what.empty() ? "" : " ") + what,
      tol_scale);
}

// Runs `m` on [CUDA, CPU] (claimed by CUDA) and expects a run-time error
// naming the node and containing `part`.
void expect_run_error(const OneNode& m, const std::string& part) {
  auto s = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  ASSERT_EQ(assigned_provider(*s), kCuda);
  try {
    s->run(m.feeds);
    ADD_FAILURE() << "expected an error containing '" << part << "'";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(m.model.graph.nodes[0].name), std::string::npos) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

using Attrs = std::vector<ir::Attribute>;

}  // namespace

TEST(CudaCnnKernels, MaxPool) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::pair<std::vector<int64_t>, Attrs>> cases = {
      {{2, 3, 8, 8}, {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}},
      {{1, 2, 9, 7}, {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 0, 2, 1})}},
      {{1, 2, 9, 9},
       {attr_ints("kernel_shape", {3, 2}), attr_ints("dilations", {2, 3}),
        attr_ints("strides", {1, 2})}},
      {{1, 2, 8, 7},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_int("ceil_mode", 1)}},
      {{1, 2, 6, 6},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
        attr_ints("pads", {1, 1, 1, 1}), attr_int("ceil_mode", 1)}},
      {{1, 2, 7, 8},
       {attr_ints("kernel_shape", {2, 3}), attr_string("auto_pad", "SAME_UPPER"),
        attr_ints("strides", {2, 2})}},
      {{1, 2, 7, 8}, {attr_ints("kernel_shape", {2, 3}), attr_string("auto_pad", "SAME_LOWER")}},
      {{1, 2, 7, 8},
       {attr_ints("kernel_shape", {3, 3}), attr_string("auto_pad", "VALID"),
        attr_ints("strides", {2, 1})}},
      {{2, 3, 11}, {attr_ints("kernel_shape", {3}), attr_ints("pads", {2, 1})}},
      {{1, 2, 4, 5, 6},
       {attr_ints("kernel_shape", {2, 2, 3}), attr_ints("strides", {1, 2, 2}),
        attr_ints("pads", {0, 1, 1, 1, 0, 1})}},
      {{0, 3, 6, 6}, {attr_ints("kernel_shape", {2, 2})}},  // empty batch
      {{1, 1, 3, 3}, {attr_ints("kernel_shape", {3, 3})}},  // one window, one output
      {{2, 16, 32, 32},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
        attr_ints("pads", {1, 1, 1, 1})}},  // many blocks
  };
  for (DataType t : kTypes)
    for (const auto& [x, attrs] : cases) check_op("MaxPool", 12, {{x}}, t, attrs);
  // Opset 8 (no dilations or ceil_mode yet) and opset 1.
  check_op("MaxPool", 8, {{{1, 2, 6, 6}}}, DataType::kFloat, {attr_ints("kernel_shape", {2, 2})});
  check_op("MaxPool", 1, {{{1, 2, 6, 6}}}, DataType::kFloat,
           {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})});
  // All-negative inputs: padding must not contribute zeros to the max.
  check_op("MaxPool", 12, {{{1, 2, 5, 5}, false, -3.0f, -1.0f}}, DataType::kFloat,
           {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})});
}

TEST(CudaCnnKernels, AveragePool) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::pair<std::vector<int64_t>, Attrs>> cases = {
      {{2, 3, 8, 8}, {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}},
      {{1, 2, 9, 7}, {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 0, 2, 1})}},
      {{1, 2, 9, 7},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 0, 2, 1}),
        attr_int("count_include_pad", 1)}},
      {{1, 2, 8, 7},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_int("ceil_mode", 1)}},
      {{1, 2, 8, 7},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_int("ceil_mode", 1),
        attr_ints("pads", {1, 1, 1, 1}), attr_int("count_include_pad", 1)}},
      {{1, 2, 7, 8},
       {attr_ints("kernel_shape", {3, 2}), attr_string("auto_pad", "SAME_UPPER"),
        attr_ints("strides", {2, 2})}},
      {{1, 2, 7, 8},
       {attr_ints("kernel_shape", {3, 2}), attr_string("auto_pad", "SAME_LOWER"),
        attr_int("count_include_pad", 1)}},
      {{2, 3, 11},
       {attr_ints("kernel_shape", {4}), attr_ints("strides", {3}), attr_ints("pads", {1, 2}),
        attr_int("count_include_pad", 1)}},
      {{1, 2, 4, 5, 6},
       {attr_ints("kernel_shape", {2, 3, 3}), attr_ints("pads", {1, 1, 0, 0, 1, 2})}},
      {{0, 3, 6, 6}, {attr_ints("kernel_shape", {2, 2})}},
      {{2, 16, 32, 32},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {1, 1}),
        attr_ints("pads", {1, 1, 1, 1})}},
  };
  for (DataType t : kTypes)
    for (const auto& [x, attrs] : cases) check_op("AveragePool", 11, {{x}}, t, attrs);
  // Dilations (opset 19).
  for (DataType t : kTypes)
    check_op("AveragePool", 19, {{{1, 2, 9, 9}}}, t,
             {attr_ints("kernel_shape", {2, 3}), attr_ints("dilations", {2, 2}),
              attr_ints("pads", {1, 1, 1, 1}), attr_int("count_include_pad", 1)});
  check_op("AveragePool", 7, {{{1, 2, 6, 6}}}, DataType::kFloat,
           {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})});
}

TEST(CudaCnnKernels, GlobalPools) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 3, 5, 5}, {2, 3, 7}, {1, 2, 3, 4, 5}, {2, 3}, {1, 4, 64, 64}, {0, 3, 4, 4}, {1, 1, 1, 1}};
  for (const char* op : {"GlobalMaxPool", "GlobalAveragePool"})
    for (DataType t : kTypes)
      for (const auto& x : shapes) check_op(op, 1, {{x}}, t);
  // Mean of many elements away from 0 (float accumulation).
  check_op("GlobalAveragePool", 1, {{{1, 2, 300, 301}, false, 1.0f, 3.0f}}, DataType::kFloat);
}

TEST(CudaCnnKernels, GlobalMaxPoolPropagatesNaN) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  std::vector<float> v = random_values(2 * 300, 5);
  v[123] = std::nanf("");
  OneNode m("GlobalMaxPool", 1);
  m.input("x", make_tensor(DataType::kFloat, {1, 2, 300}, v)).output("y");
  auto s = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  ASSERT_EQ(assigned_provider(*s), kCuda);
  const Tensor y = s->run(m.feeds)[0].tensor();
  ASSERT_EQ(y.num_elements(), 2);
  EXPECT_TRUE(std::isnan(y.element_as_double(0)));
  EXPECT_FALSE(std::isnan(y.element_as_double(1)));
}

TEST(CudaCnnKernels, BatchNormalization) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  auto inputs = [](std::vector<int64_t> x, std::optional<DataType> params = std::nullopt,
                   std::optional<DataType> stats = std::nullopt) {
    const int64_t c = x[1];
    return std::vector<In>{{x, false, -2, 2},
                           {{c}, true, 0.5f, 1.5f, params},
                           {{c}, true, -1, 1, params},
                           {{c}, true, -0.5f, 0.5f, stats},
                           {{c}, true, 0.2f, 2.0f, stats}};  // variance: positive
  };
  const std::vector<std::vector<int64_t>> shapes = {{2, 3, 4, 5},    {2, 3},    {1, 4, 7},
                                                    {1, 2, 3, 4, 5}, {0, 3, 4}, {1, 64, 33, 33}};
  for (DataType t : kTypes)
    for (const auto& x : shapes) {
      check_op("BatchNormalization", 9, inputs(x), t, {attr_float("epsilon", 1e-3f)});
      check_op("BatchNormalization", 15, inputs(x), t);
    }
  // Opset 14: mean/var (U) in float, X in each type; opset 15: all three differ.
  for (DataType t : kTypes) {
    check_op("BatchNormalization", 14, inputs({2, 3, 4}, std::nullopt, DataType::kFloat), t);
    check_op("BatchNormalization", 15, inputs({2, 3, 4}, DataType::kBFloat16, DataType::kFloat16),
             t);
  }
  check_op("BatchNormalization", 7, inputs({2, 3, 4}), DataType::kFloat, {attr_int("spatial", 1)});
  // Scale with the wrong channel count fails at run time, naming the input.
  OneNode m("BatchNormalization", 15);
  m.input("x", make_tensor(DataType::kFloat, {1, 3, 2}, random_values(6, 1)));
  for (const char* name : {"scale", "b", "mean", "var"})
    m.input(name, make_tensor(DataType::kFloat, {std::string(name) == "scale" ? 2 : 3},
                              random_values(std::string(name) == "scale" ? 2 : 3, 2, 0.5f, 1.0f)));
  m.output("y");
  m.model.graph.inputs[0].type.shape.reset();  // no static shape: nothing to infer against
  expect_run_error(m, "scale");
}

// Pads that differ at the two ends of an axis (a causal 1-D convolution,
// TensorFlow's SAME with an even kernel or stride 2) run on a zero-bordered
// copy of X, in every rank and type cuDNN takes.
TEST(CudaCnnKernels, ConvWithUnevenPads) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  struct Case {
    std::vector<int64_t> x, w;
    Attrs attrs;
    std::string what;
  };
  const std::vector<Case> cases = {
      {{2, 4, 16},
       {6, 4, 3},
       {attr_ints("pads", {4, 0}), attr_ints("dilations", {2})},
       "causal 1-D, dilation 2"},
      {{1, 3, 7, 8}, {5, 3, 3, 3}, {attr_ints("pads", {0, 1, 1, 0})}, "2-D, pads 0,1 / 1,0"},
      {{1, 3, 8, 8},
       {4, 3, 3, 3},
       {attr_string("auto_pad", "SAME_UPPER"), attr_ints("strides", {2, 2})},
       "SAME_UPPER, stride 2"},
      {{1, 4, 6, 6},
       {4, 2, 2, 2},
       {attr_string("auto_pad", "SAME_LOWER"), attr_int("group", 2)},
       "SAME_LOWER, even kernel, group 2"},
      {{1, 2, 4, 5, 5}, {3, 2, 2, 3, 3}, {attr_ints("pads", {1, 0, 2, 0, 1, 1})}, "3-D"},
  };
  for (const Case& c : cases)
    for (DataType t : {DataType::kFloat, DataType::kFloat16}) {
      check_op("Conv", 11, {{c.x}, {c.w, true}}, t, c.attrs, 1, c.what);
      check_op("Conv", 11, {{c.x}, {c.w, true}, {{c.w[0]}, true}}, t, c.attrs, 1,
               c.what + ", bias");
    }
}

TEST(CudaCnnKernels, ConvTranspose) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  struct Case {
    std::vector<int64_t> x, w;
    bool bias;
    Attrs attrs;
    std::string what;
  };
  const std::vector<Case> cases = {
      {{2, 4, 5, 5}, {4, 3, 3, 3}, true, {}, "plain, bias"},
      {{1, 4, 5, 5},
       {4, 3, 3, 3},
       false,
       {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1}),
        attr_ints("output_padding", {1, 1})},
       "strides, pads, output_padding"},
      {{1, 4, 6, 6},
       {4, 2, 3, 3},
       true,
       {attr_int("group", 2), attr_ints("strides", {2, 1})},
       "group 2"},
      {{1, 6, 5, 5},
       {6, 1, 3, 3},
       true,
       {attr_int("group", 6), attr_ints("pads", {1, 1, 1, 1})},
       "depthwise"},
      {{1, 3, 5, 6}, {3, 2, 3, 2}, false, {attr_ints("dilations", {2, 3})}, "dilations"},
      {{2, 3, 9}, {3, 4, 3}, true, {attr_ints("strides", {3}), attr_ints("pads", {1, 1})}, "1-D"},
      {{1, 2, 3, 4, 5}, {2, 3, 2, 3, 2}, true, {attr_ints("strides", {2, 1, 2})}, "3-D"},
      {{1, 2, 5, 5},
       {2, 2, 3, 3},
       false,
       {attr_ints("pads", {0, 0, 2, 1})},
       "end pads beyond the begin pads (cropped)"},
      {{1, 2, 5, 5},
       {2, 2, 3, 3},
       true,
       {attr_ints("pads", {1, 2, 0, 0}), attr_ints("strides", {2, 3})},
       "begin pads beyond the end pads"},
      {{2, 2, 4, 5},
       {2, 3, 3, 3},
       true,
       {attr_ints("strides", {2, 2}), attr_ints("pads", {0, 1, 2, 2}),
        attr_ints("output_padding", {1, 0})},
       "asymmetric pads with output_padding (cropped)"},
      {{1, 2, 5, 5},
       {2, 2, 3, 3},
       true,
       {attr_string("auto_pad", "SAME_UPPER"), attr_ints("strides", {2, 2})},
       "SAME_UPPER"},
      {{1, 2, 5, 5},
       {2, 2, 4, 4},
       true,
       {attr_string("auto_pad", "SAME_LOWER"), attr_ints("strides", {2, 2})},
       "SAME_LOWER"},
      {{1, 2, 5, 5},
       {2, 2, 3, 3},
       false,
       {attr_string("auto_pad", "VALID"), attr_ints("strides", {2, 2})},
       "VALID"},
      {{1, 2, 5, 5},
       {2, 2, 3, 3},
       true,
       {attr_ints("output_shape", {10, 10}), attr_ints("strides", {2, 2})},
       "output_shape"},
      {{1, 2, 5, 5},
       {2, 2, 3, 3},
       false,
       {attr_ints("output_shape", {1, 2, 9, 9}), attr_ints("strides", {2, 2})},
       "output_shape with N and C"},
      {{0, 2, 5, 5}, {2, 3, 3, 3}, true, {}, "empty batch"},
      {{2, 8, 16, 16},
       {8, 16, 4, 4},
       true,
       {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1})},
       "larger"},
  };
  for (DataType t : kTypes)
    for (const Case& c : cases) {
      // The bias has C_out = W[1] * group elements.
      int64_t group = 1;
      for (const auto& a : c.attrs)
        if (a.name == "group") group = a.i;
      std::vector<In> in = {{c.x}, {c.w, true}};
      if (c.bias) in.push_back({{c.w[1] * group}, true});
      check_op("ConvTranspose", 11, in, t, c.attrs, 10, c.what);
    }
  check_op("ConvTranspose", 1, {{{1, 2, 4, 4}}, {{2, 3, 3, 3}, true}}, DataType::kFloat);
  OneNode m("ConvTranspose", 11, {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1})});
  m.input("x", make_tensor(DataType::kFloat, {1, 3, 8, 8}, random_values(192, 1)))
      .input("w", make_tensor(DataType::kFloat, {3, 4, 3, 3}, random_values(108, 2)), true)
      .output("y");
  expect_each_search_matches_cpu(m);
}

TEST(CudaCnnKernels, ConvTransposeRunTimeErrors) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // output_shape beyond the natural size makes the begin pad negative.
  OneNode m("ConvTranspose", 11,
            {attr_ints("output_shape", {13, 13}), attr_ints("strides", {2, 2})});
  m.input("x", make_tensor(DataType::kFloat, {1, 2, 5, 5}, random_values(50, 1)))
      .input("w", make_tensor(DataType::kFloat, {2, 2, 3, 3}, random_values(36, 2)), true)
      .output("y");
  expect_run_error(m, "negative");
}
