// Unfolding of N-D images for convolution as GEMM: im2col lays every
// receptive field out as a column, col2im folds columns back, summing
// overlaps (used by ConvTranspose). Padding positions read as zero.
#pragma once
#include <cstdint>
#include <vector>

#include "core/thread_pool.hpp"

namespace tessera::linalg {

struct ConvGeometry {
  std::vector<int64_t> in;      // spatial dims of the image
  std::vector<int64_t> out;     // spatial dims of the grid of windows
  std::vector<int64_t> kernel;  // spatial dims of the window
  std::vector<int64_t> strides, pads_begin, dilations;
  int64_t in_size() const;
  int64_t out_size() const;
  int64_t kernel_size() const;
};

// img [channels, in...] -> col [channels * kernel_size, out_size].
template <typename T>
void im2col(const T* img, int64_t channels, const ConvGeometry& g, T* col,
            ThreadPool* pool = nullptr);

// Columns [j0, j0 + n) of im2col's matrix, as col [channels * kernel_size, n]:
// a convolution over a long output computes it a slice at a time, so the
// slice stays in cache between being written and being read by the GEMM.
void im2col_columns(const float* img, int64_t channels, const ConvGeometry& g, int64_t j0,
                    int64_t n, float* col);

// col [channels * kernel_size, out_size] is added into img [channels, in...].
template <typename T>
void col2im(const T* col, int64_t channels, const ConvGeometry& g, T* img,
            ThreadPool* pool = nullptr);

}  // namespace tessera::linalg
