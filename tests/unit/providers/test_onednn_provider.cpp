// The oneDNN provider: option validation, what it claims and declines, and
// its kernels against the CPU provider on one-node models.
#include <thread>

#include "core/logging.hpp"
#include "ep/provider_registry.hpp"
#include "providers/onednn/dnnl_provider.hpp"
#include "unit/kernel_test_util.hpp"
#include "unit/providers/test_onednn_util.hpp"

using namespace tessera;
using namespace tessera::test::dnnl;
using tessera::test::attr_float;
using tessera::test::attr_int;
using tessera::test::attr_ints;
using tessera::test::attr_string;

namespace {

std::string create_error(const ep::ProviderOptions& options) {
  const auto* f = ep::ProviderRegistry::instance().find(kDnnl);
  EXPECT_NE(f, nullptr);
  try {
    f->create(options);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

// Runs the model with [Dnnl, CPU] and [CPU]; checks that the node ran on
// oneDNN and that the outputs agree.
void expect_dnnl_matches_cpu(const OneNode& m, double rtol = 1e-4, double atol = 1e-4) {
  auto dnnl = session_with(m.model, {{kDnnl, {}}, {kCpu, {}}});
  auto cpu = session_with(m.model, {{kCpu, {}}});
  auto assigned = dnnl->node_assignments();
  ASSERT_EQ(assigned.size(), 1u);
  std::string reasons;
  for (const auto& [p, r] : assigned[0].declined) reasons += p + ": " + r + "; ";
  EXPECT_EQ(assigned[0].provider, kDnnl) << reasons;
  auto got = dnnl->run(m.feeds);
  auto want = cpu->run(m.feeds);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    expect_close(got[i].tensor(), want[i].tensor(), rtol, atol);
}

std::string decline_reason(const OneNode& m) {
  auto s = session_with(m.model, {{kDnnl, {}}, {kCpu, {}}});
  auto a = s->node_assignments();
  EXPECT_EQ(a[0].provider, kCpu);
  for (const auto& [p, r] : a[0].declined)
    if (p == kDnnl) return r;
  return "";
}

}  // namespace

TEST(OnednnProvider, IsRegisteredAndAvailable) {
  const auto* f = ep::ProviderRegistry::instance().find(kDnnl);
  ASSERT_NE(f, nullptr);
  std::string why;
  EXPECT_TRUE(f->is_available(&why)) << why;
  auto names = ep::ProviderRegistry::instance().available_names();
  EXPECT_NE(std::find(names.begin(), names.end(), kDnnl), names.end());
}

TEST(OnednnProvider, OptionErrorsListValidKeysAndValues) {
  auto e = create_error({{"threads", "4"}});
  EXPECT_NE(e.find("unknown option 'threads'"), std::string::npos) << e;
  EXPECT_NE(e.find("num_threads"), std::string::npos) << e;
  EXPECT_NE(e.find("enable_bf16"), std::string::npos) << e;
  EXPECT_NE(e.find("0..4096"), std::string::npos) << e;  // values too, not only keys
  e = create_error({{"num_threads", "four"}});
  EXPECT_NE(e.find("'four'"), std::string::npos) << e;
  EXPECT_NE(e.find("integer"), std::string::npos) << e;
  e = create_error({{"num_threads", "-1"}});
  EXPECT_NE(e.find("'-1'"), std::string::npos) << e;
  e = create_error({{"conv_post_ops", "fused"}});
  EXPECT_NE(e.find("primitive, separate"), std::string::npos) << e;
  e = create_error({{"enable_bf16", "yes"}});
  EXPECT_NE(e.find("0, 1"), std::string::npos) << e;
  const auto* f = ep::ProviderRegistry::instance().find(kDnnl);
  EXPECT_NO_THROW(f->create({{"num_threads", "2"}, {"enable_bf16", "0"}}));
  EXPECT_NO_THROW(f->create({{"enable_bf16", "1"}}));
}

TEST(OnednnProvider, BadOptionsFailTheSession) {
  OneNode m("Relu", 17);
  m.input("x", random_tensor({2, 3}, 1)).output("y");
  EXPECT_THROW(session_with(m.model, {{kDnnl, {{"bogus", "1"}}}, {kCpu, {}}}), Error);
}

TEST(OnednnProvider, PartitionSplitsBetweenDnnlAndCpu) {
  // Conv -> Cast -> Relu: oneDNN has no Cast, so the CPU provider takes it.
  // (Through float16, which rounds, so the optimizer keeps the Casts.)
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {1, 2, 5, 5}));
  m.graph.initializers["w"] = random_tensor({4, 2, 3, 3}, 2);
  ir::Node conv;
  conv.name = "conv";
  conv.op_type = "Conv";
  conv.inputs = {"x", "w"};
  conv.outputs = {"c"};
  ir::Node cast;
  cast.name = "cast";
  cast.op_type = "Cast";
  cast.inputs = {"c"};
  cast.outputs = {"d"};
  cast.attributes = {attr_int("to", int64_t(DataType::kFloat16))};
  ir::Node cast2 = cast;
  cast2.name = "cast2";
  cast2.inputs = {"d"};
  cast2.outputs = {"e"};
  cast2.attributes = {attr_int("to", int64_t(DataType::kFloat))};
  ir::Node relu;
  relu.name = "relu";
  relu.op_type = "Relu";
  relu.inputs = {"e"};
  relu.outputs = {"y"};
  m.graph.nodes = {conv, cast, cast2, relu};
  ir::ValueInfo y;
  y.name = "y";
  m.graph.outputs.push_back(y);

  auto s = session_with(m, {{kDnnl, {}}, {kCpu, {}}});
  std::map<std::string, std::string> where;
  for (const auto& a : s->node_assignments()) where[a.node_name] = a.provider;
  EXPECT_EQ(where["conv"], kDnnl);
  EXPECT_EQ(where["cast"], kCpu);
  EXPECT_EQ(where["relu"], kDnnl);
  auto x = random_tensor({1, 2, 5, 5}, 3);
  auto got = s->run({{"x", x}});
  auto want = session_with(m, {{kCpu, {}}})->run({{"x", x}});
  expect_close(got[0].tensor(), want[0].tensor());
}

TEST(OnednnProvider, DeclinesWithReasons) {
  OneNode cast("Cast", 17, {attr_int("to", int64_t(DataType::kDouble))});
  cast.input("x", random_tensor({2, 2}, 1)).output("y");
  EXPECT_NE(decline_reason(cast).find("no kernel"), std::string::npos);

  OneNode pool("MaxPool", 12, {attr_ints("kernel_shape", {2, 2})});
  pool.input("x", random_tensor({1, 1, 4, 4}, 1)).output("y").output("indices");
  EXPECT_NE(decline_reason(pool).find("Indices"), std::string::npos);

  OneNode relu("Relu", 17);
  Tensor d(DataType::kDouble, Shape({2}));
  d.mutable_data<double>()[0] = 1;
  d.mutable_data<double>()[1] = -1;
  relu.model.graph.nodes[0].inputs.push_back("x");
  relu.model.graph.inputs.push_back(tensor_info("x", {2}, DataType::kDouble));
  relu.feeds.emplace_back("x", Value(d));
  relu.output("y");
  EXPECT_NE(decline_reason(relu).find("double"), std::string::npos);
}

TEST(OnednnKernels, ConvGroupedPaddedStridedWithBias) {
  OneNode m("Conv", 17,
            {attr_int("group", 2), attr_ints("pads", {1, 0, 2, 1}), attr_ints("strides", {2, 1}),
             attr_ints("dilations", {1, 2})});
  m.input("x", random_tensor({2, 4, 7, 8}, 1))
      .input("w", random_tensor({6, 2, 3, 3}, 2), true)
      .input("b", random_tensor({6}, 3), true)
      .output("y");
  expect_dnnl_matches_cpu(m);
}

TEST(OnednnKernels, ConvNonConstantWeightsAndSameUpper) {
  OneNode m("Conv", 11, {attr_string("auto_pad", "SAME_UPPER"), attr_ints("strides", {2, 2})});
  m.input("x", random_tensor({1, 3, 9, 10}, 4))
      .input("w", random_tensor({5, 3, 4, 3}, 5))
      .output("y");
  expect_dnnl_matches_cpu(m);
}

TEST(OnednnKernels, Conv1dAnd3d) {
  OneNode c1("Conv", 17, {attr_ints("pads", {1, 1})});
  c1.input("x", random_tensor({2, 3, 11}, 6))
      .input("w", random_tensor({4, 3, 3}, 7), true)
      .output("y");
  expect_dnnl_matches_cpu(c1);
  OneNode c3("Conv", 17);
  c3.input("x", random_tensor({1, 2, 4, 5, 6}, 8))
      .input("w", random_tensor({3, 2, 2, 2, 2}, 9), true)
      .output("y");
  expect_dnnl_matches_cpu(c3);
}

TEST(OnednnKernels, MatMulBroadcastsAndPromotes) {
  OneNode a("MatMul", 13);
  a.input("a", random_tensor({2, 1, 3, 4}, 1)).input("b", random_tensor({5, 4, 6}, 2)).output("y");
  expect_dnnl_matches_cpu(a);
  OneNode v("MatMul", 13);
  v.input("a", random_tensor({4}, 3)).input("b", random_tensor({3, 4, 2}, 4)).output("y");
  expect_dnnl_matches_cpu(v);
  OneNode w("MatMul", 13);
  w.input("a", random_tensor({3, 4}, 5)).input("b", random_tensor({4}, 6)).output("y");
  expect_dnnl_matches_cpu(w);
}

TEST(OnednnKernels, GemmTransposesScalesAndBroadcastsC) {
  for (auto c_dims : std::vector<std::vector<int64_t>>{{5}, {3, 1}, {3, 5}, {}}) {
    OneNode m("Gemm", 13,
              {attr_int("transA", 1), attr_int("transB", 1), attr_float("alpha", 0.5f),
               attr_float("beta", 2.0f)});
    m.input("a", random_tensor({4, 3}, 1)).input("b", random_tensor({5, 4}, 2), true);
    m.input("c", random_tensor(c_dims, 3)).output("y");
    expect_dnnl_matches_cpu(m);
  }
  OneNode noc("Gemm", 13);
  noc.input("a", random_tensor({3, 4}, 1)).input("b", random_tensor({4, 5}, 2)).output("y");
  expect_dnnl_matches_cpu(noc);
}

TEST(OnednnKernels, Pooling) {
  OneNode mx("MaxPool", 12,
             {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
              attr_int("ceil_mode", 1), attr_ints("pads", {1, 1, 0, 0})});
  mx.input("x", random_tensor({1, 2, 8, 9}, 1)).output("y");
  expect_dnnl_matches_cpu(mx);
  OneNode avg("AveragePool", 19,
              {attr_ints("kernel_shape", {2, 3}), attr_ints("pads", {1, 1, 1, 1}),
               attr_int("count_include_pad", 1)});
  avg.input("x", random_tensor({2, 3, 6, 7}, 2)).output("y");
  expect_dnnl_matches_cpu(avg);
  OneNode avg2("AveragePool", 19,
               {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})});
  avg2.input("x", random_tensor({1, 2, 5, 5}, 3)).output("y");
  expect_dnnl_matches_cpu(avg2);
  OneNode g("GlobalAveragePool", 1);
  g.input("x", random_tensor({2, 3, 4, 5}, 4)).output("y");
  expect_dnnl_matches_cpu(g);
  OneNode gm("GlobalMaxPool", 1);
  gm.input("x", random_tensor({2, 3, 7}, 5)).output("y");
  expect_dnnl_matches_cpu(gm);
}

TEST(OnednnKernels, Normalization) {
  OneNode bn("BatchNormalization", 15, {attr_float("epsilon", 1e-3f)});
  Tensor var = random_tensor({3}, 5);
  for (int i = 0; i < 3; ++i) var.mutable_data<float>()[i] = 0.5f + std::fabs(var.data<float>()[i]);
  bn.input("x", random_tensor({2, 3, 4, 5}, 1))
      .input("s", random_tensor({3}, 2), true)
      .input("b", random_tensor({3}, 3), true)
      .input("m", random_tensor({3}, 4), true)
      .input("v", var, true)
      .output("y");
  expect_dnnl_matches_cpu(bn);
  OneNode ln("LayerNormalization", 17, {attr_int("axis", 1)});
  ln.input("x", random_tensor({2, 3, 4}, 1))
      .input("s", random_tensor({3, 4}, 2), true)
      .input("b", random_tensor({3, 4}, 3), true)
      .output("y");
  expect_dnnl_matches_cpu(ln);
  OneNode ln2("LayerNormalization", 17);
  ln2.input("x", random_tensor({5, 8}, 4)).input("s", random_tensor({8}, 5)).output("y");
  expect_dnnl_matches_cpu(ln2);
}

TEST(OnednnKernels, SoftmaxBothSemantics) {
  for (int64_t opset : {11, 13})
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      OneNode m(op, opset, {attr_int("axis", 1)});
      m.input("x", random_tensor({2, 3, 4}, 1)).output("y");
      expect_dnnl_matches_cpu(m);
    }
}

TEST(OnednnKernels, Activations) {
  struct Case {
    const char* op;
    int64_t opset;
    std::vector<ir::Attribute> attrs;
  };
  std::vector<Case> cases = {{"Relu", 14, {}},
                             {"LeakyRelu", 16, {attr_float("alpha", 0.2f)}},
                             {"Elu", 6, {}},
                             {"Sigmoid", 13, {}},
                             {"Tanh", 13, {}},
                             {"Exp", 13, {}},
                             {"Abs", 13, {}},
                             {"Softplus", 1, {}},
                             {"HardSwish", 14, {}},
                             {"Mish", 18, {}},
                             {"Gelu", 20, {attr_string("approximate", "tanh")}},
                             {"Gelu", 20, {}},
                             {"Clip", 6, {attr_float("min", -0.3f), attr_float("max", 0.4f)}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    OneNode m(c.op, c.opset, c.attrs);
    m.input("x", random_tensor({3, 17}, 1)).output("y");
    expect_dnnl_matches_cpu(m);
  }
  OneNode clip("Clip", 13);
  clip.input("x", random_tensor({40}, 2))
      .omitted()
      .input("hi", Tensor::scalar(0.25f), true)
      .output("y");
  expect_dnnl_matches_cpu(clip);
}

TEST(OnednnKernels, ConcurrentRunsAndNewShapes) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  ir::ValueInfo x;
  x.name = "x";
  x.type = ir::TypeInfo::tensor(
      DataType::kFloat, std::vector<ir::Dim>{{std::nullopt, "N"}, {3, ""}, {8, ""}, {8, ""}});
  m.graph.inputs.push_back(x);
  m.graph.initializers["w"] = random_tensor({4, 3, 3, 3}, 1);
  ir::Node conv;
  conv.name = "conv";
  conv.op_type = "Conv";
  conv.inputs = {"x", "w"};
  conv.outputs = {"y"};
  conv.attributes = {attr_ints("pads", {1, 1, 1, 1})};
  m.graph.nodes = {conv};
  ir::ValueInfo y;
  y.name = "y";
  m.graph.outputs.push_back(y);
  auto dnnl = session_with(m, {{kDnnl, {{"num_threads", "2"}}}, {kCpu, {}}});
  auto cpu = session_with(m, {{kCpu, {}}});
  EXPECT_EQ(dnnl->node_assignments()[0].provider, kDnnl);
  std::vector<std::thread> threads;
  std::vector<Tensor> got(6), inputs(6);
  for (int i = 0; i < 6; ++i) inputs[size_t(i)] = random_tensor({1 + i % 3, 3, 8, 8}, uint32_t(i));
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&, i] {
      got[size_t(i)] = dnnl->run({{"x", inputs[size_t(i)]}})[0].tensor();
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 6; ++i)
    expect_close(got[size_t(i)], cpu->run({{"x", inputs[size_t(i)]}})[0].tensor());
}

TEST(OnednnKernels, Bf16FastMathStaysClose) {
  // With enable_bf16=1 on a CPU with avx512_bf16, Conv/MatMul compute in bf16:
  // about 3 significant digits, so only a loose match with the CPU provider.
  OneNode m("Conv", 17, {attr_ints("pads", {1, 1, 1, 1})});
  m.input("x", random_tensor({1, 16, 12, 12}, 1))
      .input("w", random_tensor({16, 16, 3, 3}, 2), true)
      .output("y");
  auto dnnl = session_with(m.model, {{kDnnl, {{"enable_bf16", "1"}}}, {kCpu, {}}});
  auto cpu = session_with(m.model, {{kCpu, {}}});
  EXPECT_EQ(dnnl->node_assignments()[0].provider, kDnnl);
  expect_close(dnnl->run(m.feeds)[0].tensor(), cpu->run(m.feeds)[0].tensor(), 5e-2, 1e-1);
}

TEST(OnednnProvider, Bf16IsDeclinedWithAWarningWhereTheCpuLacksIt) {
  std::vector<std::string> lines;
  Severity before = log_severity();
  set_log_severity(Severity::kWarning);
  set_log_sink([&](Severity, const std::string& line) { lines.push_back(line); });
  const auto* f = ep::ProviderRegistry::instance().find(kDnnl);
  f->create({{"enable_bf16", "1"}});
  set_log_sink(nullptr);
  set_log_severity(before);
  bool warned = false;
  for (const auto& l : lines) warned |= l.find("enable_bf16=1 declined") != std::string::npos;
  // This machine decides which branch runs; each must hold where it applies.
  EXPECT_EQ(warned, !onednn::dnnl_bf16_supported());
}

// oneDNN's OpenMP threads follow the session's intra_op_num_threads unless the
// provider's num_threads says otherwise (no hidden one-thread-per-core pool).
TEST(OnednnProvider, ThreadsFollowTheSession) {
  OneNode relu("Relu", 14);
  relu.input("x", random_tensor({64}, 1)).output("y");
  for (const int intra : {1, 3}) {
    SessionOptions o;
    o.intra_op_num_threads = intra;
    auto s = Session::create_from_model(relu.model, o, {{kDnnl, {}}, {kCpu, {}}});
    ASSERT_EQ(s->node_assignments()[0].provider, kDnnl);
    s->run(relu.feeds);
    EXPECT_EQ(onednn::dnnl_last_call_threads(), intra);
  }
  SessionOptions o;
  o.intra_op_num_threads = 1;
  auto s = Session::create_from_model(relu.model, o, {{kDnnl, {{"num_threads", "2"}}}, {kCpu, {}}});
  s->run(relu.feeds);
  EXPECT_EQ(onednn::dnnl_last_call_threads(), 2);
}
