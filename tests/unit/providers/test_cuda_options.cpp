// The CUDA provider's option validation. Plain parsing: runs without a GPU.
#include <gtest/gtest.h>

#include "providers/cuda/cuda_options.hpp"

using namespace tessera;
using namespace tessera::cuda;

namespace {

// The kInvalidArgument message parse_cuda_options gives, "" (and a failure) if none.
std::string option_error(const ep::ProviderOptions& o, int devices = 2) {
  try {
    parse_cuda_options(o, devices);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an option error";
  return "";
}

void expect_has(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

}  // namespace

TEST(CudaOptions, DefaultsWithoutOptions) {
  CudaOptions o = parse_cuda_options({}, 0);
  EXPECT_EQ(o.device_id, 0);
  EXPECT_EQ(o.gpu_mem_limit, 0u);
  EXPECT_EQ(o.arena_extend_strategy, ArenaExtendStrategy::kNextPowerOfTwo);
  EXPECT_EQ(o.cudnn_conv_algo_search, ConvAlgoSearch::kExhaustive);
  EXPECT_TRUE(o.cudnn_conv_use_max_workspace);
  EXPECT_TRUE(o.do_copy_in_default_stream);
  EXPECT_EQ(o.user_compute_stream, 0u);
  EXPECT_FALSE(o.enable_cuda_graph);
  EXPECT_FALSE(o.use_tf32);
  EXPECT_FALSE(o.prefer_fp16);
}

TEST(CudaOptions, EveryKeyParses) {
  CudaOptions o = parse_cuda_options({{"device_id", "1"},
                                      {"gpu_mem_limit", "2147483648"},
                                      {"arena_extend_strategy", "kSameAsRequested"},
                                      {"cudnn_conv_algo_search", "HEURISTIC"},
                                      {"cudnn_conv_use_max_workspace", "0"},
                                      {"do_copy_in_default_stream", "false"},
                                      {"user_compute_stream", "0x7f00aa"},
                                      {"enable_cuda_graph", "0"},
                                      {"use_tf32", "1"},
                                      {"prefer_fp16", "true"}},
                                     2);
  EXPECT_EQ(o.device_id, 1);
  EXPECT_EQ(o.gpu_mem_limit, size_t(2147483648ull));
  EXPECT_EQ(o.arena_extend_strategy, ArenaExtendStrategy::kSameAsRequested);
  EXPECT_EQ(o.cudnn_conv_algo_search, ConvAlgoSearch::kHeuristic);
  EXPECT_FALSE(o.cudnn_conv_use_max_workspace);
  EXPECT_FALSE(o.do_copy_in_default_stream);
  EXPECT_EQ(o.user_compute_stream, uintptr_t(0x7f00aa));
  EXPECT_TRUE(o.use_tf32);
  EXPECT_TRUE(o.prefer_fp16);
  EXPECT_EQ(parse_cuda_options({{"user_compute_stream", "12345"}}, 1).user_compute_stream, 12345u);
  EXPECT_EQ(parse_cuda_options({{"cudnn_conv_algo_search", "DEFAULT"}}, 1).cudnn_conv_algo_search,
            ConvAlgoSearch::kDefault);
  EXPECT_EQ(
      parse_cuda_options({{"cudnn_conv_algo_search", "EXHAUSTIVE"}}, 1).cudnn_conv_algo_search,
      ConvAlgoSearch::kExhaustive);
  EXPECT_EQ(
      parse_cuda_options({{"arena_extend_strategy", "kNextPowerOfTwo"}}, 1).arena_extend_strategy,
      ArenaExtendStrategy::kNextPowerOfTwo);
}

TEST(CudaOptions, UnknownKeyListsEveryKeyWithItsValues) {
  std::string e = option_error({{"device", "0"}});
  expect_has(e, "CUDAExecutionProvider");
  expect_has(e, "unknown option 'device'");
  for (const auto& key : cuda_option_keys()) expect_has(e, key);
  expect_has(e, "kNextPowerOfTwo, kSameAsRequested");
  expect_has(e, "EXHAUSTIVE, HEURISTIC, DEFAULT");
  EXPECT_EQ(cuda_option_keys().size(), 12u);
}

TEST(CudaOptions, DeviceIdOutOfRangeNamesTheDevicesFound) {
  std::string e = option_error({{"device_id", "2"}}, 2);
  expect_has(e, "option 'device_id' has bad value '2'");
  expect_has(e, "2 CUDA devices were found (ids 0..1)");
  e = option_error({{"device_id", "1"}}, 1);
  expect_has(e, "1 CUDA device was found (ids 0..0)");
  for (const char* bad : {"-1", "one", "", " 0", "0.5", "99999999999999999999"}) {
    e = option_error({{"device_id", bad}});
    expect_has(e, std::string("'device_id' has bad value '") + bad + "'");
    expect_has(e, "an integer from 0");
  }
  // With no device found the range is not checked here (the provider is
  // unavailable then, and says so).
  EXPECT_EQ(parse_cuda_options({{"device_id", "3"}}, 0).device_id, 3);
}

TEST(CudaOptions, GpuMemLimitMustBeAPositiveInteger) {
  for (const char* bad : {"0", "-5", "abc", "1.5", "1e9", "", "18446744073709551616"}) {
    std::string e = option_error({{"gpu_mem_limit", bad}});
    expect_has(e, std::string("'gpu_mem_limit' has bad value '") + bad + "'");
    expect_has(e, "a positive integer (bytes)");
  }
  EXPECT_EQ(parse_cuda_options({{"gpu_mem_limit", "1"}}, 1).gpu_mem_limit, 1u);
}

TEST(CudaOptions, EnumsAndBooleansNameWhatIsAllowed) {
  std::string e = option_error({{"arena_extend_strategy", "kDouble"}});
  expect_has(e, "'arena_extend_strategy' has bad value 'kDouble'");
  expect_has(e, "allowed: kNextPowerOfTwo, kSameAsRequested");
  e = option_error({{"cudnn_conv_algo_search", "exhaustive"}});  // case matters
  expect_has(e, "allowed: EXHAUSTIVE, HEURISTIC, DEFAULT");
  for (const char* key :
       {"cudnn_conv_use_max_workspace", "do_copy_in_default_stream", "use_tf32", "prefer_fp16"}) {
    e = option_error({{key, "yes"}});
    expect_has(e, std::string("'") + key + "' has bad value 'yes'");
    expect_has(e, "allowed: 0, 1");
  }
}

TEST(CudaOptions, AttentionKernelNamesOneOfTheFusedKernels) {
  EXPECT_EQ(parse_cuda_options({}, 1).attention_kernel, AttentionKernel::kAuto);
  const std::pair<const char*, AttentionKernel> cases[] = {
      {"auto", AttentionKernel::kAuto},
      {"tensor_cores", AttentionKernel::kTensorCores},
      {"tiled", AttentionKernel::kTiled},
      {"rows", AttentionKernel::kRows}};
  for (const auto& [name, kernel] : cases)
    EXPECT_EQ(parse_cuda_options({{"attention_kernel", name}}, 1).attention_kernel, kernel) << name;
  const std::string e = option_error({{"attention_kernel", "flash"}});
  expect_has(e, "'attention_kernel' has bad value 'flash'");
  expect_has(e, "allowed: auto, tensor_cores, tiled, rows");
}

TEST(CudaOptions, UserComputeStreamIsANonZeroAddress) {
  for (const char* bad : {"0", "0x0", "0x", "stream", "-4", "0xZZ"}) {
    std::string e = option_error({{"user_compute_stream", bad}});
    expect_has(e, std::string("'user_compute_stream' has bad value '") + bad + "'");
    expect_has(e, "cudaStream_t");
  }
}

TEST(CudaOptions, AlgoCacheIsAPath) {
  std::string e = option_error({{"cudnn_conv_algo_cache", ""}});
  expect_has(e, "'cudnn_conv_algo_cache' has bad value ''");
  expect_has(e, "a file path");
  EXPECT_EQ(
      parse_cuda_options({{"cudnn_conv_algo_cache", "/tmp/x.cache"}}, 1).cudnn_conv_algo_cache,
      "/tmp/x.cache");
  EXPECT_EQ(parse_cuda_options({}, 1).cudnn_conv_algo_cache, "");
}

TEST(CudaOptions, CudaGraphsAreAFlag) {
  EXPECT_TRUE(parse_cuda_options({{"enable_cuda_graph", "1"}}, 1).enable_cuda_graph);
  EXPECT_FALSE(parse_cuda_options({{"enable_cuda_graph", "0"}}, 1).enable_cuda_graph);
  std::string e = option_error({{"enable_cuda_graph", "maybe"}});
  expect_has(e, "'enable_cuda_graph' has bad value 'maybe'");
  expect_has(e, "0, 1");
}
