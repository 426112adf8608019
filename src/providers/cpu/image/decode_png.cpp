// PNG decoder over libpng. Errors longjmp back to decode_raw() (which holds
// no C++ objects) with the message saved; warnings are dropped. Transforms
// reduce every PNG to 8-bit RGB the way the reference does: palette and grey
// expanded, 16-bit samples keep their high byte, alpha dropped (no gamma or
// background compositing).
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <png.h>

#include "core/error.hpp"
#include "providers/cpu/image/image_codecs.hpp"

namespace tessera::cpu::image {

namespace {

struct State {
  const uint8_t* data;
  size_t size, pos;
  char message[256];
  RgbImage* out;
  std::vector<png_bytep>* rows;
};

void on_error(png_structp png, png_const_charp msg) {
  auto* s = static_cast<State*>(png_get_error_ptr(png));
  std::snprintf(s->message, sizeof(s->message), "%s", msg);
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep dst, png_size_t n) {
  auto* s = static_cast<State*>(png_get_io_ptr(png));
  if (n > s->size - s->pos) png_error(png, "the stream is truncated");
  std::memcpy(dst, s->data + s->pos, n);
  s->pos += n;
}

bool decode_raw(State* s) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, on_error, on_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, s, read_bytes);
  png_read_info(png, info);
  const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  if (w == 0 || h == 0 || int64_t(w) > kMaxPixels / int64_t(h))
    png_error(png, "unsupported image dimensions");
  const int color = png_get_color_type(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  png_set_expand_gray_1_2_4_to_8(png);
  png_set_strip_16(png);
  png_set_strip_alpha(png);
  png_set_packing(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != size_t(w) * 3) png_error(png, "unexpected row layout");
  // Allocation failures become a libpng error, not an exception through C frames.
  // (png_error is raised outside the handler: never longjmp out of a catch.)
  bool allocated = true;
  try {
    s->out->rgb.resize(size_t(w) * size_t(h) * 3);
    s->rows->resize(h);
  } catch (...) {
    allocated = false;
  }
  if (!allocated) png_error(png, "out of memory");
  for (png_uint_32 y = 0; y < h; ++y) (*s->rows)[y] = s->out->rgb.data() + size_t(y) * w * 3;
  png_read_image(png, s->rows->data());
  png_read_end(png, nullptr);
  s->out->width = w;
  s->out->height = h;
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

RgbImage decode_png(const uint8_t* data, size_t size) {
  RgbImage img;
  std::vector<png_bytep> rows;
  State s{data, size, 0, {0}, &img, &rows};
  if (!decode_raw(&s))
    fail(ErrorCode::kInvalidArgument, "PNG: ", s.message[0] ? s.message : "decoding failed");
  return img;
}

}  // namespace tessera::cpu::image
