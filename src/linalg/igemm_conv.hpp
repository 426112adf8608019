// 8-bit 2-D convolutions with the image as the product's left side, read in
// place: the image is laid out as pixel rows (NHWC, with its border), each
// output position's window is a few runs of those bytes, and the filters
// are the packed right side (made once, for constant weights). Against the
// filters-by-im2col form (igemm.hpp with an im2col B packed per call) this
// packs nothing per call but the image's transposition, and its tiles run
// over output positions in sixes rather than in 64-wide panels (a 7 x 7
// plane filled 49 of a panel's 64 columns). Each tile's 6 positions x 64
// channels are requantized in registers and written into the channels'
// planes (NCHW). AVX-512 VNNI only: igemm_conv_fits says when.
#pragma once
#include <cstdint>

#include "core/thread_pool.hpp"
#include "linalg/igemm.hpp"

namespace tessera::linalg {

// One image's convolution, group 1: C channels of H x W in, M of OH x OW out.
struct ConvShape {
  int64_t C, H, W, M, kh, kw;
  int64_t stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
  int64_t OH, OW;
};

// Whether this machine and shape take igemm_conv_requantize: VNNI, and each
// run of a window's bytes (a filter row's taps when dil_w == 1, else one
// tap's channels) whole groups of 4 bytes; K = C kh kw at most 16384.
bool igemm_conv_fits(const ConvShape& s);

// The filters (M x C x kh x kw, int8 or uint8) as the product's B: K x M,
// row k = (ky kw + kx) C + c, packed.
class PackedConvFilters {
 public:
  PackedConvFilters(const void* w, bool w_signed, int64_t M, int64_t C, int64_t kh, int64_t kw);
  const PackedBInt8& b() const { return b_; }

 private:
  PackedBInt8 b_;
};

// Where and how the sums leave, as linalg::requantize computes them per
// output channel m: y[m * OH * OW + position] = clamp(round_half_even(
// float(sum + bias[m]) * mult[m] / y_scale) + y_zero, lo, hi).
struct ConvRequantize {
  const int32_t* bias = nullptr;  // M values, or null
  const float* mult = nullptr;    // M values
  float y_scale = 1.0f;
  int32_t y_zero = 0, lo = 0, hi = 255;
  uint8_t* y = nullptr;
};

// Whether igemm_conv_requantize takes these zero points and scales (the
// conditions below), for filters of depth K and M output channels.
bool igemm_conv_requantize_fits(int64_t K, int64_t M, ZeroPoints w_zero, const ConvRequantize& out);

// The convolution of `images` consecutive images x (C planes each, int8
// if x_signed else uint8, zero point x_zero) by the filters (zero points
// w_zero: one, or one per output channel), requantized into out (M planes
// an image, the images consecutive). Returns false, having done nothing,
// where the in-register requantization's conditions fail (scales beyond
// [2^-40, 2^40], a bias beyond 2^30, weight zero points that differ by
// channel): the caller then takes another path. Needs igemm_conv_fits.
bool igemm_conv_requantize(const ConvShape& s, int64_t images, const uint8_t* x, bool x_signed,
                           int32_t x_zero, const PackedConvFilters& filters, ZeroPoints w_zero,
                           const ConvRequantize& out, ThreadPool* pool);

}  // namespace tessera::linalg
