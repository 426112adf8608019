// The calling thread's current CUDA device, set and read through the CUDA
// runtime that Tessera's CUDA provider module loads (libcudart). Without it
// (a build without the CUDA provider, or a machine without the CUDA
// runtime) both entries fail saying why.
#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <string>

#include "capi/api_status.hpp"
#include "runtime/environment.hpp"

namespace tessera::capi {
namespace {

struct CudaRuntime {
  int (*set_device)(int) = nullptr;
  int (*get_device)(int*) = nullptr;
  int (*device_count)(int*) = nullptr;
  const char* (*error_string)(int) = nullptr;
};

// The path of a loaded libcudart, or "".
std::string loaded_cudart() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name && std::strstr(info->dlpi_name, "libcudart.so")) {
          *static_cast<std::string*>(out) = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &path);
  return path;
}

// Loads the provider modules (through the registry) and finds the CUDA
// runtime among what they loaded; fails naming why there is none.
const CudaRuntime& cuda_runtime() {
  static const CudaRuntime rt = [] {
    CudaRuntime r;
    std::string why;
    if (!is_provider_available("CUDAExecutionProvider", &why))
      fail(ErrorCode::kFail, "CUDA is not available: ", why);
    const std::string path = loaded_cudart();
    check_code(!path.empty(), ErrorCode::kFail,
               "CUDA is not available: the CUDA provider is, but no CUDA runtime (libcudart) is "
               "loaded in this process");
    // RTLD_NOLOAD: a handle to the copy already loaded, never a second one.
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    check_code(lib != nullptr, ErrorCode::kFail, "CUDA is not available: ", path,
               " could not be opened: ", dlerror());
    r.set_device = reinterpret_cast<int (*)(int)>(dlsym(lib, "cudaSetDevice"));
    r.get_device = reinterpret_cast<int (*)(int*)>(dlsym(lib, "cudaGetDevice"));
    r.device_count = reinterpret_cast<int (*)(int*)>(dlsym(lib, "cudaGetDeviceCount"));
    r.error_string = reinterpret_cast<const char* (*)(int)>(dlsym(lib, "cudaGetErrorString"));
    check_code(r.set_device && r.get_device && r.device_count && r.error_string, ErrorCode::kFail,
               "CUDA is not available: ", path,
               " lacks cudaSetDevice, cudaGetDevice, cudaGetDeviceCount or cudaGetErrorString");
    return r;
  }();
  return rt;
}

void check_cuda(const CudaRuntime& rt, int code, const char* call) {
  check_code(code == 0, ErrorCode::kFail, call, " failed: ", rt.error_string(code), " (CUDA error ",
             code, ")");
}

}  // namespace

OrtStatus* ORT_API_CALL SetCurrentGpuDeviceId(int device_id) noexcept {
  return guard("SetCurrentGpuDeviceId", [&] {
    check(device_id >= 0, "device_id ", device_id, " is negative");
    const CudaRuntime& rt = cuda_runtime();
    int count = 0;
    check_cuda(rt, rt.device_count(&count), "cudaGetDeviceCount");
    check(device_id < count, "device_id ", device_id, " is out of range: this machine has ", count,
          " CUDA device", count == 1 ? "" : "s");
    check_cuda(rt, rt.set_device(device_id), "cudaSetDevice");
  });
}

OrtStatus* ORT_API_CALL GetCurrentGpuDeviceId(int* device_id) noexcept {
  return guard("GetCurrentGpuDeviceId", [&] {
    need(device_id, "device_id");
    const CudaRuntime& rt = cuda_runtime();
    int id = 0;
    check_cuda(rt, rt.get_device(&id), "cudaGetDevice");
    *device_id = id;
  });
}

}  // namespace tessera::capi
