// ImageDecoder (opset 20): encoded bytes (uint8, 1-D) -> uint8 image
// (H, W, C), C = 3 for RGB/BGR and 1 for Grayscale.
//
// The spec says an undecodable stream gives an empty matrix; we throw
// instead, naming the format and what is wrong, because an empty result
// silently propagates (see DESIGN.md: errors tell the user what to fix).
#include <algorithm>
#include <cstring>
#include <sstream>

#include "providers/cpu/image/image_codecs.hpp"
#include "providers/cpu/image/image_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class PixelFormat { kRgb, kBgr, kGray };

std::string first_bytes(const uint8_t* d, size_t n) {
  std::ostringstream os;
  os << std::hex;
  for (size_t i = 0; i < std::min<size_t>(n, 8); ++i) os << (i ? " " : "") << int(d[i]);
  return os.str();
}

class ImageDecoderKernel : public ep::OpKernel {
 public:
  explicit ImageDecoderKernel(const ep::KernelInfo& info) {
    const std::string f = info.attr_string("pixel_format", "RGB");
    if (f == "RGB") format_ = PixelFormat::kRgb;
    else if (f == "BGR") format_ = PixelFormat::kBgr;
    else if (f == "Grayscale") format_ = PixelFormat::kGray;
    else info.fail_node("pixel_format '", f, "' must be RGB, BGR or Grayscale");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& in = ctx.required_input(0);
    if (in.rank() != 1) ctx.fail_node("encoded_stream must be 1-D, got ", in.shape().to_string());
    const uint8_t* data = in.data<uint8_t>();
    const size_t size = size_t(in.num_elements());
    if (size == 0) ctx.fail_node("encoded_stream is empty");
    const image::ImageFormat* fmt = nullptr;
    for (const auto& f : image::image_formats())
      if (f.matches(data, size)) {
        fmt = &f;
        break;
      }
    if (!fmt)
      ctx.fail_node("encoded_stream (", size, " bytes, starting ", first_bytes(data, size),
                    ") is not a recognised image format (JPEG, PNG, BMP, PNM, TIFF, WebP, "
                    "JPEG 2000)");
    if (!fmt->decode)
      ctx.fail_node("the stream is ", fmt->name, " but this build has no ", fmt->name,
                    " decoder: it was built without ", fmt->missing);
    image::RgbImage img;
    try {
      img = fmt->decode(data, size);
    } catch (const Error& e) {
      ctx.fail_node("cannot decode the ", size, "-byte ", fmt->name, " stream: ", e.what());
    }
    const int64_t H = img.height, W = img.width, n = H * W;
    if (int64_t(img.rgb.size()) != n * 3)
      ctx.fail_node("internal: the ", fmt->name, " decoder returned ", img.rgb.size(),
                    " bytes for ", H, "x", W);
    const uint8_t* s = img.rgb.data();
    if (format_ == PixelFormat::kGray) {
      uint8_t* y = ctx.output(0, Shape({H, W, 1}), DataType::kUInt8).mutable_data<uint8_t>();
      // ITU-R 601 luma in 16-bit fixed point, rounded: what the reference's
      // RGB -> "L" conversion computes.
      for (int64_t i = 0; i < n; ++i)
        y[i] = uint8_t((s[3 * i] * 19595u + s[3 * i + 1] * 38470u + s[3 * i + 2] * 7471u +
                        0x8000u) >> 16);
      return;
    }
    uint8_t* y = ctx.output(0, Shape({H, W, 3}), DataType::kUInt8).mutable_data<uint8_t>();
    if (format_ == PixelFormat::kRgb) {
      std::memcpy(y, s, size_t(n * 3));
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      y[3 * i] = s[3 * i + 2];
      y[3 * i + 1] = s[3 * i + 1];
      y[3 * i + 2] = s[3 * i];
    }
  }

 private:
  PixelFormat format_ = PixelFormat::kRgb;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_image_decoder(const ep::KernelInfo& info) {
  return std::make_unique<ImageDecoderKernel>(info);
}

}  // namespace tessera::cpu
