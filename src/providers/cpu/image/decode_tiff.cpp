// TIFF decoder over libtiff, reading from memory through client callbacks.
// libtiff reports errors by return value; per-handle handlers (not the
// process-wide ones, which other code may own) keep the first message and
// silence stderr. The first directory (page) is decoded through libtiff's
// RGBA interface, which covers every photometric/sample layout it knows.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>

#include <tiffio.h>

#include "core/error.hpp"
#include "providers/cpu/image/image_codecs.hpp"

namespace tessera::cpu::image {

namespace {

struct Source {
  const uint8_t* data;
  size_t size;
  toff_t pos = 0;
  std::string message;
};

tmsize_t read_proc(thandle_t h, void* buf, tmsize_t n) {
  auto* s = static_cast<Source*>(h);
  if (n < 0 || s->pos >= s->size) return 0;
  const size_t k = std::min<size_t>(size_t(n), s->size - size_t(s->pos));
  std::memcpy(buf, s->data + s->pos, k);
  s->pos += k;
  return tmsize_t(k);
}
tmsize_t write_proc(thandle_t, void*, tmsize_t) { return 0; }
toff_t seek_proc(thandle_t h, toff_t off, int whence) {
  auto* s = static_cast<Source*>(h);
  uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? s->pos : s->size;
  if (off > UINT64_MAX - base) return toff_t(-1);
  s->pos = base + off;
  return s->pos;
}
int close_proc(thandle_t) { return 0; }
toff_t size_proc(thandle_t h) { return static_cast<Source*>(h)->size; }
int map_proc(thandle_t, void**, toff_t*) { return 0; }
void unmap_proc(thandle_t, void*, toff_t) {}

int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto* s = static_cast<Source*>(user);
  if (s->message.empty()) {
    char buf[512];
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    s->message = module ? std::string(module) + ": " + buf : std::string(buf);
  }
  return 1;  // handled: do not call the global handler
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

[[noreturn]] void bad(const Source& s, const char* what) {
  fail(ErrorCode::kInvalidArgument, "TIFF: ", what, s.message.empty() ? "" : ": ", s.message);
}

}  // namespace

RgbImage decode_tiff(const uint8_t* data, size_t size) {
  Source src{data, size, 0, {}};
  std::unique_ptr<TIFFOpenOptions, void (*)(TIFFOpenOptions*)> opts(TIFFOpenOptionsAlloc(),
                                                                     TIFFOpenOptionsFree);
  if (!opts) fail(ErrorCode::kFail, "TIFF: cannot allocate open options");
  TIFFOpenOptionsSetErrorHandlerExtR(opts.get(), on_error, &src);
  TIFFOpenOptionsSetWarningHandlerExtR(opts.get(), on_warning, &src);
  // Bounds what a hostile header can make libtiff allocate in one go.
  TIFFOpenOptionsSetMaxSingleMemAlloc(opts.get(), tmsize_t(kMaxPixels) * 4);
  std::unique_ptr<TIFF, void (*)(TIFF*)> tif(
      TIFFClientOpenExt("memory", "rm", &src, read_proc, write_proc, seek_proc, close_proc,
                        size_proc, map_proc, unmap_proc, opts.get()),
      TIFFClose);
  if (!tif) bad(src, "cannot open the stream");
  uint32_t w = 0, h = 0;
  if (!TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &w) ||
      !TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &h))
    bad(src, "the image has no width/length tags");
  check_dimensions("TIFF", w, h);
  char why[1024] = {0};
  if (!TIFFRGBAImageOK(tif.get(), why)) {
    if (src.message.empty()) src.message = why;
    bad(src, "unsupported image layout");
  }
  std::vector<uint32_t> raster(size_t(w) * h);
  if (!TIFFReadRGBAImageOriented(tif.get(), w, h, raster.data(), ORIENTATION_TOPLEFT, 1))
    bad(src, "cannot read the image");
  if (!src.message.empty()) bad(src, "the image data is corrupt");
  RgbImage img;
  img.width = w;
  img.height = h;
  img.rgb.resize(size_t(w) * h * 3);
  for (size_t i = 0; i < raster.size(); ++i) {
    img.rgb[3 * i] = uint8_t(TIFFGetR(raster[i]));
    img.rgb[3 * i + 1] = uint8_t(TIFFGetG(raster[i]));
    img.rgb[3 * i + 2] = uint8_t(TIFFGetB(raster[i]));
  }
  return img;
}

}  // namespace tessera::cpu::image
