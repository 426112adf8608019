// Initializers handed in in device memory (SessionOptions::add_initializer):
// used in place by the nodes of the device that serves them, copied once at
// creation for nodes elsewhere, never read on the host by the optimizer.
#include <gtest/gtest.h>

#include <filesystem>

#include "onnx/model_reader.hpp"
#include "runtime/environment.hpp"
#include "runtime/session.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

namespace {

ir::ValueInfo float2(const std::string& name) {
  std::vector<ir::Dim> dims = {ir::Dim{2, ""}};
  return {name, ir::TypeInfo::tensor(DataType::kFloat, dims), ""};
}

ir::Model model(std::vector<ir::Node> nodes, std::vector<std::string> inputs,
                std::vector<std::string> outputs) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  for (const auto& i : inputs) m.graph.inputs.push_back(float2(i));
  for (const auto& o : outputs) m.graph.outputs.push_back(float2(o));
  m.graph.initializers["w"] = Tensor::from_vector<float>({0, 0}, Shape{2});
  m.graph.nodes = std::move(nodes);
  return m;
}

// w's values in fake device memory, written without counting a transfer.
Tensor device_w(std::vector<float> v = {-1, 4}) {
  register_fake_device();
  Tensor host = Tensor::from_vector<float>(v, Shape{2});
  Tensor d(DataType::kFloat, Shape{2}, Environment::global().allocator(fake_device_memory()));
  ep::HostDataTransfer().copy_tensors({&host}, {&d}, nullptr);
  return d;
}

SessionOptions with_w(const Tensor& w) {
  SessionOptions o;
  o.add_initializer("w", w);
  return o;
}

const std::vector<ProviderSpec> kOnDevice = {{kFakeDevice, {}}};

}  // namespace

TEST(RuntimeDeviceInitializers, ADeviceNodeReadsTheUsersBufferWithNoCopy) {
  Tensor w = device_w();
  fake_transfers().reset();
  auto s = Session::create_from_model(model({node("Relu", {"w"}, {"y"})}, {}, {"y"}), with_w(w),
                                      kOnDevice);
  EXPECT_EQ(fake_transfers().total(), 0);  // nothing placed at creation
  EXPECT_EQ(s->model().graph.initializers.at("w").raw_data(), w.raw_data());
  for (int run = 0; run < 2; ++run) {
    auto out = s->run_on_devices({});
    EXPECT_EQ(fake_transfers().total(), 0);
    EXPECT_EQ(last_device_relu_input(), w.raw_data());  // the caller's memory, as is
    ASSERT_TRUE(out[0].tensor().memory_info().same_space(fake_device_memory()));
    EXPECT_EQ(floats(out[0].tensor()), (std::vector<float>{0, 4}));
  }
  for (const auto& c : s->partition_report().copies) EXPECT_NE(c.value, "w") << c.from;
}

TEST(RuntimeDeviceInitializers, AHostNodeGetsOneCopyAtCreationAndNonePerRun) {
  Tensor w = device_w();
  fake_transfers().reset();
  const ir::Model m = model({node("Add", {"x", "w"}, {"y"})}, {"x"}, {"y"});
  auto s = Session::create_from_model(m, with_w(w), kOnDevice);
  EXPECT_EQ(fake_transfers().d2h.load(), 1);
  EXPECT_EQ(fake_transfers().total(), 1);
  bool reported = false;
  for (const auto& c : s->partition_report().copies)
    reported |= c.value == "w" && c.at_creation && c.from == fake_device_memory().to_string();
  EXPECT_TRUE(reported) << s->partition_report().to_text();
  for (int run = 0; run < 3; ++run) {
    auto out = s->run({{"x", Tensor::from_vector<float>({1, 1}, Shape{2})}});
    EXPECT_EQ(floats(out[0].tensor()), (std::vector<float>{0, 5}));
  }
  EXPECT_EQ(fake_transfers().total(), 1);
  // Another session shares that host copy; saving its optimized model copies
  // w to the host once more, for the file.
  fake_transfers().reset();
  const auto saved = std::filesystem::temp_directory_path() / "tessera_device_initializer.onnx";
  SessionOptions o = with_w(w);
  o.optimized_model_filepath = saved.string();
  auto saver = Session::create_from_model(m, o, kOnDevice);
  EXPECT_EQ(fake_transfers().d2h.load(), 1);
  EXPECT_EQ(fake_transfers().total(), 1);
  ir::Model back = onnx::load_model(saved.string());
  std::filesystem::remove(saved);
  EXPECT_EQ(floats(back.graph.initializers.at("w")), (std::vector<float>{-1, 4}));
}

TEST(RuntimeDeviceInitializers, TheOptimizerDoesNotFoldThemOnTheHost) {
  Tensor w = device_w();
  ir::Model m =
      model({node("Add", {"w", "v"}, {"s"}), node("Add", {"x", "s"}, {"y"})}, {"x"}, {"y"});
  m.graph.initializers["v"] = Tensor::from_vector<float>({10, 20}, Shape{2});
  // With host weights, w + v is folded into an initializer.
  auto host = Session::create_from_model(m, {}, kOnDevice);
  EXPECT_EQ(host->model().graph.nodes.size(), 1u);
  fake_transfers().reset();
  auto s = Session::create_from_model(m, with_w(w), kOnDevice);
  ASSERT_EQ(s->model().graph.nodes.size(), 2u);  // not folded: w is read where it is
  EXPECT_TRUE(s->model().graph.inputs.size() == 1 && s->model().graph.inputs[0].name == "x");
  EXPECT_EQ(s->model().graph.initializers.at("w").raw_data(), w.raw_data());
  EXPECT_EQ(fake_transfers().total(), 1);  // one host copy for the CPU's Add
  auto out = s->run({{"x", Tensor::from_vector<float>({1, 1}, Shape{2})}});
  EXPECT_EQ(floats(out[0].tensor()), (std::vector<float>{10, 25}));
}

TEST(RuntimeDeviceInitializers, MemoryNoProviderServesIsAClearError) {
  Tensor w = device_w();
  // The fake device is not among the session's providers: only the CPU is.
  auto e = error_of(
      [&] {
        Session::create_from_model(model({node("Add", {"x", "w"}, {"y"})}, {"x"}, {"y"}),
                                   with_w(w));
      },
      ErrorCode::kEPFail);
  EXPECT_NE(e.find("'w'"), std::string::npos) << e;
  EXPECT_NE(e.find(fake_device_memory().to_string()), std::string::npos) << e;
  EXPECT_NE(e.find("CPUExecutionProvider"), std::string::npos) << e;
}

TEST(RuntimeDeviceInitializers, AnOverridableOneIsRefused) {
  Tensor w = device_w();
  ir::Model m = model({node("Add", {"x", "w"}, {"y"})}, {"x", "w"}, {"y"});
  auto e = error_of([&] { Session::create_from_model(m, with_w(w), kOnDevice); },
                    ErrorCode::kNotImplemented);
  EXPECT_NE(e.find("'w'"), std::string::npos) << e;
  EXPECT_NE(e.find("graph input"), std::string::npos) << e;
}
