// BMP decoder (our own, bounds-checked): OS/2 core and Windows info headers
// (v1-v5), 1/4/8-bit palettes, 16/24/32-bit pixels with BI_RGB or BI_BITFIELDS,
// bottom-up or top-down rows. RLE and embedded JPEG/PNG are rejected.
#include "core/error.hpp"
#include "providers/cpu/image/image_codecs.hpp"

namespace tessera::cpu::image {

namespace {

[[noreturn]] void bad(const std::string& why) { fail(ErrorCode::kInvalidArgument, "BMP: ", why); }

uint32_t u16(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8; }
uint32_t u32(const uint8_t* p) { return u16(p) | u16(p + 2) << 16; }

// Extracts a channel described by a bit mask and scales it to 8 bits.
struct Channel {
  uint32_t mask = 0;
  int shift = 0, bits = 0;
  explicit Channel(uint32_t m) : mask(m) {
    if (!m) return;
    while (!((m >> shift) & 1)) ++shift;
    while (bits + shift < 32 && ((m >> (shift + bits)) & 1)) ++bits;
  }
  uint8_t get(uint32_t v) const {
    if (!mask) return 0;
    const uint32_t x = (v & mask) >> shift, maxv = (bits >= 32) ? 0xFFFFFFFFu : ((1u << bits) - 1);
    return uint8_t((uint64_t(x) * 255 + maxv / 2) / maxv);
  }
};

}  // namespace

RgbImage decode_bmp(const uint8_t* d, size_t n) {
  if (n < 26) bad("the file is too short for its headers (" + std::to_string(n) + " bytes)");
  const uint32_t pixel_offset = u32(d + 10), hsize = u32(d + 14);
  int64_t width, height;
  uint32_t bpp, compression = 0, colors_used = 0;
  size_t palette_entry = 4;
  if (hsize == 12) {  // OS/2 BITMAPCOREHEADER
    width = u16(d + 18);
    height = int16_t(u16(d + 20));
    bpp = u16(d + 24);
    palette_entry = 3;
  } else if (hsize >= 40 && hsize <= 124) {
    if (n < 14 + size_t(hsize)) bad("truncated info header");
    width = int32_t(u32(d + 18));
    height = int32_t(u32(d + 22));
    bpp = u16(d + 28);
    compression = u32(d + 30);
    colors_used = u32(d + 46);
  } else {
    bad("unsupported header size " + std::to_string(hsize));
  }
  const bool top_down = height < 0;
  if (top_down) height = -height;
  check_dimensions("BMP", width, height);
  if (compression == 1 || compression == 2) bad("RLE-compressed bitmaps are not supported");
  if (compression == 4 || compression == 5) bad("embedded JPEG/PNG bitmaps are not supported");
  if (compression != 0 && compression != 3 && compression != 6)
    bad("unknown compression " + std::to_string(compression));

  uint32_t masks[3] = {0, 0, 0};
  if (compression == 3 || compression == 6) {
    // Masks follow a 40-byte header, or live inside a v2+ header: same offset.
    if (n < 14 + 40 + 12) bad("truncated bit masks");
    for (int i = 0; i < 3; ++i) masks[i] = u32(d + 54 + 4 * i);
  } else if (bpp == 16) {
    masks[0] = 0x7C00, masks[1] = 0x03E0, masks[2] = 0x001F;
  } else if (bpp == 32) {
    masks[0] = 0xFF0000, masks[1] = 0xFF00, masks[2] = 0xFF;
  }

  std::vector<uint8_t> palette;  // RGB triples
  if (bpp == 1 || bpp == 4 || bpp == 8) {
    size_t count = colors_used ? colors_used : (size_t(1) << bpp);
    if (count > 256) bad("palette of " + std::to_string(count) + " colors");
    size_t at = 14 + hsize + (compression == 3 && hsize == 40 ? 12 : 0);
    if (at + count * palette_entry > n) bad("truncated palette");
    for (size_t i = 0; i < count; ++i) {
      const uint8_t* e = d + at + i * palette_entry;
      palette.insert(palette.end(), {e[2], e[1], e[0]});
    }
  } else if (bpp != 16 && bpp != 24 && bpp != 32) {
    bad("unsupported bit depth " + std::to_string(bpp));
  }

  const size_t row_bytes = ((size_t(width) * bpp + 31) / 32) * 4;
  if (pixel_offset > n || size_t(height) > (n - pixel_offset) / row_bytes)
    bad("pixel data is truncated: " + std::to_string(width) + "x" + std::to_string(height) + " at " +
        std::to_string(bpp) + " bits needs " + std::to_string(row_bytes * size_t(height)) +
        " bytes from offset " + std::to_string(pixel_offset) + ", the file has " +
        std::to_string(n));
  const Channel ch[3] = {Channel(masks[0]), Channel(masks[1]), Channel(masks[2])};
  RgbImage img;
  img.width = width;
  img.height = height;
  img.rgb.resize(size_t(width * height * 3));
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = d + pixel_offset + size_t(top_down ? y : height - 1 - y) * row_bytes;
    uint8_t* out = img.rgb.data() + size_t(y * width * 3);
    for (int64_t x = 0; x < width; ++x, out += 3) {
      if (!palette.empty()) {
        const size_t bit = size_t(x) * bpp;
        const uint32_t idx = (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);
        if (size_t(idx) * 3 >= palette.size())
          bad("pixel index " + std::to_string(idx) + " is outside the palette");
        for (int c = 0; c < 3; ++c) out[c] = palette[idx * 3 + size_t(c)];
      } else if (bpp == 24) {
        const uint8_t* p = row + x * 3;
        out[0] = p[2], out[1] = p[1], out[2] = p[0];
      } else {
        const uint32_t v = bpp == 16 ? u16(row + x * 2) : u32(row + x * 4);
        for (int c = 0; c < 3; ++c) out[c] = ch[c].get(v);
      }
    }
  }
  return img;
}

}  // namespace tessera::cpu::image
