#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/logging.hpp"
#include "runtime/session.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;

namespace {

ir::ValueInfo tensor_info(const std::string& name, DataType t, std::vector<ir::Dim> dims) {
  return {name, ir::TypeInfo::tensor(t, dims), ""};
}

ir::Dim dim(int64_t v) { return ir::Dim{v, ""}; }
ir::Dim sym(const std::string& s) { return ir::Dim{std::nullopt, s}; }

// y = Relu(x + b), with b an overridable initializer.
ir::Model add_relu_model() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.name = "add_relu";
  m.graph.inputs.push_back(tensor_info("x", DataType::kFloat, {sym("N"), dim(3)}));
  m.graph.inputs.push_back(tensor_info("b", DataType::kFloat, {dim(3)}));
  m.graph.initializers["b"] = Tensor::from_vector<float>({1, -2, 3}, Shape{3});
  m.graph.nodes.push_back(test::make_node("Add", {"x", "b"}, {"s"}));
  m.graph.nodes.push_back(test::make_node("Relu", {"s"}, {"y"}));
  m.graph.outputs.push_back(tensor_info("y", DataType::kFloat, {sym("N"), dim(3)}));
  return m;
}

std::vector<float> values(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

std::string error_of(const std::function<void()>& fn, ErrorCode expected) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

}  // namespace

TEST(RuntimeSession, RunsAndUsesInitializerUnlessOverridden) {
  auto s = Session::create_from_model(add_relu_model());
  ASSERT_EQ(s->inputs().size(), 1u);
  EXPECT_EQ(s->inputs()[0].name, "x");
  ASSERT_EQ(s->overridable_initializers().size(), 1u);
  auto x = Tensor::from_vector<float>({1, 1, 1, -5, 5, -5}, Shape{2, 3});
  auto out = s->run({{"x", x}});
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 3}));
  EXPECT_EQ(values(out[0]), (std::vector<float>{2, 0, 4, 0, 3, 0}));
  auto b = Tensor::from_vector<float>({0, 0, 0}, Shape{3});
  out = s->run({{"x", x}, {"b", b}});
  EXPECT_EQ(values(out[0]), (std::vector<float>{1, 1, 1, 0, 5, 0}));
}

TEST(RuntimeSession, BadFeedsNameWhatIsWrong) {
  auto s = Session::create_from_model(add_relu_model());
  auto err = error_of(
      [&] {
        s->run({{"x", Tensor::from_vector<int32_t>({1, 2, 3}, Shape{1, 3})}});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(err.find("'x'"), std::string::npos) << err;
  EXPECT_NE(err.find("tensor(int32)"), std::string::npos) << err;
  err = error_of(
      [&] {
        s->run({{"x", Tensor::from_vector<float>({1, 2}, Shape{1, 2})}});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(err.find("[N,3]"), std::string::npos) << err;
  EXPECT_NE(err.find("[1,2]"), std::string::npos) << err;
  err = error_of(
      [&] {
        s->run({{"nope", Tensor::scalar<float>(1)}});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(err.find("inputs are: x"), std::string::npos) << err;
  err = error_of([&] { s->run({}); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(err.find("'x'"), std::string::npos) << err;
  err = error_of(
      [&] {
        s->run({{"x", Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3})}}, {"zz"});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(err.find("outputs are: y"), std::string::npos) << err;
}

TEST(RuntimeSession, FreeDimensionOverrideFixesTheDim) {
  SessionOptions o;
  o.free_dimension_overrides["N"] = 2;
  auto s = Session::create_from_model(add_relu_model(), o);
  EXPECT_EQ(s->inputs()[0].type.shape_string(), "[2,3]");
  auto err = error_of(
      [&] {
        s->run({{"x", Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3})}});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(err.find("[2,3]"), std::string::npos) << err;
}

TEST(RuntimeSession, TerminateStopsTheRun) {
  auto s = Session::create_from_model(add_relu_model());
  RunOptions ro;
  ro.terminate->store(true);
  error_of(
      [&] {
        s->run({{"x", Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3})}}, {}, ro);
      },
      ErrorCode::kTerminated);
}

TEST(RuntimeSession, ConcurrentRunsAreIndependent) {
  auto s = Session::create_from_model(add_relu_model());
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        float v = float(t * 1000 + i);
        auto out = s->run({{"x", Tensor::from_vector<float>({v, v, v}, Shape{1, 3})}});
        auto got = values(out[0]);
        if (got != std::vector<float>{v + 1, std::max(0.0f, v - 2), v + 3}) {
          ++wrong;
          ADD_FAILURE() << v << ": " << got[0] << "," << got[1] << "," << got[2];
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(RuntimeSession, NodeWithoutKernelFailsCreationWithDetails) {
  ir::Model m = add_relu_model();
  m.graph.nodes[1].op_type = "NoSuchOp";
  auto err = error_of([&] { Session::create_from_model(m); }, ErrorCode::kNotImplemented);
  EXPECT_NE(err.find("NoSuchOp node"), std::string::npos) << err;
  EXPECT_NE(err.find("opset 17"), std::string::npos) << err;
  EXPECT_NE(err.find("tensor(float)"), std::string::npos) << err;
}

TEST(RuntimeSession, ProviderErrors) {
  auto err = error_of(
      [] {
        Session::create_from_model(add_relu_model(), {}, {{"NoSuchEP", {}}});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(err.find("CPUExecutionProvider"), std::string::npos) << err;
  err = error_of(
      [] {
        Session::create_from_model(add_relu_model(), {},
                                   {{"CPUExecutionProvider", {{"bogus", "1"}}}});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(err.find("'bogus'"), std::string::npos) << err;
  SessionOptions o;
  o.disable_cpu_fallback = true;
  error_of([&] { Session::create_from_model(add_relu_model(), o, {}); },
           ErrorCode::kInvalidArgument);
  auto s = Session::create_from_model(add_relu_model());
  EXPECT_EQ(s->providers(), (std::vector<std::string>{"CPUExecutionProvider"}));
  for (const auto& a : s->node_assignments()) EXPECT_EQ(a.provider, "CPUExecutionProvider");
}

TEST(RuntimeSession, ProfilingWritesChromeTrace) {
  SessionOptions o;
  o.enable_profiling = true;
  o.profile_file_prefix = (std::filesystem::temp_directory_path() / "tessera_prof_test").string();
  auto s = Session::create_from_model(add_relu_model(), o);
  s->run({{"x", Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3})}});
  std::string path = s->end_profiling();
  ASSERT_FALSE(path.empty());
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"ph\":\"X\""), std::string::npos);
  EXPECT_NE(text.find("Relu_y"), std::string::npos);
  EXPECT_NE(text.find("CPUExecutionProvider"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(RuntimeSession, IfBranchReadsOuterScope) {
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("c", DataType::kBool, {}));
  m.graph.inputs.push_back(tensor_info("x", DataType::kFloat, {dim(2)}));
  auto branch = [](const std::string& op) {
    auto g = std::make_shared<ir::Graph>();
    g->nodes.push_back(test::make_node(op, {"x"}, {"r"}));
    g->outputs.push_back(tensor_info("r", DataType::kFloat, {dim(2)}));
    return g;
  };
  ir::Attribute t, e;
  t.name = "then_branch";
  t.type = ir::AttrType::kGraph;
  t.g = branch("Relu");
  e = t;
  e.name = "else_branch";
  e.g = branch("Neg");
  m.graph.nodes.push_back(test::make_node("If", {"c"}, {"y"}, {t, e}));
  m.graph.outputs.push_back(tensor_info("y", DataType::kFloat, {dim(2)}));
  auto s = Session::create_from_model(m);
  auto x = Tensor::from_vector<float>({-1, 2}, Shape{2});
  EXPECT_EQ(values(s->run({{"c", Tensor::scalar<bool>(true)}, {"x", x}})[0]),
            (std::vector<float>{0, 2}));
  EXPECT_EQ(values(s->run({{"c", Tensor::scalar<bool>(false)}, {"x", x}})[0]),
            (std::vector<float>{1, -2}));
}

TEST(RuntimeSession, LoopCarriesAndScans) {
  // acc = acc + x for M iterations; scan output collects acc each step.
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("M", DataType::kInt64, {}));
  m.graph.inputs.push_back(tensor_info("x", DataType::kFloat, {dim(2)}));
  m.graph.initializers["acc0"] = Tensor::from_vector<float>({0, 0}, Shape{2});
  m.graph.initializers["cond0"] = Tensor::scalar<bool>(true);
  auto body = std::make_shared<ir::Graph>();
  body->inputs.push_back(tensor_info("i", DataType::kInt64, {}));
  body->inputs.push_back(tensor_info("cin", DataType::kBool, {}));
  body->inputs.push_back(tensor_info("acc", DataType::kFloat, {dim(2)}));
  body->nodes.push_back(test::make_node("Identity", {"cin"}, {"cout"}));
  body->nodes.push_back(test::make_node("Add", {"acc", "x"}, {"acc_next"}));
  body->nodes.push_back(test::make_node("Identity", {"acc_next"}, {"scan"}));
  body->outputs.push_back(tensor_info("cout", DataType::kBool, {}));
  body->outputs.push_back(tensor_info("acc_next", DataType::kFloat, {dim(2)}));
  body->outputs.push_back(tensor_info("scan", DataType::kFloat, {dim(2)}));
  ir::Attribute b;
  b.name = "body";
  b.type = ir::AttrType::kGraph;
  b.g = body;
  m.graph.nodes.push_back(test::make_node("Loop", {"M", "cond0", "acc0"}, {"final", "all"}, {b}));
  m.graph.outputs.push_back(tensor_info("final", DataType::kFloat, {dim(2)}));
  m.graph.outputs.push_back(tensor_info("all", DataType::kFloat, {sym("T"), dim(2)}));
  auto s = Session::create_from_model(m);
  auto out = s->run(
      {{"M", Tensor::scalar<int64_t>(3)}, {"x", Tensor::from_vector<float>({1, 10}, Shape{2})}});
  EXPECT_EQ(values(out[0]), (std::vector<float>{3, 30}));
  EXPECT_EQ(out[1].tensor().shape(), (Shape{3, 2}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{1, 10, 2, 20, 3, 30}));
}

TEST(RuntimeSession, SteadyStateRunsReuseArenaMemory) {
  // Add then Transpose: the sum's block is freed during the run (Transpose
  // cannot write over it), so the arena caches a block beside the output.
  ir::Model m = add_relu_model();
  m.graph.nodes.back() = test::make_node("Transpose", {"s"}, {"y"});
  m.graph.outputs.back() = tensor_info("y", DataType::kFloat, {dim(3), sym("N")});
  auto s = Session::create_from_model(m);
  auto x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  s->run({{"x", x}});
  auto first = s->allocator_stats();
  ASSERT_EQ(first.size(), 1u);
  size_t reserved = first[0].second.reserved;
  EXPECT_GT(reserved, 0u);
  for (int i = 0; i < 5; ++i) s->run({{"x", x}});
  EXPECT_EQ(s->allocator_stats()[0].second.reserved, reserved);  // nothing new from the system
  RunOptions ro;
  ro.config_entries["memory.enable_memory_arena_shrinkage"] = "cpu:0";
  auto out = s->run({{"x", x}}, {}, ro);
  // Shrunk at the end of the run: only what is still held (the output) stays.
  const auto shrunk = s->allocator_stats()[0].second;
  EXPECT_EQ(shrunk.reserved, shrunk.in_use);
  EXPECT_LT(shrunk.reserved, reserved);
  EXPECT_EQ(values(out[0]), (std::vector<float>{2, 5, 0, 3, 6, 9}));
}

TEST(RuntimeSession, AllowSpinningOptionIsValidatedAndEitherValueRuns) {
  auto x = Tensor::from_vector<float>({1, -2, 3, -4, 5, -6}, Shape{2, 3});
  for (const char* v : {"0", "1"}) {
    SessionOptions o;
    o.intra_op_num_threads = 2;
    o.config_entries["session.intra_op.allow_spinning"] = v;
    auto s = Session::create_from_model(add_relu_model(), o);
    EXPECT_EQ(values(s->run({{"x", x}})[0]),
              values(Session::create_from_model(add_relu_model())->run({{"x", x}})[0]))
        << v;
  }
  SessionOptions bad;
  bad.config_entries["session.intra_op.allow_spinning"] = "yes";
  try {
    Session::create_from_model(add_relu_model(), bad);
    ADD_FAILURE() << "a bad allow_spinning value was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'session.intra_op.allow_spinning' must be \"0\" or "
                                         "\"1\", got \"yes\""),
              std::string::npos)
        << e.what();
  }
}

TEST(RuntimeSession, EverySessionFlagRejectsValuesOtherThanZeroOrOne) {
  for (const char* key :
       {"session.disable_nchwc", "session.disable_winograd", "session.share_initializers",
        "session.use_env_allocators", "session.keep_packed_initializers",
        "session.intra_op.allow_spinning", "session.winograd_4x4", "session.warm_up_arenas"}) {
    SessionOptions o;
    o.config_entries[key] = "true";
    try {
      Session::create_from_model(add_relu_model(), o);
      ADD_FAILURE() << key << "=true was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + key + "' must be \"0\" or \"1\""),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(RuntimeSession, ParallelModeRunsIndependentBranchesCorrectly) {
  // Eight independent Relu/Neg/Add chains joined by Sum: the parallel executor
  // must respect dependencies and release values only after their last reader.
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", DataType::kFloat, {sym("N")}));
  std::vector<std::string> ends;
  for (int b = 0; b < 8; ++b) {
    std::string k = std::to_string(b);
    m.graph.initializers["c" + k] = Tensor::from_vector<float>({float(b), 1, -1, 2}, Shape{4});
    m.graph.nodes.push_back(test::make_node("Add", {"x", "c" + k}, {"a" + k}));
    m.graph.nodes.push_back(test::make_node("Relu", {"a" + k}, {"r" + k}));
    m.graph.nodes.push_back(test::make_node("Mul", {"r" + k, "x"}, {"m" + k}));
    ends.push_back("m" + k);
  }
  m.graph.nodes.push_back(test::make_node("Sum", ends, {"y"}));
  m.graph.outputs.push_back(tensor_info("y", DataType::kFloat, {sym("N")}));
  SessionOptions seq_opts, par_opts;
  par_opts.execution_mode = ExecutionMode::kParallel;
  par_opts.inter_op_num_threads = 4;
  auto seq = Session::create_from_model(m, seq_opts);
  auto par = Session::create_from_model(m, par_opts);
  for (int i = 0; i < 50; ++i) {
    float v = float(i % 7) - 3;
    auto x = Tensor::from_vector<float>({v, -v, v * 2, 0.5f}, Shape{4});
    EXPECT_EQ(values(par->run({{"x", x}})[0]), values(seq->run({{"x", x}})[0])) << i;
  }
  // Errors propagate from a worker: [3] does not broadcast with the [4] constants.
  auto bad = Tensor::from_vector<float>({1, 2, 3}, Shape{3});
  try {
    par->run({{"x", bad}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("do not broadcast"), std::string::npos) << e.what();
  }
  EXPECT_EQ(values(par->run({{"x", Tensor::from_vector<float>({1, 1, 1, 1}, Shape{4})}})[0]).size(),
            4u);
}

TEST(RuntimeSession, RunLogLinesCarryTheRunTag) {
  std::vector<std::string> lines;
  set_log_sink([&](Severity, const std::string& line) { lines.push_back(line); });
  SessionOptions o;
  o.log_severity_level = 0;
  auto s = Session::create_from_model(add_relu_model(), o);
  RunOptions ro;
  ro.log_tag = "request-42";
  s->run({{"x", Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3})}}, {}, ro);
  set_log_sink(nullptr);
  set_log_severity(Severity::kWarning);
  bool found = false;
  for (const auto& l : lines)
    found |=
        l.find("request-42") != std::string::npos && l.find("run finished") != std::string::npos;
  EXPECT_TRUE(found);
}

// The executor keeps a step's input and output lists on the stack up to a
// bound and on the heap past it: a Split into 20 values and a Concat of 20
// (each past the bound), run twice, give the input back.
TEST(RuntimeSession, StepsWithManyInputsAndOutputs) {
  constexpr int kParts = 20;
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.name = "split_concat";
  m.graph.inputs.push_back(tensor_info("x", DataType::kFloat, {dim(kParts), dim(2)}));
  std::vector<std::string> parts;
  for (int k = 0; k < kParts; ++k) parts.push_back("p" + std::to_string(k));
  m.graph.nodes.push_back(test::make_node("Split", {"x"}, parts, {test::attr_int("axis", 0)}));
  // Reversed, so a wrong pointer in either list shows in the values.
  std::vector<std::string> reversed(parts.rbegin(), parts.rend());
  m.graph.nodes.push_back(test::make_node("Concat", reversed, {"y"}, {test::attr_int("axis", 0)}));
  m.graph.outputs.push_back(tensor_info("y", DataType::kFloat, {dim(kParts), dim(2)}));
  auto s = Session::create_from_model(m);
  std::vector<float> in, expected;
  for (int k = 0; k < kParts * 2; ++k) in.push_back(float(k));
  for (int k = kParts; k-- > 0;) expected.insert(expected.end(), {float(2 * k), float(2 * k + 1)});
  for (int run = 0; run < 2; ++run) {
    auto out = s->run({{"x", Tensor::from_vector<float>(in, Shape{kParts, 2})}});
    EXPECT_EQ(values(out[0]), expected) << "run " << run;
  }
}
