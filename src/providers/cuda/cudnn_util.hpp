// cuDNN descriptor helpers shared by the convolution kernels (Conv,
// ConvTranspose): element types, packed tensor descriptors, 32-bit size
// checks, the math type and the workspace limit the options ask for.
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "ep/kernel.hpp"
#include "providers/cuda/cuda_env.hpp"

namespace tessera::cuda {

// float16 and bfloat16 map to theirs; everything else to float.
cudnnDataType_t cudnn_type(DataType t);

// Packed (row-major) strides of dims, as cuDNN wants them.
std::vector<int> packed_strides(const std::vector<int>& dims);

// Sets `d` to a packed tensor of `dims`.
void set_tensor(cudnnTensorDescriptor_t d, cudnnDataType_t t, const std::vector<int>& dims);

// `v` as an int, or fails the node: cuDNN's descriptors take 32-bit sizes.
int to_int(const ep::KernelContext& ctx, int64_t v);

// The dims of `s` for a cuDNN descriptor; with `one_d`, a height of 1 is
// inserted before the single spatial dim (cuDNN's tensors have 4 or 5 dims).
std::vector<int> cudnn_dims(const ep::KernelContext& ctx, const Shape& s, bool one_d);

// The convolution math type: tensor ops for float16/bfloat16; for float,
// down-conversion with prefer_fp16, TF32 with use_tf32, else strict FMA.
cudnnMathType_t conv_math_type(const CudaEnv& env, DataType t);

// The workspace an algorithm may use: 32 MiB, or with
// cudnn_conv_use_max_workspace up to half the free device memory (1 GiB at
// most, a quarter of gpu_mem_limit when set).
size_t conv_workspace_limit(const CudaEnv& env);

// The exhaustive search's choice for one convolution, through the env's
// AlgoCache (option cudnn_conv_algo_cache): the key names the device, the
// library versions and everything the choice depends on; `direction` is the
// cuDNN routine ("fwd", "bwd_data").
struct ConvSearchKey {
  const char* direction;
  DataType type;
  cudnnMathType_t math;
  std::vector<int> x, w, y, pad, stride, dilation;  // y: what the routine writes
  int64_t group;
  size_t workspace_limit;
};
std::string conv_algo_key(const CudaEnv& env, const ConvSearchKey& k);
// Records a search's result and logs what it cost (Info: "tuned ... in N ms").
void record_tuned_algo(const CudaEnv& env, const ep::KernelContext& ctx, const std::string& key,
                       int algo, size_t workspace, double ms);

}  // namespace tessera::cuda
