#include "providers/cuda/cublaslt_api.hpp"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "core/error.hpp"

namespace tessera::cuda {

namespace {

std::atomic<const CublasLtApi*> loaded{nullptr};

template <typename F>
void bind(void* lib, const std::string& path, F& fn, const char* symbol) {
  fn = reinterpret_cast<F>(dlsym(lib, symbol));
  if (!fn)
    fail(ErrorCode::kEPFail, "CUDAExecutionProvider: ", path, " has no function ", symbol,
         " (a cuBLASLt older than the headers this build used?)");
}

CublasLtApi load() {
  // The soname first (the loader's search path, ld.so.cache), then the file
  // of the toolkit this build was configured with.
  const char* candidates[] = {TESSERA_CUBLASLT_SONAME, TESSERA_CUBLASLT_PATH};
  std::string tried;
  void* lib = nullptr;
  std::string path;
  for (const char* c : candidates) {
    lib = dlopen(c, RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      path = c;
      break;
    }
    const char* why = dlerror();
    tried += str_cat(tried.empty() ? "" : "; ", c, ": ", why ? why : "not found");
  }
  if (!lib)
    fail(ErrorCode::kEPFail, "CUDAExecutionProvider: cannot load cuBLASLt (tried ", tried,
         "); install the CUDA toolkit's cuBLAS or add its lib64 folder to LD_LIBRARY_PATH");
  // Keep the library for the life of the process: the table points into it.
  CublasLtApi api;
  Dl_info info{};
  api.path = path;
  bind(lib, path, api.create, "cublasLtCreate");
  bind(lib, path, api.destroy, "cublasLtDestroy");
  bind(lib, path, api.get_version, "cublasLtGetVersion");
  bind(lib, path, api.status_name, "cublasLtGetStatusName");
  bind(lib, path, api.status_string, "cublasLtGetStatusString");
  bind(lib, path, api.matmul_desc_create, "cublasLtMatmulDescCreate");
  bind(lib, path, api.matmul_desc_destroy, "cublasLtMatmulDescDestroy");
  bind(lib, path, api.matmul_desc_set, "cublasLtMatmulDescSetAttribute");
  bind(lib, path, api.layout_create, "cublasLtMatrixLayoutCreate");
  bind(lib, path, api.layout_destroy, "cublasLtMatrixLayoutDestroy");
  bind(lib, path, api.layout_set, "cublasLtMatrixLayoutSetAttribute");
  bind(lib, path, api.preference_create, "cublasLtMatmulPreferenceCreate");
  bind(lib, path, api.preference_destroy, "cublasLtMatmulPreferenceDestroy");
  bind(lib, path, api.preference_set, "cublasLtMatmulPreferenceSetAttribute");
  bind(lib, path, api.algo_get_heuristic, "cublasLtMatmulAlgoGetHeuristic");
  bind(lib, path, api.matmul, "cublasLtMatmul");
  if (dladdr(reinterpret_cast<void*>(api.create), &info) && info.dli_fname)
    api.path = info.dli_fname;
  api.version = api.get_version();
  return api;
}

}  // namespace

const CublasLtApi& cublaslt() {
  static std::mutex mu;
  if (const CublasLtApi* api = loaded.load()) return *api;
  std::lock_guard<std::mutex> lock(mu);
  if (const CublasLtApi* api = loaded.load()) return *api;
  static CublasLtApi api;  // filled once; a failed load is retried on the next call
  api = load();
  loaded = &api;
  return api;
}

const CublasLtApi* cublaslt_if_loaded() { return loaded.load(); }

}  // namespace tessera::cuda
