#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/environment.hpp"
#include "runtime/session.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

namespace {

// y = x + Relu(w): the fake device runs Relu, so w is placed on it at creation.
ir::Model weight_on_device_model(std::vector<float> w = {-1, 4}) {
  ir::Model m = relu_add_model();
  m.graph.initializers.clear();
  m.graph.initializers["w"] = Tensor::from_vector<float>(w, Shape{2});
  m.graph.nodes[0].inputs = {"w"};
  m.graph.nodes[0].outputs = {"rw"};
  m.graph.nodes[1].inputs = {"x", "rw"};
  return m;
}

SessionOptions unoptimized() {
  SessionOptions o;
  o.graph_optimization_level = GraphOptimizationLevel::kDisableAll;  // keep Relu(w) unfolded
  return o;
}

}  // namespace

TEST(RuntimeSharedMemory, EnvironmentAllocatorServesEverySessionOnThatDevice) {
  register_fake_device();
  auto& env = Environment::global();
  auto shared = env.create_and_register_allocator(fake_device_memory());
  auto a = Session::create_from_model(relu_chain_model(), {}, {{kFakeDevice, {}}});
  auto b = Session::create_from_model(relu_chain_model(), {}, {{kFakeDevice, {}}});
  EXPECT_EQ(a->allocator_for(fake_device_memory()), shared);
  EXPECT_EQ(b->allocator_for(fake_device_memory()), shared);
  SessionOptions own;
  own.config_entries["session.use_env_allocators"] = "0";
  auto c = Session::create_from_model(relu_chain_model(), own, {{kFakeDevice, {}}});
  EXPECT_NE(c->allocator_for(fake_device_memory()), shared);
  a->run({{"x", Tensor::from_vector<float>({1, 2}, Shape{2})}});
  EXPECT_GT(shared->stats().num_allocs, 0u);
  EXPECT_EQ(b->allocator_stats()[0].second.num_allocs, shared->stats().num_allocs);
  env.unregister_allocator(fake_device_memory());
  EXPECT_EQ(env.shared_allocator(fake_device_memory()), nullptr);
}

TEST(RuntimeSharedMemory, MemoryLimitFailsTheRunButNotTheSession) {
  SessionOptions o;
  o.arena.memory_limit = 64 * 1024;
  o.arena.extend = ArenaExtendStrategy::kSameAsRequested;
  ir::Model m = relu_chain_model();
  m.graph.inputs[0].type = ir::TypeInfo::tensor(DataType::kFloat);
  m.graph.outputs[0].type = ir::TypeInfo::tensor(DataType::kFloat);
  auto s = Session::create_from_model(m, o);
  Tensor big(DataType::kFloat, Shape{100000});
  for (int64_t i = 0; i < big.num_elements(); ++i) big.mutable_data<float>()[i] = 1;
  auto e = error_of([&] { s->run({{"x", big}}); }, ErrorCode::kOutOfMemory);
  EXPECT_NE(e.find("400000 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("in use"), std::string::npos) << e;
  EXPECT_NE(e.find("limit 65536"), std::string::npos) << e;
  auto out = s->run({{"x", Tensor::from_vector<float>({-3, 3}, Shape{2})}});
  EXPECT_EQ(floats(out[0].tensor()), (std::vector<float>{0, 3}));
}

TEST(RuntimeSharedMemory, ArenaMemoryIsGivenBackAndStatsReachTheProfiler) {
  register_fake_device();
  SessionOptions o;
  o.enable_profiling = true;
  o.config_entries["session.profile_memory_counters"] = "1";
  o.profile_file_prefix = (std::filesystem::temp_directory_path() / "tessera_mem_prof").string();
  auto s = Session::create_from_model(relu_chain_model(), o, {{kFakeDevice, {}}});
  s->run({{"x", Tensor::from_vector<float>({1, 2}, Shape{2})}});
  auto stats = s->allocator_stats();
  ASSERT_EQ(stats[0].first, kFakeDevice);
  EXPECT_GT(stats[0].second.reserved, stats[0].second.in_use);  // freed blocks are cached
  EXPECT_GT(stats[0].second.peak, 0u);
  s->release_arena_memory();
  EXPECT_EQ(s->allocator_stats()[0].second.reserved, s->allocator_stats()[0].second.in_use);
  std::string path = s->end_profiling();
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  std::filesystem::remove(path);
  EXPECT_NE(text.str().find("\"name\":\"memory FakeDeviceExecutionProvider\""), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("\"num_allocs\":"), std::string::npos);
}

TEST(RuntimeSharedMemory, SessionsShareOneCopyOfEachInitializerPerDevice) {
  register_fake_device();
  fake_transfers().reset();
  auto a = Session::create_from_model(weight_on_device_model(), unoptimized(), {{kFakeDevice, {}}});
  EXPECT_EQ(fake_transfers().h2d.load(), 1);  // w placed on the device
  auto b = Session::create_from_model(weight_on_device_model(), unoptimized(), {{kFakeDevice, {}}});
  EXPECT_EQ(fake_transfers().h2d.load(), 1);  // shared, not copied again
  EXPECT_EQ(a->model().graph.initializers.at("w").raw_data(),
            b->model().graph.initializers.at("w").raw_data());
  // Same name, other content: its own copy.
  auto c = Session::create_from_model(weight_on_device_model({2, 2}), unoptimized(),
                                      {{kFakeDevice, {}}});
  EXPECT_EQ(fake_transfers().h2d.load(), 2);
  EXPECT_NE(c->model().graph.initializers.at("w").raw_data(),
            a->model().graph.initializers.at("w").raw_data());
  auto x = Tensor::from_vector<float>({1, 1}, Shape{2});
  EXPECT_EQ(floats(b->run({{"x", x}})[0].tensor()), (std::vector<float>{1, 5}));
  EXPECT_EQ(floats(c->run({{"x", x}})[0].tensor()), (std::vector<float>{3, 3}));
  SessionOptions own = unoptimized();
  own.config_entries["session.share_initializers"] = "0";
  auto d = Session::create_from_model(weight_on_device_model(), own, {{kFakeDevice, {}}});
  EXPECT_EQ(fake_transfers().h2d.load(), 3);
}

TEST(RuntimeSharedMemory, HandedInInitializersAreUsedWithoutACopy) {
  Tensor w = Tensor::from_vector<float>({100, 200}, Shape{2});
  SessionOptions o;
  o.add_initializer("w", w);
  auto s = Session::create_from_model(relu_add_model(), o);
  EXPECT_EQ(s->model().graph.initializers.at("w").raw_data(), w.raw_data());
  auto out = s->run({{"x", Tensor::from_vector<float>({-1, 1}, Shape{2})}});
  EXPECT_EQ(floats(out[0].tensor()), (std::vector<float>{100, 201}));

  SessionOptions bad;
  auto e = error_of(
      [&] {
        bad.add_external_initializers({"w", "v"}, {w});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(e.find("2 names but 1 tensors"), std::string::npos) << e;
  bad.add_external_initializers({"v"}, {w});
  e = error_of([&] { Session::create_from_model(relu_add_model(), bad); },
               ErrorCode::kInvalidArgument);
  EXPECT_NE(e.find("'v' is not an initializer"), std::string::npos) << e;
  SessionOptions shape;
  shape.add_initializer("w", Tensor::from_vector<float>({1, 2, 3}, Shape{3}));
  e = error_of([&] { Session::create_from_model(relu_add_model(), shape); },
               ErrorCode::kInvalidArgument);
  EXPECT_NE(e.find("float[3]"), std::string::npos) << e;
}
