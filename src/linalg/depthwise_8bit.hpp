// 3x3 depthwise convolution of one 8-bit plane, exactly, in float: the
// sums of (x - x_zero) * w over 9 taps are integers below 2^24, so float
// arithmetic gives them exactly in any order. The plane is dequantized
// straight into a zero-bordered buffer (no separate copy); stride 2 splits
// its columns into even and odd planes so every tap reads contiguous
// floats (a strided read would be a gather). For QLinearConv /
// ConvInteger's depthwise layers (MobileNet's).
#pragma once
#include <cstdint>

namespace tessera::linalg {

struct Depthwise3x3Plane {
  int64_t H, W, OH, OW;  // input and output plane sizes
  int64_t stride;        // 1 or 2, both ways
  int64_t pad_top, pad_left;
};

// Whether depthwise3x3_8bit takes this geometry (3x3, dilation 1, stride 1
// or 2 both ways, leading pads >= 0).
bool depthwise3x3_8bit_fits(int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                            int64_t pad_top, int64_t pad_left);

// out[oh * OW + ow] = sum over ky, kx < 3 of w[ky * 3 + kx] *
//   (x[oh*s - pad_top + ky][ow*s - pad_left + kx] - x_zero), taps outside x
// adding nothing; x is H x W bytes (int8 when is_signed), w holds the
// filter's (value - zero point) as floats.
void depthwise3x3_8bit(const uint8_t* x, bool is_signed, float x_zero, const float* w,
                       const Depthwise3x3Plane& g, int32_t* out);

}  // namespace tessera::linalg
