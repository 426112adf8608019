#include "providers/cuda/cudnn_util.hpp"

#include <algorithm>
#include <climits>

#include "core/logging.hpp"
#include "providers/cuda/cuda_call.hpp"

namespace tessera::cuda {

cudnnDataType_t cudnn_type(DataType t) {
  switch (t) {
    case DataType::kFloat16:
      return CUDNN_DATA_HALF;
    case DataType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      return CUDNN_DATA_FLOAT;
  }
}

std::vector<int> packed_strides(const std::vector<int>& dims) {
  std::vector<int> s(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

void set_tensor(cudnnTensorDescriptor_t d, cudnnDataType_t t, const std::vector<int>& dims) {
  const std::vector<int> strides = packed_strides(dims);
  check_cudnn(cudnnSetTensorNdDescriptor(d, t, int(dims.size()), dims.data(), strides.data()),
              "cudnnSetTensorNdDescriptor");
}

int to_int(const ep::KernelContext& ctx, int64_t v) {
  if (v < 0 || v > int64_t(INT32_MAX))
    ctx.fail_node("a size of ", v, " does not fit cuDNN's 32-bit descriptors");
  return int(v);
}

std::vector<int> cudnn_dims(const ep::KernelContext& ctx, const Shape& s, bool one_d) {
  std::vector<int> v;
  for (size_t i = 0; i < s.rank(); ++i) {
    if (one_d && i == 2) v.push_back(1);
    v.push_back(to_int(ctx, s[i]));
  }
  return v;
}

cudnnMathType_t conv_math_type(const CudaEnv& env, DataType t) {
  if (t != DataType::kFloat) return CUDNN_TENSOR_OP_MATH;
  if (env.options().prefer_fp16) return CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
  return env.options().use_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;  // FMA: strict f32
}

size_t conv_workspace_limit(const CudaEnv& env) {
  constexpr size_t kSmall = 32u << 20, kLarge = 1u << 30;
  if (!env.options().cudnn_conv_use_max_workspace) return kSmall;
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return kSmall;
  size_t limit = std::min(free_bytes / 2, kLarge);
  if (env.options().gpu_mem_limit) limit = std::min(limit, env.options().gpu_mem_limit / 4);
  return std::max(limit, kSmall);
}

namespace {

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += str_cat(out.empty() ? "" : "x", x);
  return out;
}

}  // namespace

std::string conv_algo_key(const CudaEnv& env, const ConvSearchKey& k) {
  return str_cat(env.device_signature(), "|", k.direction, "|", data_type_name(k.type), "|math ",
                 int(k.math), "|x ", join(k.x), "|w ", join(k.w), "|y ", join(k.y), "|pad ",
                 join(k.pad), "|stride ", join(k.stride), "|dilation ", join(k.dilation), "|group ",
                 k.group, "|workspace ", k.workspace_limit);
}

void record_tuned_algo(const CudaEnv& env, const ep::KernelContext& ctx, const std::string& key,
                       int algo, size_t workspace, double ms) {
  AlgoCache& cache = env.algo_cache();
  cache.put(key, {algo, workspace, ms});
  log(Severity::kInfo, "cuda", ctx.node().describe(), ": tuned in ", ms, " ms: algorithm ", algo,
      ", workspace ", workspace, " bytes",
      cache.path().empty() ? std::string() : str_cat(" (kept in ", cache.path(), ")"));
}

}  // namespace tessera::cuda
