// ImageDecoder: every format against Pillow's decoding (the reference), the
// three pixel formats, our own BMP/PNM paths the suite does not reach, and
// malformed streams, which must fail with a message and never crash.
#include <gtest/gtest.h>

#include <string>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

#include "unit/providers/image_samples.inc"

Tensor bytes(const std::vector<uint8_t>& v) {
  return Tensor::from_vector<uint8_t>(v, {int64_t(v.size())});
}
Tensor bytes(const std::string& s) { return bytes(std::vector<uint8_t>(s.begin(), s.end())); }

Tensor decode(const Tensor& in, const std::string& fmt = "RGB") {
  return run_node("ImageDecoder", {in}, {attr_string("pixel_format", fmt)}, 20)[0].tensor();
}

void expect_pixels(const Tensor& t, const Shape& shape, const std::vector<uint8_t>& want) {
  ASSERT_EQ(t.dtype(), DataType::kUInt8);
  ASSERT_EQ(t.shape(), shape);
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(int(t.data<uint8_t>()[i]), int(want[i])) << "byte " << i;
}

// The error ImageDecoder throws for `in`, or "" when it does not throw.
std::string error_of(const Tensor& in) {
  try {
    decode(in);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

struct Sample {
  const char* name;
  const std::vector<uint8_t>& data;
  const std::vector<uint8_t>& rgb;
  const std::vector<uint8_t>& gray;
};

const Sample kSamples[] = {
    {"JPEG", kJpeg, kJpegRgb, kJpegGray},   {"PNG", kPng, kPngRgb, kPngGray},
    {"TIFF", kTiff, kTiffRgb, kTiffGray},   {"WebP", kWebp, kWebpRgb, kWebpGray},
    {"JPEG 2000", kJpeg2000, kJpeg2000Rgb, kJpeg2000Gray},
    {"BMP", kBmp, kBmpRgb, kBmpGray},       {"PNM", kPpm, kPpmRgb, kPpmGray},
};

}  // namespace

TEST(ImageDecoder, EveryFormatMatchesTheReference) {
  for (const Sample& s : kSamples) {
    SCOPED_TRACE(s.name);
    expect_pixels(decode(bytes(s.data)), Shape({3, 4, 3}), s.rgb);
    expect_pixels(decode(bytes(s.data), "Grayscale"), Shape({3, 4, 1}), s.gray);
    std::vector<uint8_t> bgr = s.rgb;
    for (size_t i = 0; i < bgr.size(); i += 3) std::swap(bgr[i], bgr[i + 2]);
    expect_pixels(decode(bytes(s.data), "BGR"), Shape({3, 4, 3}), bgr);
  }
}

TEST(ImageDecoder, MalformedStreamsFailWithAMessage) {
  for (const Sample& s : kSamples) {
    SCOPED_TRACE(s.name);
    // Truncations at several points, and a corrupted body.
    for (size_t keep : {s.data.size() / 4, s.data.size() / 2, s.data.size() - 8}) {
      std::vector<uint8_t> cut(s.data.begin(), s.data.begin() + std::max<size_t>(keep, 12));
      EXPECT_NE(error_of(bytes(cut)), "") << "truncated to " << cut.size() << " bytes";
    }
    std::vector<uint8_t> junk = s.data;
    for (size_t i = 16; i < junk.size(); i += 3) junk[i] = uint8_t(junk[i] * 7 + 13);
    try {
      decode(bytes(junk));  // may decode to noise; must not crash
    } catch (const Error&) {
    }
  }
  EXPECT_NE(error_of(bytes(std::string("not an image at all"))).find("not a recognised image"),
            std::string::npos);
  EXPECT_NE(error_of(Tensor(DataType::kUInt8, Shape({0}))).find("empty"), std::string::npos);
  // A JPEG whose headers are garbage: libjpeg's error path must not exit().
  std::string e = error_of(bytes(std::string("\xFF\xD8\xFF\xE0garbage-garbage-garbage", 27)));
  EXPECT_NE(e.find("JPEG"), std::string::npos) << e;
}

TEST(ImageDecoder, HugeHeaderDimensionsAreRejectedBeforeAllocating) {
  // P5 65535x65535 with no raster, and a BMP claiming 2^30 x 2^30 pixels.
  EXPECT_NE(error_of(bytes(std::string("P5\n65535 65535\n255\n"))), "");
  std::vector<uint8_t> bmp = kBmp;
  for (int i : {18, 22}) bmp[size_t(i + 3)] = 0x40;
  EXPECT_NE(error_of(bytes(bmp)).find("too large"), std::string::npos);
}

TEST(ImageDecoder, AsciiAndBitmapPnm) {
  // P3 (ASCII RGB, maxval 15, with a comment) and P1 (1 is black).
  expect_pixels(decode(bytes(std::string("P3\n# c\n2 1 15\n15 0 0  0 15 7\n"))), Shape({1, 2, 3}),
                {255, 0, 0, 0, 255, 119});
  expect_pixels(decode(bytes(std::string("P1\n3 1\n101"))), Shape({1, 3, 3}),
                {0, 0, 0, 255, 255, 255, 0, 0, 0});
  // P5 with 16-bit big-endian samples.
  expect_pixels(decode(bytes(std::string("P5 2 1 65535\n\xFF\xFF\x00\x00", 17)), "Grayscale"),
                Shape({1, 2, 1}), {255, 0});
  EXPECT_NE(error_of(bytes(std::string("P2\n2 1\n255\n1 300\n"))).find("exceeds maxval"),
            std::string::npos);
}

TEST(ImageDecoder, PaletteBmpTopDown) {
  // 2x2, 8-bit palette of 2 colours, top-down (negative height).
  std::vector<uint8_t> b = {'B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 62, 0, 0, 0,  // file header
                            40, 0, 0, 0, 2, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 1, 0, 8, 0,
                            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
                            0, 0, 0, 0,
                            10, 20, 30, 0, 40, 50, 60, 0,  // palette (BGRx)
                            0, 1, 0, 0, 1, 1, 0, 0};       // rows padded to 4 bytes
  expect_pixels(decode(bytes(b)), Shape({2, 2, 3}),
                {30, 20, 10, 60, 50, 40, 60, 50, 40, 60, 50, 40});
  b[b.size() - 4] = 7;  // index outside the palette
  EXPECT_NE(error_of(bytes(b)).find("palette"), std::string::npos);
}

TEST(ImageDecoder, RejectsBadPixelFormat) {
  EXPECT_THROW(decode(bytes(kPng), "RGBA"), Error);
}

}  // namespace tessera::test
