// cuDNN descriptor helpers shared by the convolution kernels (Conv,
// ConvTranspose): element types, packed tensor descriptors, 32-bit size
// checks, the math type and the workspace limit the options ask for.
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
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

// Device memory for an exhaustive search's workspace: `limit` bytes, or, where
// the allocator cannot give that much (a small gpu_mem_limit, a full
// device), the largest of limit/2, limit/4, ... it can, down to none; `limit`
// becomes the size got, so the search considers only algorithms that fit it.
Tensor search_workspace(const ep::KernelContext& ctx, size_t& limit);

// The cuDNN objects of one convolution problem (Conv's forward,
// ConvTranspose's backward-data): the X, Y and bias tensors, the filter and
// the convolution, created together and destroyed together; and the chosen
// algorithm with the workspace it needs.
struct ConvDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algo = 0;
  size_t workspace = 0;
  ConvDescriptors();
  ~ConvDescriptors();
  ConvDescriptors(const ConvDescriptors&) = delete;
  ConvDescriptors& operator=(const ConvDescriptors&) = delete;

 private:
  void destroy();
};

// One convolution as cuDNN takes it (1-D as 2-D with a height of 1): dims of
// X, the filter and Y (what the routine writes: Conv's Y, ConvTranspose's dx),
// and the window.
struct ConvProblem {
  DataType type = DataType::kFloat;
  std::vector<int> x, w, y, pad, stride, dilation;
  int64_t group = 1;
};

// Sets p's window from per-axis values, with the extra leading axis of a
// 1-D problem.
void set_conv_window(const ep::KernelContext& ctx, bool one_d, const std::vector<int64_t>& pad,
                     const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                     ConvProblem& p);

// Sets d's tensors (packed; the bias [1, C, 1...] over Y's channels), filter
// (NCHW) and convolution (cross-correlation, float accumulation, groups, the
// env's math type) for `p`.
void set_conv_descriptors(const CudaEnv& env, ConvDescriptors& d, const ConvProblem& p);

// A node's cudnn_conv_algo_search: HEURISTIC in place of EXHAUSTIVE for
// float16 and bfloat16 inputs (tensor-core convolutions, where the search's
// choices measured slower in a model than the heuristic's).
ConvAlgoSearch conv_search_for(const CudaEnv& env, const ep::KernelInfo& info);

// The exhaustive search's order: each of `listed` (the algorithms cuDNN's
// heuristics call supported, in their order; the first is the heuristic's
// choice) whose workspace fits `limit` is timed by the GPU's own time
// (device_time_ms) and the list comes back fastest first. The heuristic's
// choice stays first unless another is at least 3% faster; where timing is
// not possible (a stream under capture), `listed` comes back as it is.
// cuDNN's own Find figures are not used: they include the host's cost of
// each call and the loading of kernels on first use, so on a fast GPU they
// favour algorithms that are slower in a model (ResNet-50 on an H200: 0.62 ms
// with the heuristic's choices, 2.05 ms with Find's, CUDA graphs, float16).
std::vector<int> rank_by_device_time(
    cudaStream_t stream, const std::vector<int>& listed, size_t limit,
    const std::function<bool(int algo, size_t* need)>& workspace_of,
    const std::function<cudnnStatus_t(int algo, size_t need)>& run);

// The GPU's time of one `call` in ms: a first call (it loads the kernels),
// then a CUDA graph of a few calls captured on `stream` and replayed between
// two events. Negative when a call fails or the stream cannot be captured.
float device_time_ms(cudaStream_t stream, const std::function<cudnnStatus_t()>& call);

// Chooses d.algo and d.workspace for `p`. Under EXHAUSTIVE, the env's
// AlgoCache (option cudnn_conv_algo_cache) answers first when it holds the
// problem and the algorithm's workspace still fits. Otherwise `search`
// returns the candidates (best first; the search itself per the setting),
// and the first that `workspace_of` accepts within the workspace limit is
// taken; an exhaustive search is recorded in the cache and its time logged
// (Info). `direction` names the cuDNN routine ("fwd", "bwd_data"); `what`
// names the problem in the failure when nothing fits.
void choose_conv_algorithm(const CudaEnv& env, const ep::KernelContext& ctx, ConvAlgoSearch search,
                           const char* direction, const ConvProblem& p, ConvDescriptors& d,
                           const std::function<std::vector<int>(size_t& limit)>& candidates,
                           const std::function<bool(int algo, size_t* need)>& workspace_of,
                           const std::string& what);

// A convolution kernel's descriptors per (X dims, W dims): made once by
// `make` on the first run with those shapes and shared by every later one
// (concurrent first runs may both make them; the first stored wins).
template <typename D>
class ConvShapeCache {
 public:
  std::shared_ptr<const D> get(const Shape& x, const Shape& w,
                               const std::function<std::shared_ptr<D>()>& make) const {
    std::vector<int64_t> key = x.dims();
    key.insert(key.end(), w.dims().begin(), w.dims().end());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    }
    std::shared_ptr<const D> d = make();
    std::lock_guard<std::mutex> lock(mu_);
    return cache_.emplace(std::move(key), std::move(d)).first->second;
  }

 private:
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const D>> cache_;
};

}  // namespace tessera::cuda
