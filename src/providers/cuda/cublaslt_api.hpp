// cuBLASLt, opened with dlopen on first use instead of linked: linking its
// 500 MB library cost every process about 0.4 s and 200 MB at start-up, with
// or without a GPU (cmake/cuda.cmake). The table holds the few functions the
// provider calls, typed from cublasLt.h.
#pragma once
#include <cublasLt.h>

#include <string>

namespace tessera::cuda {

struct CublasLtApi {
  std::string path;    // the file dlopen took
  size_t version = 0;  // cublasLtGetVersion(), e.g. 130100
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtGetVersion) get_version = nullptr;
  decltype(&cublasLtGetStatusName) status_name = nullptr;
  decltype(&cublasLtGetStatusString) status_string = nullptr;
  decltype(&cublasLtMatmulDescCreate) matmul_desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) matmul_desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) matmul_desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatrixLayoutSetAttribute) layout_set = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) preference_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) preference_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) preference_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) algo_get_heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
};

// Loads the library once per process; throws kEPFail naming every path tried
// and dlerror()'s reason, or the function that is missing.
const CublasLtApi& cublaslt();
// The loaded table, or null when cublaslt() has not succeeded (for status texts).
const CublasLtApi* cublaslt_if_loaded();

}  // namespace tessera::cuda
