// One 8-bit image from channel planes (NCHW) into pixel rows (NHWC) with a
// border: what an 8-bit convolution that reads each output position's
// window in place (igemm_conv.hpp) needs, a pixel's channels contiguous.
#pragma once
#include <cstdint>

namespace tessera::linalg {

// Where the image lands: a PH x PW grid of pixels, C bytes each, the image's
// H x W pixels at rows top.., columns left.. and every other pixel `fill`.
struct PaddedPixels {
  int64_t C, H, W;    // the image (C planes of H x W bytes)
  int64_t top, left;  // its offset in the grid
  int64_t PH, PW;     // the grid (PH >= top + H, PW >= left + W)
  uint8_t fill;       // the border's bytes
  uint8_t flip;       // XORed into every image byte (0x80: int8 as uint8)
};

// dst[((y + top) * PW + x + left) * C + c] = src[(c * H + y) * W + x] ^ flip,
// the border `fill`; dst holds PH * PW * C bytes.
void to_padded_nhwc(const uint8_t* src, const PaddedPixels& g, uint8_t* dst);

// dst (cols x rows) = the transpose of src (rows x cols bytes): to_padded_nhwc
// with no border, each row taken as a channel plane.
inline void transpose_bytes(const uint8_t* src, int64_t rows, int64_t cols, uint8_t* dst) {
  to_padded_nhwc(src, {rows, 1, cols, 0, 0, 1, cols, 0, 0}, dst);
}

}  // namespace tessera::linalg
