// Image decoders behind ImageDecoder. Every decoder turns the encoded bytes
// into 8-bit RGB (alpha dropped, grey expanded, deeper samples reduced to 8
// bits) and throws tessera::Error naming the format and the problem on
// malformed data; none may read outside [data, data + size).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::cpu::image {

struct RgbImage {
  int64_t height = 0, width = 0;
  std::vector<uint8_t> rgb;  // height * width * 3, row-major
};

// Largest image we agree to allocate (pixels): a bad header must not make us
// ask for terabytes.
constexpr int64_t kMaxPixels = int64_t(1) << 28;

// Checks a header's size against kMaxPixels; throws naming the format.
void check_dimensions(const char* format, int64_t width, int64_t height);

// One supported format: a magic-byte test and its decoder. `decode` is null
// when the build lacks the format's library (then `missing` says which).
struct ImageFormat {
  const char* name;
  bool (*matches)(const uint8_t* data, size_t size);
  RgbImage (*decode)(const uint8_t* data, size_t size);
  const char* missing;  // the library the build would need
};

// Every format ImageDecoder recognises, in detection order.
const std::vector<ImageFormat>& image_formats();

// Decoders; the library-backed ones exist only when their library was found
// by CMake (see image_formats()).
RgbImage decode_bmp(const uint8_t* data, size_t size);
RgbImage decode_pnm(const uint8_t* data, size_t size);
RgbImage decode_jpeg(const uint8_t* data, size_t size);
RgbImage decode_png(const uint8_t* data, size_t size);
RgbImage decode_tiff(const uint8_t* data, size_t size);
RgbImage decode_webp(const uint8_t* data, size_t size);
RgbImage decode_jpeg2000(const uint8_t* data, size_t size);

}  // namespace tessera::cpu::image
