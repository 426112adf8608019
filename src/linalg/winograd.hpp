// Winograd F(4x4, 3x3) and F(2x2, 3x3) convolutions of blocked tensors
// (nchwc.hpp's layout).
//
// A 3x3, stride-1 convolution computes each 4x4 output tile from a 6x6 input
// tile. Transformed into the Winograd domain (input V = B^T d B, filter
// U = G g G^T, both 6x6), the tile's 9 x 16 multiply-adds per input and
// output channel become 36 element-wise products, which over the channels
// are 36 independent matrix products [tiles x C] x [C x M]; the output
// transform A^T m A brings the 6x6 sums back to 4x4 pixels. That is 2.25
// multiply-adds per output pixel instead of 9, and the products run on the
// blocked 1x1 kernel at its full register tile. F(2x2, 3x3) (4x4 input
// tiles, 16 points) saves less (4 instead of 9) but needs less than half the
// transformed filter bytes per tile.
//
// The price is rounding: the transformed values are larger than the pixels
// and the output transform weighs the point products by up to 8, so their
// rounding reaches the output magnified. Two choices bound it: F(4x4, 3x3)
// interpolates at 0, 1, -1, 2, -1/2 (not the usual +-2), and each point's
// sum over the input channels runs in short runs (winograd.cpp). A
// 64-channel layer then deviates from a float64 convolution about twice as
// much as a direct float32 one (F(2x2, 3x3): less than a direct one);
// tests/unit/linalg/test_winograd_accuracy.cpp pins it. The optimizer uses
// F(2x2, 3x3) at level all, F(4x4, 3x3) where a session asks for it, and a
// session can turn both off (docs/performance.md).
#pragma once
#include <cstdint>
#include <vector>

#include "linalg/nchwc.hpp"

namespace tessera::linalg::nchwc {

// True for the convolutions winograd_conv2d computes: dense (group 1) 3x3,
// stride 1, dilation 1, blocked input. Pads and output size are free.
bool winograd_supported(const Conv2dShape& s);

// The output tile side to run a C -> M channel layer with: 2 (F(2x2, 3x3),
// 16 points), 4 (F(4x4, 3x3), 36 points) only where `allow_4x4` and the
// transformed filters stay cached, or 0 where a direct convolution is
// faster (few channels: the transforms dominate; very wide ones: the
// transformed filters come from memory for too few tiles). Layers with 17 to
// 31 outputs take tile 2 only where the AVX-512 kernels are in use.
//
// F(4x4, 3x3) is 1.3-1.5x faster than F(2x2, 3x3) on 64-128 channel
// layers, but its rounding is not bounded by the direct kernel's: stacked
// at full resolution up to a network's output (a U-Net's decoder) it moved
// the output 2.3-3x further from float64 than ONNX Runtime's direct
// convolutions, where F(2x2, 3x3) stays below them. So it is a session's
// choice (session.winograd_4x4), not the default.
int64_t winograd_tile(int64_t C, int64_t M, bool allow_4x4);

// Filters W[M, C, 3, 3] transformed once (at kernel creation) into the
// points of F(tile x tile, 3x3), each packed as blocked 1x1 filters, one per
// run of input blocks ([M/16][run's C/16][16 in][16 out], PackedFilter's
// layout): 4x (tile 4) or 1.8x (tile 2) the memory of the filters.
class WinogradFilter {
 public:
  WinogradFilter() = default;
  WinogradFilter(const float* w, int64_t M, int64_t C, int64_t tile);
  bool empty() const { return data_.empty(); }
  int64_t M() const { return M_; }
  int64_t C() const { return C_; }
  int64_t tile() const { return tile_; }
  // The packed filter of point k.
  const float* point(int64_t k) const { return data_.data() + k * point_size_; }

 private:
  int64_t M_ = 0, C_ = 0, tile_ = 0, point_size_ = 0;
  HostVector<float> data_;  // in the host heap: reuses pages freed while a session is made
};

// y (blocked [N, blocks(M), OH, OW, 16]) = act(conv(x, w) + bias + residual),
// as conv2d, for a shape winograd_supported() accepts, with w's tile; `w`
// must have been made for s.M and s.C. y may be the residual's memory.
void winograd_conv2d(const Conv2dShape& s, const WinogradFilter& w, const float* x,
                     const float* bias, const float* residual, const ActivationSpec& act, float* y,
                     ThreadPool* pool);

}  // namespace tessera::linalg::nchwc
