// The table of image formats: magic bytes, and the decoder this build has.
// The library-backed decoders are compiled only when CMake found their
// library (it then defines TESSERA_HAVE_<FORMAT>); without one, the format is
// still recognised so the error can say what the build is missing.
#include <cstring>

#include "core/error.hpp"
#include "providers/cpu/image/image_codecs.hpp"

namespace tessera::cpu::image {

namespace {

bool starts_with(const uint8_t* d, size_t n, const char* magic, size_t len) {
  return n >= len && std::memcmp(d, magic, len) == 0;
}
bool is_jpeg(const uint8_t* d, size_t n) { return starts_with(d, n, "\xFF\xD8\xFF", 3); }
bool is_png(const uint8_t* d, size_t n) { return starts_with(d, n, "\x89PNG\r\n\x1A\n", 8); }
bool is_bmp(const uint8_t* d, size_t n) { return starts_with(d, n, "BM", 2); }
bool is_pnm(const uint8_t* d, size_t n) { return n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '6'; }
bool is_tiff(const uint8_t* d, size_t n) {
  return starts_with(d, n, "II*\0", 4) || starts_with(d, n, "MM\0*", 4);
}
bool is_webp(const uint8_t* d, size_t n) {
  return n >= 12 && std::memcmp(d, "RIFF", 4) == 0 && std::memcmp(d + 8, "WEBP", 4) == 0;
}
bool is_jpeg2000(const uint8_t* d, size_t n) {
  return starts_with(d, n, "\0\0\0\x0CjP  \r\n\x87\n", 12) ||  // JP2 file
         starts_with(d, n, "\xFF\x4F\xFF\x51", 4);            // raw J2K codestream
}

#ifdef TESSERA_HAVE_JPEG
constexpr auto kJpeg = &decode_jpeg;
#else
constexpr RgbImage (*kJpeg)(const uint8_t*, size_t) = nullptr;
#endif
#ifdef TESSERA_HAVE_PNG
constexpr auto kPng = &decode_png;
#else
constexpr RgbImage (*kPng)(const uint8_t*, size_t) = nullptr;
#endif
#ifdef TESSERA_HAVE_TIFF
constexpr auto kTiff = &decode_tiff;
#else
constexpr RgbImage (*kTiff)(const uint8_t*, size_t) = nullptr;
#endif
#ifdef TESSERA_HAVE_WEBP
constexpr auto kWebp = &decode_webp;
#else
constexpr RgbImage (*kWebp)(const uint8_t*, size_t) = nullptr;
#endif
#ifdef TESSERA_HAVE_JPEG2000
constexpr auto kJpeg2000 = &decode_jpeg2000;
#else
constexpr RgbImage (*kJpeg2000)(const uint8_t*, size_t) = nullptr;
#endif

}  // namespace

void check_dimensions(const char* format, int64_t width, int64_t height) {
  if (width <= 0 || height <= 0)
    fail(ErrorCode::kInvalidArgument, format, " image has invalid dimensions ", width, "x", height);
  if (width > kMaxPixels / height)
    fail(ErrorCode::kInvalidArgument, format, " image is too large: ", width, "x", height,
         " pixels (the limit is ", kMaxPixels, " pixels)");
}

const std::vector<ImageFormat>& image_formats() {
  static const std::vector<ImageFormat> formats = {
      {"JPEG", &is_jpeg, kJpeg, "libjpeg (libjpeg62-turbo-dev)"},
      {"PNG", &is_png, kPng, "libpng (libpng-dev)"},
      {"BMP", &is_bmp, &decode_bmp, ""},
      {"PNM", &is_pnm, &decode_pnm, ""},
      {"TIFF", &is_tiff, kTiff, "libtiff (libtiff-dev)"},
      {"WebP", &is_webp, kWebp, "libwebp (libwebp-dev)"},
      {"JPEG 2000", &is_jpeg2000, kJpeg2000, "libopenjp2 (libopenjp2-7-dev)"},
  };
  return formats;
}

}  // namespace tessera::cpu::image
