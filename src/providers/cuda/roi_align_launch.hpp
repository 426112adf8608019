// RoiAlign's entry point (roi_align.cu), in plain types so host files need
// only cuda_runtime_api.h. As in cuda_launch.hpp, the launcher enqueues its
// kernel on `stream` and returns cudaGetLastError().
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/index_ops_launch.hpp"

namespace tessera::cuda {

struct RoiAlignParams {
  int64_t channels = 0, height = 0, width = 0, batch = 0;
  int64_t out_h = 1, out_w = 1;
  int64_t sampling_ratio = 0;  // 0: adaptive, ceil(box size / output size)
  float spatial_scale = 1;
  bool half_pixel = true;  // else output_half_pixel (and opset 10)
  bool max = false;        // max of the weighted corners, else the average
};

// y [num_rois, C, out_h, out_w] from x [N, C, H, W], boxes `rois` [num_rois,
// 4] (x1, y1, x2, y2, in x's type) and `batch_indices` (int64), computed in
// float as the CPU provider does. A batch index out of range is recorded in
// `bad_index`, and a box coordinate that is not finite or beyond 2^24 (after
// spatial_scale) in `bad_box` (index: the box); their outputs are zeros.
cudaError_t launch_roi_align(NumType type, const void* x, const void* rois,
                             const int64_t* batch_indices, void* y, int64_t num_rois,
                             const RoiAlignParams& p, IndexError* bad_index, IndexError* bad_box,
                             cudaStream_t stream);

}  // namespace tessera::cuda
