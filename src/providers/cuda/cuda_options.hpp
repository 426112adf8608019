// The CUDA provider's options: string key/values, parsed and validated in one
// place. Plain C++ (no CUDA headers), so the validation is tested on machines
// without a GPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/arena_allocator.hpp"
#include "ep/execution_provider.hpp"
#include "providers/cuda/attention_plan.hpp"

namespace tessera::cuda {

enum class ConvAlgoSearch { kExhaustive, kHeuristic, kDefault };

struct CudaOptions {
  int device_id = 0;
  size_t gpu_mem_limit = 0;  // bytes the device arena may reserve; 0: no limit
  ArenaExtendStrategy arena_extend_strategy = ArenaExtendStrategy::kNextPowerOfTwo;
  ConvAlgoSearch cudnn_conv_algo_search = ConvAlgoSearch::kExhaustive;
  bool cudnn_conv_use_max_workspace = true;
  bool do_copy_in_default_stream = true;
  uintptr_t user_compute_stream = 0;  // a cudaStream_t given by the caller; 0: none
  bool enable_cuda_graph = false;
  bool use_tf32 = false;
  bool prefer_fp16 = false;
  // A file keeping tuned cuDNN algorithms across sessions and processes
  // (algo_cache.hpp); empty: tuned choices live only as long as the kernel.
  std::string cudnn_conv_algo_cache;
  AttentionKernel attention_kernel = AttentionKernel::kAuto;
};

// The RunOptions configuration entry that gives one run its own stream: the
// address of a cudaStream_t (decimal or 0x-hex) on which that run's CUDA
// kernels are enqueued, instead of the provider's user_compute_stream or the
// calling thread's default stream.
inline constexpr const char* kRunStreamKey = "cuda.compute_stream";
// That entry's value as an address; kInvalidArgument naming the entry when
// it is not one.
uintptr_t parse_run_stream(const std::string& value);

// Every key, in the order the errors list them.
const std::vector<std::string>& cuda_option_keys();

// Parses and validates. Errors are kInvalidArgument and name the option, the
// bad value and what is allowed; an unknown key lists every key with its
// values. device_id is checked against `device_count` (the devices found) when
// there is at least one device; with none, the provider is unavailable anyway.
CudaOptions parse_cuda_options(const ep::ProviderOptions& options, int device_count);

}  // namespace tessera::cuda
