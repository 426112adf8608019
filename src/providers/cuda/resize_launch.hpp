// Resize's entry points (resize.cu), in plain types so host files need only
// cuda_runtime_api.h. As in cuda_launch.hpp, each launcher enqueues its
// kernels on `stream` and returns cudaGetLastError().
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/index_ops_launch.hpp"

namespace tessera::cuda {

enum class ResizeMode : int { kNearest, kLinear, kCubic };
enum class ResizeCoord : int {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize
};
enum class NearestMode : int { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

// One axis: its input and output lengths, the scale, the roi (used by
// tf_crop_and_resize) and the spec's fractional output width (in * scale,
// which align_corners divides by when scales were given; 0: use out).
// `identity` axes are copied coordinate for coordinate (in == out at scale
// 1 under a coordinate mode that maps x to x): the kernel computes no taps
// for them.
struct ResizeAxis {
  int64_t in = 1, out = 1, in_stride = 0;
  double scale = 1, roi_start = 0, roi_end = 1, out_width = 0;
  bool identity = true;
};

struct ResizePlan {
  int rank = 0;
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoord coord = ResizeCoord::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  bool legacy = false;  // Resize-10: asymmetric, and nearest rounds up only when shrinking
  bool exclude_outside = false;
  double cubic_a = -0.75;
  float extrapolation = 0;  // tf_crop_and_resize's value outside the roi
  ResizeAxis axes[kMaxIndexRank];
};

// Nearest: each output element copies the input element its per-axis picks
// select (any element type, by size), or the low elem_bytes bytes of
// `fill_bits` outside a tf_crop_and_resize roi. n = output element count.
cudaError_t launch_resize_nearest(int elem_bytes, const void* x, void* y, int64_t n,
                                  uint64_t fill_bits, const ResizePlan& plan, cudaStream_t stream);
// Linear and cubic: each output element is the weighted sum of its taps'
// input elements (float arithmetic for the float types, double for double
// and integers, which are clamped to their range and truncated).
cudaError_t launch_resize_weighted(NumType type, const void* x, void* y, int64_t n,
                                   const ResizePlan& plan, cudaStream_t stream);

}  // namespace tessera::cuda
