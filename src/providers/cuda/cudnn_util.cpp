#include "providers/cuda/cudnn_util.hpp"

#include <algorithm>
#include <chrono>
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
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    cudaGetLastError();  // not left for the next launch's check to report
    return kSmall;
  }
  size_t limit = std::min(free_bytes / 2, kLarge);
  if (env.options().gpu_mem_limit) limit = std::min(limit, env.options().gpu_mem_limit / 4);
  return std::max(limit, kSmall);
}

Tensor search_workspace(const ep::KernelContext& ctx, size_t& limit) {
  for (size_t n = limit; n >= 1024; n /= 2) {
    try {
      Tensor ws(DataType::kUInt8, Shape{int64_t(n)}, ctx.allocator());
      limit = n;
      return ws;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kOutOfMemory) throw;
    }
  }
  limit = 0;
  return Tensor(DataType::kUInt8, Shape{0}, ctx.allocator());
}

ConvDescriptors::ConvDescriptors() {
  try {
    check_cudnn(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&bias), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
  } catch (...) {
    // A constructor that throws gets no destructor: free what was made.
    destroy();
    throw;
  }
}

ConvDescriptors::~ConvDescriptors() { destroy(); }

void ConvDescriptors::destroy() {
  if (x) cudnnDestroyTensorDescriptor(x);
  if (y) cudnnDestroyTensorDescriptor(y);
  if (bias) cudnnDestroyTensorDescriptor(bias);
  if (w) cudnnDestroyFilterDescriptor(w);
  if (conv) cudnnDestroyConvolutionDescriptor(conv);
  x = y = bias = nullptr;
  w = nullptr;
  conv = nullptr;
}

void set_conv_window(const ep::KernelContext& ctx, bool one_d, const std::vector<int64_t>& pad,
                     const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                     ConvProblem& p) {
  p.pad.clear();
  p.stride.clear();
  p.dilation.clear();
  if (one_d) {
    p.pad.push_back(0);
    p.stride.push_back(1);
    p.dilation.push_back(1);
  }
  for (size_t i = 0; i < pad.size(); ++i) {
    p.pad.push_back(to_int(ctx, pad[i]));
    p.stride.push_back(to_int(ctx, strides[i]));
    p.dilation.push_back(to_int(ctx, dilations[i]));
  }
}

void set_conv_descriptors(const CudaEnv& env, ConvDescriptors& d, const ConvProblem& p) {
  const cudnnDataType_t t = cudnn_type(p.type);
  set_tensor(d.x, t, p.x);
  set_tensor(d.y, t, p.y);
  std::vector<int> bias(p.y.size(), 1);
  bias[1] = p.y[1];
  set_tensor(d.bias, t, bias);
  check_cudnn(cudnnSetFilterNdDescriptor(d.w, t, CUDNN_TENSOR_NCHW, int(p.w.size()), p.w.data()),
              "cudnnSetFilterNdDescriptor");
  check_cudnn(
      cudnnSetConvolutionNdDescriptor(d.conv, int(p.pad.size()), p.pad.data(), p.stride.data(),
                                      p.dilation.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
      "cudnnSetConvolutionNdDescriptor");
  check_cudnn(cudnnSetConvolutionGroupCount(d.conv, int(p.group)), "cudnnSetConvolutionGroupCount");
  check_cudnn(cudnnSetConvolutionMathType(d.conv, conv_math_type(env, p.type)),
              "cudnnSetConvolutionMathType");
}

float device_time_ms(cudaStream_t stream, const std::function<cudnnStatus_t()>& call) {
  constexpr int kReps = 3;
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess ||
      capturing != cudaStreamCaptureStatusNone || call() != CUDNN_STATUS_SUCCESS) {
    cudaGetLastError();
    return -1;
  }
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  float ms = -1;
  bool ok = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
  if (ok) {
    for (int i = 0; i < kReps; ++i) ok = call() == CUDNN_STATUS_SUCCESS && ok;
    // Capture ends whatever happened, or the stream stays unusable.
    ok = cudaStreamEndCapture(stream, &graph) == cudaSuccess && ok && graph;
  }
  ok = ok && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess &&
       cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess &&
       cudaGraphLaunch(exec, stream) == cudaSuccess;  // warm: caches, clocks
  // The least of a few replays: a short kernel's single timing is noisy.
  for (int i = 0; ok && i < 3; ++i) {
    float one = 0;
    ok = cudaEventRecord(start, stream) == cudaSuccess &&
         cudaGraphLaunch(exec, stream) == cudaSuccess &&
         cudaEventRecord(stop, stream) == cudaSuccess &&
         cudaEventSynchronize(stop) == cudaSuccess &&
         cudaEventElapsedTime(&one, start, stop) == cudaSuccess;
    if (ok && (ms < 0 || one < ms)) ms = one;
  }
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  cudaGetLastError();  // a failed step is answered by the -1, not left for the next launch
  return ok ? ms / kReps : -1;
}

std::vector<int> rank_by_device_time(
    cudaStream_t stream, const std::vector<int>& listed, size_t limit,
    const std::function<bool(int algo, size_t* need)>& workspace_of,
    const std::function<cudnnStatus_t(int algo, size_t need)>& run) {
  struct Timed {
    int algo;
    float ms;
  };
  std::vector<Timed> timed;
  for (int algo : listed) {
    bool seen = false;  // the heuristics may list an algorithm once per math type
    for (const Timed& t : timed) seen |= t.algo == algo;
    size_t need = 0;
    if (seen || !workspace_of(algo, &need) || need > limit) continue;
    const float ms = device_time_ms(stream, [&] { return run(algo, need); });
    if (ms >= 0) timed.push_back({algo, ms});  // else it failed to run, or cannot be timed here
  }
  if (timed.empty()) return listed;
  const Timed heuristic = timed.front();
  std::stable_sort(timed.begin(), timed.end(),
                   [](const Timed& a, const Timed& b) { return a.ms < b.ms; });
  if (timed.front().algo != heuristic.algo && timed.front().ms > 0.97f * heuristic.ms) {
    auto it = std::find_if(timed.begin(), timed.end(),
                           [&](const Timed& t) { return t.algo == heuristic.algo; });
    std::rotate(timed.begin(), it, it + 1);
  }
  std::vector<int> out;
  for (const Timed& t : timed) out.push_back(t.algo);
  return out;
}

ConvAlgoSearch conv_search_for(const CudaEnv& env, const ep::KernelInfo& info) {
  const ConvAlgoSearch search = env.options().cudnn_conv_algo_search;
  // Half-precision convolutions run on tensor cores, where the searched
  // choices gained nothing over the heuristic's in a model and lost at batch
  // 1 (ResNet-50 float16 on an H200: batch 32 3.11 against 3.13 ms, batch 1
  // 0.72 against 0.63; float32 gained: 1.72 against 2.05, 8.26 against 9.86).
  const DataType t = info.input_type(0);
  const bool half = t == DataType::kFloat16 || t == DataType::kBFloat16;
  return half && search == ConvAlgoSearch::kExhaustive ? ConvAlgoSearch::kHeuristic : search;
}

namespace {

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += str_cat(out.empty() ? "" : "x", x);
  return out;
}

// Everything the choice depends on besides the problem's values. The
// workspace enters as the option that sets its limit, not as the limit:
// with cudnn_conv_use_max_workspace that follows free memory, and a key
// that moved with it would miss saved entries. A hit is still used only when
// its workspace fits the limit of the moment.
std::string conv_algo_key(const CudaEnv& env, const char* direction, const ConvProblem& p) {
  return str_cat(env.device_signature(), "|", direction, "|", data_type_name(p.type), "|math ",
                 int(conv_math_type(env, p.type)), "|x ", join(p.x), "|w ", join(p.w), "|y ",
                 join(p.y), "|pad ", join(p.pad), "|stride ", join(p.stride), "|dilation ",
                 join(p.dilation), "|group ", p.group, "|workspace ",
                 env.options().cudnn_conv_use_max_workspace ? "max" : "small");
}

}  // namespace

void choose_conv_algorithm(const CudaEnv& env, const ep::KernelContext& ctx, ConvAlgoSearch search,
                           const char* direction, const ConvProblem& p, ConvDescriptors& d,
                           const std::function<std::vector<int>(size_t& limit)>& candidates,
                           const std::function<bool(int algo, size_t* need)>& workspace_of,
                           const std::string& what) {
  size_t limit = conv_workspace_limit(env);
  const bool exhaustive = search == ConvAlgoSearch::kExhaustive;
  AlgoCache& cache = env.algo_cache();
  // Only the exhaustive search is worth keeping: the others cost next to nothing.
  const std::string key = exhaustive ? conv_algo_key(env, direction, p) : "";
  size_t need = 0;
  if (exhaustive)
    if (auto hit = cache.find(key); hit && workspace_of(hit->algo, &need) && need <= limit) {
      d.algo = hit->algo;
      d.workspace = need;
      cache.count_reuse();
      return;
    }
  const auto start = std::chrono::steady_clock::now();
  for (int algo : candidates(limit)) {
    if (!workspace_of(algo, &need) || need > limit) continue;
    d.algo = algo;
    d.workspace = need;
    if (exhaustive) {
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      cache.put(key, {algo, need, ms});
      log(Severity::kInfo, "cuda", ctx.node().describe(), ": tuned in ", ms, " ms: algorithm ",
          algo, ", workspace ", need, " bytes",
          cache.path().empty() ? std::string() : str_cat(" (kept in ", cache.path(), ")"));
    }
    return;
  }
  ctx.fail_node("cuDNN found no ", what, " within a workspace of ", limit, " bytes");
}

}  // namespace tessera::cuda
