// Copies of byte images at a step: the rows of an 8-bit convolution's
// im2col matrix are, per filter tap, `rows` runs of `width` pixels taken
// every `step` bytes, one run every `pitch` bytes. Output planes of 7 to 56
// pixels a row make these runs short, so a call per run (memcpy, or a byte
// loop for stride 2) cost more than the copy; here each run is one or two
// masked vector moves where the CPU has AVX-512 BW.
#pragma once
#include <cstdint>

namespace tessera::linalg {

// dst[r * width + i] = src[r * pitch + i * step] for r < rows, i < width.
// Reads no byte past the last one named (src[(rows - 1) * pitch +
// (width - 1) * step]).
void gather_strided_bytes(const uint8_t* src, int64_t pitch, int64_t step, int64_t rows,
                          int64_t width, uint8_t* dst);

}  // namespace tessera::linalg
