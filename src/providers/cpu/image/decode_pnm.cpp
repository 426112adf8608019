// Netpbm decoder (our own, bounds-checked): P1/P4 (bitmap), P2/P5 (grey),
// P3/P6 (colour), ASCII or binary, maxval up to 65535 (scaled to 8 bits).
#include <string>

#include "core/error.hpp"
#include "providers/cpu/image/image_codecs.hpp"

namespace tessera::cpu::image {

namespace {

[[noreturn]] void bad(const std::string& why) { fail(ErrorCode::kInvalidArgument, "PNM: ", why); }

bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

class Reader {
 public:
  Reader(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  // Next unsigned decimal in the header or an ASCII raster, skipping
  // whitespace and '#' comments.
  uint32_t number(const char* what) {
    for (;;) {
      while (pos_ < n_ && is_space(d_[pos_])) ++pos_;
      if (pos_ < n_ && d_[pos_] == '#') {
        while (pos_ < n_ && d_[pos_] != '\n' && d_[pos_] != '\r') ++pos_;
        continue;
      }
      break;
    }
    if (pos_ >= n_ || d_[pos_] < '0' || d_[pos_] > '9')
      bad(std::string("expected a number for ") + what + " at byte " + std::to_string(pos_));
    uint64_t v = 0;
    while (pos_ < n_ && d_[pos_] >= '0' && d_[pos_] <= '9') {
      v = v * 10 + uint64_t(d_[pos_++] - '0');
      if (v > 0xFFFFFFFFu) bad(std::string(what) + " is too large");
    }
    return uint32_t(v);
  }
  // One ASCII bit of a P1 raster: digits may be run together.
  uint32_t bit() {
    while (pos_ < n_ && (is_space(d_[pos_]) || d_[pos_] == '#')) {
      if (d_[pos_] == '#')
        while (pos_ < n_ && d_[pos_] != '\n' && d_[pos_] != '\r') ++pos_;
      else
        ++pos_;
    }
    if (pos_ >= n_ || (d_[pos_] != '0' && d_[pos_] != '1'))
      bad("expected a 0 or 1 pixel at byte " + std::to_string(pos_));
    return uint32_t(d_[pos_++] - '0');
  }
  // The single whitespace byte that ends a binary header.
  void end_header() {
    if (pos_ >= n_ || !is_space(d_[pos_])) bad("the header does not end in whitespace");
    ++pos_;
  }
  const uint8_t* need(size_t bytes) {
    if (bytes > n_ - pos_)
      bad("the raster is truncated: needs " + std::to_string(bytes) + " bytes, " +
          std::to_string(n_ - pos_) + " left");
    return d_ + pos_;
  }

 private:
  const uint8_t* d_;
  size_t n_, pos_ = 2;  // after the magic
};

}  // namespace

RgbImage decode_pnm(const uint8_t* d, size_t n) {
  const int kind = d[1] - '0';
  Reader r(d, n);
  const int64_t w = r.number("width"), h = r.number("height");
  const bool bitmap = kind == 1 || kind == 4;
  const uint32_t maxval = bitmap ? 1 : r.number("maxval");
  if (maxval == 0 || maxval > 65535) bad("maxval " + std::to_string(maxval) + " is not in 1..65535");
  check_dimensions("PNM", w, h);
  const int channels = (kind == 3 || kind == 6) ? 3 : 1;
  const size_t samples = size_t(w * h) * size_t(channels);
  // Each sample takes at least one byte (a bit for P4): reject a header that
  // promises more than the stream holds before allocating for it.
  const size_t min_bytes = kind == 4 ? size_t(w + 7) / 8 * size_t(h)
                                     : samples * (kind >= 5 && maxval > 255 ? 2 : 1);
  if (min_bytes > n)
    bad("the raster is truncated: " + std::to_string(w) + "x" + std::to_string(h) + " needs at least " +
        std::to_string(min_bytes) + " bytes, the stream has " + std::to_string(n));
  std::vector<uint32_t> v(samples);
  if (kind <= 3) {
    for (size_t i = 0; i < samples; ++i) {
      v[i] = kind == 1 ? r.bit() : r.number("a sample");
      if (v[i] > maxval) bad("sample " + std::to_string(v[i]) + " exceeds maxval " + std::to_string(maxval));
    }
  } else if (kind == 4) {
    r.end_header();
    const size_t row = size_t(w + 7) / 8;
    const uint8_t* p = r.need(row * size_t(h));
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        v[size_t(y * w + x)] = (p[size_t(y) * row + size_t(x / 8)] >> (7 - x % 8)) & 1;
  } else {
    r.end_header();
    const size_t bps = maxval > 255 ? 2 : 1;  // big-endian 16-bit samples
    const uint8_t* p = r.need(samples * bps);
    for (size_t i = 0; i < samples; ++i) {
      v[i] = bps == 1 ? p[i] : (uint32_t(p[2 * i]) << 8 | p[2 * i + 1]);
      if (v[i] > maxval) bad("sample " + std::to_string(v[i]) + " exceeds maxval " + std::to_string(maxval));
    }
  }
  RgbImage img;
  img.width = w;
  img.height = h;
  img.rgb.resize(size_t(w * h) * 3);
  for (size_t p = 0; p < size_t(w * h); ++p)
    for (int c = 0; c < 3; ++c) {
      uint32_t s = v[p * size_t(channels) + size_t(channels == 3 ? c : 0)];
      // In a bitmap 1 is black.
      img.rgb[p * 3 + size_t(c)] =
          bitmap ? (s ? 0 : 255) : uint8_t((uint64_t(s) * 255 + maxval / 2) / maxval);
    }
  return img;
}

}  // namespace tessera::cpu::image
