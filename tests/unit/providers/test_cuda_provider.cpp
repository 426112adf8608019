// The CUDA provider without a GPU: registration, the unavailable report and
// how sessions fall back, factory errors, doctor's diagnostics, the kernel
// catalog, and what the provider claims and declines (get_capability needs
// no device). These run on every machine the provider is built on.
#include <algorithm>

#include "core/logging.hpp"
#include "ep/provider_abilities.hpp"
#include "ep/provider_registry.hpp"
#include "ops/graph_types.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

const ep::ProviderFactory& factory() {
  const auto* f = ep::ProviderRegistry::instance().find(kCuda);
  if (!f) throw std::runtime_error("CUDAExecutionProvider is not registered");
  return *f;
}

Tensor floats(std::vector<int64_t> dims) {
  return make_tensor(DataType::kFloat, dims, random_values(count(dims), 1));
}

}  // namespace

TEST(CudaProvider, IsRegisteredAndReportsWhetherItCanRun) {
  const auto& f = factory();
  std::string why;
  const bool available = f.is_available(&why);
  const auto& probe = cuda::cuda_probe();
  EXPECT_GT(probe.runtime_version, 0);  // the runtime library answers without a GPU
  auto names = ep::ProviderRegistry::instance().available_names();
  const bool listed = std::find(names.begin(), names.end(), kCuda) != names.end();
  EXPECT_EQ(listed, available);
  if (probe.device_count == 0) {
    EXPECT_FALSE(available);
    expect_has(why, "no CUDA device (cudaGetDeviceCount");
    EXPECT_EQ(why, probe.why_not);
    EXPECT_TRUE(f.devices().empty());
  } else {
    EXPECT_TRUE(available) << why;
    ASSERT_FALSE(f.devices().empty());
    EXPECT_EQ(f.devices()[0].vendor_id, 0x10DEu);
    EXPECT_EQ(f.devices()[0].type, DeviceType::kGPU);
  }
}

TEST(CudaProvider, FactoryValidatesOptionsBeforeLookingForADevice) {
  try {
    factory().create({{"gpu_mem_limit", "lots"}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    expect_has(e.what(), "'gpu_mem_limit' has bad value 'lots'");
  }
  if (!no_device().empty()) {
    try {
      factory().create({{"gpu_mem_limit", "1048576"}});
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kEPFail);
      expect_has(e.what(), "CUDAExecutionProvider is not available: no CUDA device");
    }
  }
}

TEST(CudaProvider, WithoutADeviceASessionFallsBackToTheCpuAndSaysWhy) {
  if (no_device().empty()) GTEST_SKIP() << "a CUDA device is present; this is the GPU-less path";
  OneNode m("Relu", 17);
  m.input("x", floats({2, 3})).output("y");
  std::vector<std::string> warnings;
  set_log_sink([&](Severity s, const std::string& line) {
    if (s >= Severity::kWarning) warnings.push_back(line);
  });
  auto s = Session::create_from_model(m.model, {}, {{kCuda, {}}});
  set_log_sink(nullptr);
  EXPECT_EQ(assigned_provider(*s), kCpu);
  ASSERT_EQ(warnings.size(), 1u);
  expect_has(warnings[0], "skipping CUDAExecutionProvider");
  expect_has(warnings[0], "cudaGetDeviceCount");
  auto y = s->run(m.feeds);
  EXPECT_EQ(y[0].tensor().shape(), (Shape{2, 3}));
  // error_on_failure=1 makes the absence an error naming the reason.
  try {
    Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kEPFail);
    expect_has(e.what(), "CUDAExecutionProvider is not available on this machine: no CUDA device");
  }
}

TEST(CudaProvider, DoctorNamesTheLibrariesAndVersions) {
  const auto* d = dynamic_cast<const ep::FactoryDiagnostics*>(&factory());
  ASSERT_NE(d, nullptr);
  std::string all;
  for (const auto& line : d->diagnostics()) all += line + "\n";
  expect_has(all, "CUDA runtime 1");
  expect_has(all, "libcudart");
  expect_has(all, "cuDNN 9.");
  expect_has(all, "libcudnn");
  expect_has(all, "cuBLASLt 1");  // dlopen'ed and asked for its version
  expect_has(all, "libcublasLt");
  expect_has(all, "kernels built for GPU architectures: sm_");
  expect_has(all, "devices: " + std::to_string(cuda::cuda_probe().device_count));
}

TEST(CudaProvider, KernelCatalogListsKernelsWithoutADevice) {
  const auto* c = dynamic_cast<const ep::KernelCatalog*>(&factory());
  ASSERT_NE(c, nullptr);
  std::vector<std::string> ops;
  const std::vector<std::string> views = {"Reshape",  "Flatten", "Squeeze", "Unsqueeze",
                                          "Identity", "Shape",   "Size"};
  for (const auto& e : c->kernel_catalog().entries()) {
    ops.push_back(e.def.op_type);
    ASSERT_FALSE(e.def.constraints.empty()) << e.def.op_type;
    const auto& allowed = e.def.constraints[0].allowed;
    // The matrix kernels serve the three float types; the views (the CPU
    // provider's own kernels) any type.
    const bool view = std::find(views.begin(), views.end(), e.def.op_type) != views.end();
    if (view) {
      EXPECT_TRUE(std::find(allowed.begin(), allowed.end(), DataType::kString) == allowed.end() &&
                  std::find(allowed.begin(), allowed.end(), DataType::kInt64) != allowed.end())
          << e.def.op_type;
    } else if (e.def.op_type == "Conv" || e.def.op_type == "MatMul") {
      EXPECT_EQ(allowed,
                (std::vector<DataType>{DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}))
          << e.def.op_type;
    } else if (e.def.op_type == "Add") {
      // The element-wise arithmetic also serves double and the integers.
      for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16,
                         DataType::kDouble, DataType::kInt32, DataType::kInt64})
        EXPECT_NE(std::find(allowed.begin(), allowed.end(), t), allowed.end())
            << "Add " << data_type_name(t);
    }
  }
  for (const char* op :
       {"Add",      "Sub",   "Mul",       "Div",     "Relu",    "Sigmoid",    "Tanh",
        "Erf",      "Gelu",  "LeakyRelu", "Clip",    "Softmax", "LogSoftmax", "LayerNormalization",
        "MatMul",   "Gemm",  "Conv",      "Reshape", "Flatten", "Squeeze",    "Unsqueeze",
        "Identity", "Shape", "Size"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
}

TEST(CudaProvider, MemoryIsNvidiaGpuMemory) {
  auto p = cuda::make_cuda_provider_unchecked({{"device_id", "0"}});
  const MemoryInfo& m = p->memory_info();
  EXPECT_EQ(m.device_type, DeviceType::kGPU);
  EXPECT_EQ(m.vendor_id, 0x10DEu);
  EXPECT_EQ(m.device_id, 0);
  EXPECT_FALSE(m.host_accessible());
  EXPECT_TRUE(m.same_space(cuda::cuda_memory_info(0)));
  EXPECT_FALSE(m.same_space(cuda::cuda_memory_info(1)));
  EXPECT_FALSE(m.same_space(cpu_memory_info()));
  const MemoryInfo pinned = cuda::cuda_pinned_memory_info(0);
  EXPECT_TRUE(pinned.host_accessible());
  EXPECT_FALSE(pinned.same_space(m));
  // Copies: device <-> host, pinned and device <-> device; never host <-> host.
  const auto* t = p->data_transfer();
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->can_copy(cpu_memory_info(), m));
  EXPECT_TRUE(t->can_copy(m, cpu_memory_info()));
  EXPECT_TRUE(t->can_copy(m, cuda::cuda_memory_info(1)));
  EXPECT_TRUE(t->can_copy(pinned, m));
  EXPECT_FALSE(t->can_copy(cpu_memory_info(), pinned));
  // The provider's own arena (sessions use it as is, so gpu_mem_limit holds).
  EXPECT_NE(dynamic_cast<ArenaAllocator*>(p->allocator().get()), nullptr);
  auto limited = cuda::make_cuda_provider_unchecked(
      {{"gpu_mem_limit", "4096"}, {"arena_extend_strategy", "kSameAsRequested"}});
  auto* arena = dynamic_cast<ArenaAllocator*>(limited->allocator().get());
  ASSERT_NE(arena, nullptr);
  EXPECT_EQ(arena->config().memory_limit, 4096u);
  EXPECT_EQ(arena->config().extend, ArenaExtendStrategy::kSameAsRequested);
}

TEST(CudaProvider, ClaimsWhatItsKernelsSupport) {
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}) {
    OneNode add("Add", 17);
    add.input("a", make_tensor(t, {2, 3}, random_values(6, 1)))
        .input("b", make_tensor(t, {3}, random_values(3, 2)))
        .output("y");
    EXPECT_EQ(claim(add), "");
  }
  OneNode mm("MatMul", 13);
  mm.input("a", floats({2, 3, 4})).input("b", floats({4, 5})).output("y");
  EXPECT_EQ(claim(mm), "");
  OneNode sm("Softmax", 13, {attr_int("axis", 2)});
  sm.input("x", floats({2, 3, 4})).output("y");
  EXPECT_EQ(claim(sm), "");
  OneNode old_sm("Softmax", 11, {attr_int("axis", 1)});  // flattened rows: any axis
  old_sm.input("x", floats({2, 3, 4})).output("y");
  EXPECT_EQ(claim(old_sm), "");
  OneNode clip("Clip", 13);
  clip.input("x", floats({4}))
      .input("lo", Tensor::scalar<float>(-0.5f), true)
      .input("hi", Tensor::scalar<float>(0.5f), true)
      .output("y");
  EXPECT_EQ(claim(clip), "");
  OneNode ln("LayerNormalization", 17, {attr_int("axis", -1)});
  ln.input("x", floats({2, 8})).input("s", floats({8}), true).output("y");
  EXPECT_EQ(claim(ln), "");
  OneNode conv("Conv", 11, {attr_ints("pads", {1, 1, 1, 1}), attr_int("group", 2)});
  conv.input("x", floats({1, 4, 5, 5})).input("w", floats({6, 2, 3, 3}), true).output("y");
  EXPECT_EQ(claim(conv), "");
  OneNode same("Conv", 11, {attr_string("auto_pad", "SAME_UPPER")});
  same.input("x", floats({1, 2, 5, 5})).input("w", floats({2, 2, 3, 3}), true).output("y");
  EXPECT_EQ(claim(same), "");
  OneNode conv1d("Conv", 11);
  conv1d.input("x", floats({1, 2, 9})).input("w", floats({3, 2, 3}), true).output("y");
  EXPECT_EQ(claim(conv1d), "");
}

TEST(CudaProvider, DeclinesWithAReason) {
  OneNode ints("Relu", 17);
  ints.input("x", Tensor::from_vector<int32_t>({1, 2}, Shape{2})).output("y");
  expect_has(claim(ints), "int32");
  OneNode dbl("Relu", 17);
  dbl.input("x", Tensor::from_vector<double>({1, 2}, Shape{2})).output("y");
  expect_has(claim(dbl), "double");
  OneNode det("Det", 11);
  det.input("x", floats({2, 2})).output("y");
  EXPECT_FALSE(claim(det).empty());
  OneNode sm("Softmax", 13, {attr_int("axis", 0)});
  sm.input("x", floats({2, 3})).output("y");
  expect_has(claim(sm), "axis 0 is not the last axis (rank 2)");
  OneNode gemm("Gemm", 13);
  gemm.input("a", floats({2, 3, 4})).input("b", floats({4, 5})).output("y");
  expect_has(claim(gemm), "input 0 has rank 3, not 2");
  OneNode gelu("Gelu", 20, {attr_string("approximate", "fast")});
  gelu.input("x", floats({4})).output("y");
  expect_has(claim(gelu), "approximate='fast'");
  OneNode ln("LayerNormalization", 17, {attr_int("stash_type", 10)});
  ln.input("x", floats({2, 8})).input("s", floats({8}), true).output("y");
  expect_has(claim(ln), "stash_type 10");
  // Uneven pads run on a zero-bordered copy of X: claimed; negative ones not.
  OneNode asym("Conv", 11, {attr_ints("pads", {0, 1, 1, 1})});
  asym.input("x", floats({1, 2, 5, 5})).input("w", floats({2, 2, 3, 3}), true).output("y");
  EXPECT_EQ(claim(asym), "");
  OneNode uneven("Conv", 11, {attr_string("auto_pad", "SAME_UPPER")});
  uneven.input("x", floats({1, 2, 6, 6})).input("w", floats({2, 2, 2, 2}), true).output("y");
  EXPECT_EQ(claim(uneven), "");
  // FusedConv's Z must have Y's shape: a broadcast one stays on the CPU.
  OneNode fz("FusedConv", 11, {attr_string("activation", "Relu")});
  fz.model.graph.nodes[0].domain = "com.tessera";
  fz.model.opset_imports.push_back({"com.tessera", 1});
  fz.input("x", floats({1, 2, 5, 5})).input("w", floats({2, 2, 3, 3}), true);
  fz.input("b", floats({2}), true).input("z", Tensor::scalar<float>(0.0f), true).output("y");
  expect_has(claim(fz), "Z (input 3) is a constant");
  OneNode negative("Conv", 11, {attr_ints("pads", {0, -1, 1, 1})});
  negative.input("x", floats({1, 2, 5, 5})).input("w", floats({2, 2, 3, 3}), true).output("y");
  expect_has(claim(negative), "negative pads");
  OneNode conv4d("Conv", 11);
  conv4d.input("x", floats({1, 1, 2, 2, 2, 2})).input("w", floats({1, 1, 1, 1, 1, 1}), true);
  conv4d.output("y");
  expect_has(claim(conv4d), "W has rank 6");
  OneNode wide("Mul", 17);
  wide.input("a", floats({1, 1, 1, 1, 1, 1, 1, 1, 2})).input("b", floats({2})).output("y");
  expect_has(claim(wide), "rank 9");
}
