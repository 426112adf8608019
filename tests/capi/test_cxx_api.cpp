// The C++ API (include/tessera/tessera.hpp) over the C ABI: RAII handles,
// runs, strings, IO binding, and errors as exceptions with code and message.
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "capi_test_util.hpp"
#include "tessera/tessera.hpp"

namespace api = tessera::api;

TEST(CxxApi, SessionsRunAndDescribeTheirInputs) {
  api::Env env;
  api::Session session(
      env, capi_test::model_path("add_mul.onnx"),
      api::SessionOptions().intra_op_threads(1).optimization_level(ORT_ENABLE_ALL));
  EXPECT_EQ(session.input_names(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(session.output_names(), (std::vector<std::string>{"sum", "product"}));
  const api::TensorInfo info = session.input_info(0);
  EXPECT_EQ(info.type, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  EXPECT_EQ(info.shape, (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(info.symbols[0], "batch");
  EXPECT_EQ(session.metadata("author"), "tessera");
  EXPECT_EQ(session.metadata("absent"), "");

  std::vector<float> x = {1, 2, 3}, y = {4, 5, 6};
  std::vector<api::Value> inputs;
  inputs.push_back(api::Value::tensor(api::MemoryInfo::cpu(), x.data(), x.size(), {1, 3}));
  inputs.push_back(api::Value::tensor(api::MemoryInfo::cpu(), y.data(), y.size(), {1, 3}));
  auto outputs = session.run({"x", "y"}, inputs, {"product"});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].to_vector<float>(), (std::vector<float>{4, 10, 18}));
  EXPECT_EQ(outputs[0].info().shape, (std::vector<int64_t>{1, 3}));
}

TEST(CxxApi, FromBytesWithStrings) {
  std::ifstream f(capi_test::model_path("strings.onnx"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  api::Env env;
  api::Session session(env, bytes.data(), bytes.size());
  std::vector<api::Value> inputs;
  inputs.push_back(api::Value::strings({"one", "two"}, {2}));
  auto out = session.run({"text"}, inputs, {"same"});
  EXPECT_EQ(out[0].strings(), (std::vector<std::string>{"one", "two"}));
}

TEST(CxxApi, ErrorsCarryTheCodeAndTheMessage) {
  api::Env env;
  try {
    api::Session session(env, "/no/such/model.onnx");
    FAIL() << "no exception";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), ORT_NO_SUCHFILE);
    EXPECT_NE(std::string(e.what()).find("/no/such/model.onnx"), std::string::npos) << e.what();
  }
  EXPECT_THROW(api::SessionOptions().intra_op_threads(-1), api::Error);
  EXPECT_THROW(api::SessionOptions().provider("NoSuchProvider"), api::Error);
  api::Session session(env, capi_test::model_path("add_mul.onnx"));
  std::vector<int32_t> wrong = {1, 2, 3};
  std::vector<api::Value> inputs;
  inputs.push_back(api::Value::tensor(api::MemoryInfo::cpu(), wrong.data(), wrong.size(), {1, 3}));
  inputs.push_back(api::Value::tensor(api::MemoryInfo::cpu(), wrong.data(), wrong.size(), {1, 3}));
  EXPECT_THROW(session.run({"x", "y"}, inputs, {"sum"}), api::Error);
  EXPECT_THROW(inputs[0].data<float>(), api::Error);
}

TEST(CxxApi, IoBindingWritesIntoBoundOutputs) {
  api::Env env;
  api::Session session(env, capi_test::model_path("add_mul.onnx"));
  std::vector<float> x = {1, 2, 3}, y = {1, 1, 1}, sum(3, 0.f);
  auto xv = api::Value::tensor(api::MemoryInfo::cpu(), x.data(), x.size(), {1, 3});
  auto yv = api::Value::tensor(api::MemoryInfo::cpu(), y.data(), y.size(), {1, 3});
  auto sv = api::Value::tensor(api::MemoryInfo::cpu(), sum.data(), sum.size(), {1, 3});
  api::IoBinding binding(session);
  binding.bind_input("x", xv);
  binding.bind_input("y", yv);
  binding.bind_output("sum", sv);
  session.run(binding);
  EXPECT_EQ(sum, (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(binding.outputs().size(), 1u);
}

TEST(CxxApi, DevicesAndSharedAllocators) {
  api::Env env;
  bool cpu = false;
  for (const api::EpDevice& d : env.ep_devices()) {
    if (d.provider() != "CPUExecutionProvider") continue;
    cpu = true;
    OrtAllocator* shared = env.shared_allocator(d.memory());
    auto v = api::Value::tensor(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {4}, shared);
    EXPECT_EQ(v.element_count(), 4u);
  }
  EXPECT_TRUE(cpu);
}

// The process has one environment, made by its first creator: the global
// pools' scenario runs in a fresh process of its own (a "threadsafe" death
// test re-runs this binary for just this test).
void sessions_share_the_global_thread_pools() {
  api::Env env = api::Env::with_global_thread_pools(2, 1);
  api::Session session(env, capi_test::model_path("add_mul.onnx"),
                       api::SessionOptions().disable_per_session_threads());
  std::vector<float> x = {1, 2, 3}, y = {4, 5, 6};
  std::vector<api::Value> inputs;
  inputs.push_back(api::Value::tensor(api::MemoryInfo::cpu(), x.data(), x.size(), {1, 3}));
  inputs.push_back(api::Value::tensor(api::MemoryInfo::cpu(), y.data(), y.size(), {1, 3}));
  auto outputs = session.run({"x", "y"}, inputs, {"sum"});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].to_vector<float>(), (std::vector<float>{5, 7, 9}));
  std::exit(::testing::Test::HasFailure() ? 1 : 0);
}

TEST(CxxApi, SessionsShareTheGlobalThreadPools) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(sessions_share_the_global_thread_pools(), ::testing::ExitedWithCode(0), "");
}
