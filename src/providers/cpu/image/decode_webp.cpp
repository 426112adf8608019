// WebP decoder over libwebp (lossy and lossless; alpha dropped). libwebp
// reports failures by return value only.
#include <webp/decode.h>

#include "core/error.hpp"
#include "providers/cpu/image/image_codecs.hpp"

namespace tessera::cpu::image {

RgbImage decode_webp(const uint8_t* data, size_t size) {
  WebPBitstreamFeatures features;
  const VP8StatusCode st = WebPGetFeatures(data, size, &features);
  if (st != VP8_STATUS_OK)
    fail(ErrorCode::kInvalidArgument, "WebP: cannot read the header (libwebp status ", int(st), ")");
  if (features.has_animation)
    fail(ErrorCode::kInvalidArgument, "WebP: animated images are not supported");
  check_dimensions("WebP", features.width, features.height);
  RgbImage img;
  img.width = features.width;
  img.height = features.height;
  img.rgb.resize(size_t(img.width * img.height * 3));
  if (!WebPDecodeRGBInto(data, size, img.rgb.data(), img.rgb.size(), int(img.width * 3)))
    fail(ErrorCode::kInvalidArgument, "WebP: the ", img.width, "x", img.height,
         " image data is corrupt or truncated");
  return img;
}

}  // namespace tessera::cpu::image
