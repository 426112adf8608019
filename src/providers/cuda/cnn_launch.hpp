// Launchers of the CNN kernels (cnn.cu): pooling, global pooling,
// BatchNormalization in inference form, and the crop ConvTranspose uses.
// Plain types only, like cuda_launch.hpp.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/cuda_launch.hpp"

namespace tessera::cuda {

enum class PoolKind : int { kMax, kAverageExcludePad, kAverageIncludePad };

// A pooling window over 1 to 3 spatial dims, always given as 3: missing
// leading dims have size 1, kernel 1, stride 1, dilation 1 and no pads.
// Sizes fit in int (the host checks).
struct PoolGeometry {
  int64_t planes = 0;  // N * C
  int in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  int pad_begin[3] = {0, 0, 0}, pad_end[3] = {0, 0, 0};
};

// One output per window: the max (the first tap, then any larger one), or
// the float sum divided by the in-bounds taps (kAverageExcludePad) or by the
// taps inside the padded input (kAverageIncludePad). A window with no
// in-bounds tap gives -FLT_MAX (max) or 0 (average).
cudaError_t launch_pool(PoolKind kind, ElemType t, const void* x, void* y, const PoolGeometry& g,
                        cudaStream_t stream);

// y[p] = max (NaN if any is NaN) or mean of the `plane_size` contiguous
// elements of plane p; the mean of an empty plane is 0.
cudaError_t launch_global_pool(bool max, ElemType t, const void* x, void* y, int64_t planes,
                               int64_t plane_size, cudaStream_t stream);

// Inference BatchNormalization of x [n, c, spatial]:
// y = (x - mean[c]) * scale[c] / sqrt(var[c] + eps) + bias[c]. The four
// per-channel inputs have their own element types (opset 15's T1 and T2);
// `factors` is device scratch of 3 * c floats.
cudaError_t launch_batch_norm(ElemType t, ElemType param_t, ElemType stats_t, const void* x,
                              const void* scale, const void* bias, const void* mean,
                              const void* var, void* y, float* factors, int64_t n, int64_t c,
                              int64_t spatial, float epsilon, cudaStream_t stream);

// Copies the leading corner [planes, out...] of x [planes, in...] (3
// spatial dims, missing leading ones 1; out[i] <= in[i]) into y, elements of
// `elem_bytes` (2 or 4) bytes.
cudaError_t launch_crop(int elem_bytes, const void* x, void* y, int64_t planes, const int in[3],
                        const int out[3], cudaStream_t stream);

}  // namespace tessera::cuda
