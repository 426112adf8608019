#include "providers/cuda/cuda_env.hpp"

#include "providers/cuda/cuda_call.hpp"

namespace tessera::cuda {

CudaEnv::CudaEnv(CudaOptions options, int device)
    : options_(options),
      device_(device),
      algo_cache_(AlgoCache::open(options_.cudnn_conv_algo_cache)) {
  lt_ = std::make_unique<HandlePool<cublasLtHandle_t>>(
      [this] {
        set_device();
        cublasLtHandle_t h = nullptr;
        check_cublas(cublaslt().create(&h), "cublasLtCreate", where());
        return h;
      },
      [](cublasLtHandle_t h) {
        if (const CublasLtApi* api = cublaslt_if_loaded()) api->destroy(h);
      });
  cudnn_ = std::make_unique<HandlePool<cudnnHandle_t>>(
      [this] {
        set_device();
        cudnnHandle_t h = nullptr;
        check_cudnn(cudnnCreate(&h), "cudnnCreate", where());
        return h;
      },
      [](cudnnHandle_t h) { cudnnDestroy(h); });
}

void CudaEnv::set_device() const { check_cuda(cudaSetDevice(device_), "cudaSetDevice", where()); }

cudaStream_t CudaEnv::compute_stream() const {
  return options_.user_compute_stream ? reinterpret_cast<cudaStream_t>(options_.user_compute_stream)
                                      : cudaStreamPerThread;
}

cudaStream_t CudaEnv::copy_stream() const {
  return options_.do_copy_in_default_stream ? cudaStreamLegacy : compute_stream();
}

const std::string& CudaEnv::device_signature() const {
  std::call_once(signature_once_, [this] {
    cudaDeviceProp p{};
    check_cuda(cudaGetDeviceProperties(&p, device_), "cudaGetDeviceProperties", where());
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    signature_ =
        str_cat(p.name, " sm_", p.major, p.minor, " cudnn ", cudnnGetVersion(), " cuda ", runtime);
    for (char& c : signature_)
      if (c == '\t' || c == '\n' || c == '|') c = ' ';  // the cache's separators
  });
  return signature_;
}

std::string CudaEnv::where() const { return str_cat("CUDAExecutionProvider device ", device_); }

}  // namespace tessera::cuda
