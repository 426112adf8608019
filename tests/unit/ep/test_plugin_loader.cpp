// Provider plugins: loading errors, and the sandbox plugin (a device in
// memory of its own) running real models with the CPU provider.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ep/plugin_provider.hpp"
#include "ep/provider_abilities.hpp"
#include "runtime/copy_tensors.hpp"
#include "runtime/environment.hpp"
#include "runtime/runtime_api.hpp"
#include "unit/ep/sandbox_counters.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

const std::string kSandbox = "SandboxExecutionProvider";

template <typename F>
std::string error_of(F f, ErrorCode expected) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

ir::Node named(ir::Node n, const std::string& name) {
  n.name = name;
  return n;
}

// Conv -> Relu -> MaxPool -> Transpose (CPU only) -> Softmax, plus a MatMul
// branch: the graph moves between the sandbox and the CPU several times.
ir::Model small_cnn() {
  ir::Model m = float_model(17, {{"x", Shape{1, 2, 6, 6}}}, {"y", "z"});
  m.graph.initializers.emplace("w", random_floats(Shape{3, 2, 3, 3}, 1));
  m.graph.initializers.emplace("b", random_floats(Shape{3}, 2));
  m.graph.initializers.emplace("k", random_floats(Shape{3, 4}, 3));
  m.graph.nodes = {
      named(op("Conv", {"x", "w", "b"}, {"c"}, {attr_ints("pads", {1, 1, 1, 1})}), "conv"),
      named(op("Relu", {"c"}, {"r"}), "relu"),
      named(op("MaxPool", {"r"}, {"p"},
               {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}),
            "pool"),
      named(op("Transpose", {"p"}, {"t"}, {attr_ints("perm", {0, 2, 3, 1})}), "transpose"),
      named(op("MatMul", {"t", "k"}, {"mm"}), "matmul"),
      named(op("Softmax", {"mm"}, {"y"}), "softmax"),
      named(op("Add", {"p", "r_pooled_bias"}, {"z"}), "add"),
  };
  m.graph.initializers.emplace("r_pooled_bias", random_floats(Shape{1, 3, 1, 1}, 4));
  return m;
}

void expect_close(const Value& a, const Value& b) {
  const Tensor& x = a.tensor();
  const Tensor& y = b.tensor();
  ASSERT_EQ(x.shape(), y.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i)
    EXPECT_NEAR(x.data<float>()[i], y.data<float>()[i], 1e-5) << "element " << i;
}

}  // namespace

TEST(PluginLoader, MissingPathIsNamed) {
  auto msg =
      error_of([] { ep::load_provider_library("/no/such/libplugin.so"); }, ErrorCode::kNoSuchFile);
  EXPECT_NE(msg.find("/no/such/libplugin.so"), std::string::npos) << msg;
}

TEST(PluginLoader, LibraryWithoutEntryPointsIsRefused) {
  auto msg = error_of([] { ep::load_provider_library(TESSERA_NO_ENTRY_PLUGIN); },
                      ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("does not export tessera_ep_abi_version"), std::string::npos) << msg;
}

TEST(PluginLoader, PluginBuiltAgainstAnotherAbiVersionIsRefused) {
  auto msg = error_of([] { ep::load_provider_library(TESSERA_WRONG_ABI_PLUGIN); },
                      ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("ABI version 999"), std::string::npos) << msg;
  EXPECT_NE(msg.find("implements version 2"), std::string::npos) << msg;
}

// Version 2 added streams to the provider table: a plugin built against
// version 1 has a shorter table, and must be refused with the same message.
TEST(PluginLoader, PluginBuiltBeforeStreamsIsRefused) {
  auto msg = error_of([] { ep::load_provider_library(TESSERA_ABI_V1_PLUGIN); },
                      ErrorCode::kInvalidArgument);
  EXPECT_NE(
      msg.find("was built against plugin ABI version 1 but this runtime implements version 2"),
      std::string::npos)
      << msg;
  EXPECT_NE(msg.find(TESSERA_ABI_V1_PLUGIN), std::string::npos) << msg;
}

// A copy of the sandbox plugin cut short: its segments end past the end of the
// file. dlopen maps them anyway and dies of SIGBUS on the first missing page,
// so the loader must refuse the file before dlopen sees it.
TEST(PluginLoader, TruncatedLibraryIsRefusedNotMapped) {
  std::ifstream in(TESSERA_SANDBOX_PLUGIN, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 8192u);
  auto dir = std::filesystem::temp_directory_path() /
             ("tessera_truncated_plugin_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (size_t cut : {size_t(100), size_t(3000), size_t(8192)}) {
    std::string path = (dir / ("lib_cut_" + std::to_string(cut) + ".so")).string();
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(cut));
    auto msg = error_of([&] { ep::load_provider_library(path); }, ErrorCode::kEPFail);
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    // Every cut is past the ELF header: the error is our own check's, not
    // dlopen's "file too short".
    EXPECT_NE(msg.find("truncated or damaged ELF file"), std::string::npos) << msg;
  }
  std::filesystem::remove_all(dir);
}

TEST(PluginLoader, SandboxFactoryReportsItselfAndValidatesOptions) {
  auto f = ep::load_provider_library(TESSERA_SANDBOX_PLUGIN);
  EXPECT_EQ(f->name(), kSandbox);
  EXPECT_TRUE(f->is_available(nullptr));
  auto devices = f->devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].type, DeviceType::kGPU);
  EXPECT_EQ(devices[0].vendor_id, 0x5A0Bu);
  auto msg = error_of([&] { f->create({{"speed", "fast"}}); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("valid options are: fuse"), std::string::npos) << msg;
  auto p = f->create({{"fuse", "0"}});
  EXPECT_FALSE(p->memory_info().host_accessible());
  EXPECT_FALSE(p->memory_info().same_space(cpu_memory_info()));
}

TEST(PluginLoader, SandboxPoisonsFreedMemory) {
  auto p = ep::load_provider_library(TESSERA_SANDBOX_PLUGIN)->create({});
  auto alloc = p->allocator();
  auto* f = static_cast<float*>(alloc->alloc(4 * sizeof(float)));
  for (int i = 0; i < 4; ++i) f[i] = 1.0f;
  alloc->free(f);
  // The block is held in quarantine, poisoned: a read after free sees NaN.
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(f[i]));
}

TEST(PluginLoader, SandboxKernelsRefuseMemoryThatIsNotTheirs) {
  auto p = ep::load_provider_library(TESSERA_SANDBOX_PLUGIN)->create({});
  ir::Model m = float_model(17, {{"x", Shape{4}}}, {"y"});
  m.graph.nodes = {named(op("Relu", {"x"}, {"y"}), "relu")};
  std::unordered_map<std::string, ir::TypeInfo> types = {
      {"x", ir::TypeInfo::tensor(DataType::kFloat)}, {"y", ir::TypeInfo::tensor(DataType::kFloat)}};
  ep::GraphView view;
  view.model = &m;
  view.graph = &m.graph;
  view.value_types = &types;
  view.candidates = {0};
  auto cap = p->get_capability(view);
  ASSERT_EQ(cap.groups.size(), 1u);
  ep::FusedGroup group;
  group.nodes = {0};
  group.node = named(op("SandboxExecutionProvider", {"x"}, {"y"}), "fused");
  auto* compiler = dynamic_cast<const ep::FusedCompiler*>(p.get());
  ASSERT_NE(compiler, nullptr);
  auto kernels = compiler->compile(view, {group});
  ASSERT_EQ(kernels.size(), 1u);
  // A host tensor handed straight to the sandbox kernel, as a runtime that
  // forgot a copy would: the kernel must refuse it.
  Value host_input(Tensor::from_vector<float>({-1, 2, -3, 4}, Shape{4}));
  Value out;
  ep::KernelContext ctx(group.node, {&host_input}, {&out}, {DataType::kFloat}, p->allocator(),
                        nullptr);
  auto msg = error_of([&] { kernels[0]->compute(ctx); }, ErrorCode::kEPFail);
  EXPECT_NE(msg.find("is not sandbox device memory"), std::string::npos) << msg;
}

TEST(PluginLoader, SandboxAndCpuRunAModelLikeCpuAlone) {
  std::string name = register_execution_provider_library("sandbox", TESSERA_SANDBOX_PLUGIN);
  EXPECT_EQ(name, kSandbox);
  error_of([] { register_execution_provider_library("sandbox", TESSERA_SANDBOX_PLUGIN); },
           ErrorCode::kInvalidArgument);
  Tensor x = random_floats(Shape{1, 2, 6, 6}, 7);
  auto reference = Session::create_from_model(small_cnn())->run({{"x", Value(x)}});
  for (const char* fuse : {"0", "1"}) {
    SCOPED_TRACE(std::string("fuse=") + fuse);
    auto s = Session::create_from_model(small_cnn(), {}, {{kSandbox, {{"fuse", fuse}}}});
    auto report = s->partition_report();
    size_t on_sandbox = 0, in_groups = 0;
    for (const auto& n : report.nodes) {
      on_sandbox += n.provider == kSandbox;
      in_groups += !n.fused_group.empty();
    }
    // fuse=1: conv-relu-pool-add and matmul-softmax are compiled groups; fuse=0: kernels.
    EXPECT_EQ(in_groups, std::string(fuse) == "1" ? 6u : 0u);
    EXPECT_EQ(on_sandbox, 6u);  // everything but the Transpose
    size_t per_run = 0, at_creation = 0;
    for (const auto& c : report.copies) (c.at_creation ? at_creation : per_run)++;
    EXPECT_EQ(at_creation, 4u);  // w, b, k and the bias placed once in sandbox memory
    EXPECT_GE(per_run, 4u);      // x in; p out to Transpose; t back in; y and z out
    auto got = s->run({{"x", Value(x)}});
    ASSERT_EQ(got.size(), 2u);
    expect_close(got[0], reference[0]);
    expect_close(got[1], reference[1]);
  }
  unregister_execution_provider_library("sandbox");
  error_of(
      [] {
        Session::create_from_model(small_cnn(), {}, {{kSandbox, {}}});
      },
      ErrorCode::kInvalidArgument);
}

// A Conv whose kernel_shape disagrees with its weights: the sandbox sized its
// window from the attribute and read past the end of W (found by valgrind on
// `tessera run --provider-library`). It must refuse the node with an error.
TEST(PluginLoader, SandboxConvRefusesKernelShapeThatDisagreesWithWeights) {
  register_execution_provider_library("sandbox_conv", TESSERA_SANDBOX_PLUGIN);
  ir::Model m = float_model(17, {{"x", Shape{1, 2, 5, 5}}}, {"y"});
  m.graph.initializers.emplace("w", random_floats(Shape{3, 2, 3, 3}, 1));
  m.graph.nodes = {
      named(op("Conv", {"x", "w"}, {"y"}, {attr_ints("kernel_shape", {5, 5})}), "conv_5x5_on_3x3")};
  std::string msg;
  try {
    auto s = Session::create_from_model(m, {}, {{kSandbox, {}}});
    s->run({{"x", Value(random_floats(Shape{1, 2, 5, 5}, 2))}});
  } catch (const Error& e) {
    msg = e.what();
  }
  unregister_execution_provider_library("sandbox_conv");
  EXPECT_NE(msg.find("kernel_shape [5,5]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("conv_5x5_on_3x3"), std::string::npos) << msg;
}

// Every run through the sandbox under LeakSanitizer reported its device
// memory leaked: the plugin kept it in a static the runtime's dlclose then
// unmapped, so it was never freed. The providers now own it together, and the
// environment drops its provider of an unregistered library. Everything of
// the sandbox goes with its last user: session, environment copy, tensor.
TEST(PluginLoader, SandboxProvidersAndDeviceMemoryGoWithTheirLastUser) {
  SandboxCounters counters(TESSERA_SANDBOX_PLUGIN);  // keeps the library loaded to read them
  ASSERT_TRUE(counters.ok());
  ASSERT_EQ(counters("live_providers"), 0u) << "an earlier test left a sandbox provider alive";
  ASSERT_EQ(counters("live_arenas"), 0u);
  register_execution_provider_library("sandbox_lifetime", TESSERA_SANDBOX_PLUGIN);
  {
    Tensor x = random_floats(Shape{1, 2, 6, 6}, 7);
    auto s = Session::create_from_model(small_cnn(), {}, {{kSandbox, {}}});
    s->run({{"x", Value(x)}});
    MemoryInfo device;
    for (const auto& e : Environment::global().ep_devices())
      if (e.provider == kSandbox) device = e.memory;
    Tensor on_device = copy_to(x, device);  // through the environment's sandbox instance
    expect_close(Value(copy_to(on_device, cpu_memory_info())), Value(x));
    EXPECT_EQ(counters("live_providers"), 2u);  // the session's and the environment's
    EXPECT_EQ(counters("live_arenas"), 1u);     // one device memory, shared
    s.reset();
    unregister_execution_provider_library("sandbox_lifetime");
    // The tensor still holds the environment's provider, and so the memory.
    EXPECT_EQ(counters("live_providers"), 1u);
    EXPECT_EQ(counters("live_arenas"), 1u);
  }
  EXPECT_EQ(counters("live_providers"), 0u);
  EXPECT_EQ(counters("live_arenas"), 0u);
}
