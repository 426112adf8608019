// JPEG decoder over libjpeg(-turbo). libjpeg's default error handler calls
// exit(); ours records the message and longjmps back to decode_raw(), which
// holds no C++ objects, and the C++ caller turns it into an Error. Defaults
// kept on purpose: JDCT_ISLOW and "fancy" chroma upsampling (the spec's
// method), which is what the reference decoder uses.
#include <csetjmp>
#include <cstdio>

#include <jpeglib.h>
// After jpeglib.h: the message codes (JWRN_JPEG_EOF).
#include <jerror.h>

#include "core/error.hpp"
#include "providers/cpu/image/image_codecs.hpp"

namespace tessera::cpu::image {

namespace {

struct ErrorManager {
  jpeg_error_mgr base;  // first member: libjpeg hands us a pointer to it
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

// Warnings are dropped, except a premature end of data: a truncated stream
// would otherwise decode "successfully" with grey filler rows.
void on_message(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) on_error(cinfo);
}

// Decodes into `out` (sized here, owned by the caller). Returns false with
// err->message set on failure. Only plain C state lives in this frame.
bool decode_raw(const uint8_t* data, size_t size, ErrorManager* err, RgbImage* out) {
  jpeg_decompress_struct cinfo;
  cinfo.err = jpeg_std_error(&err->base);
  err->base.error_exit = on_error;
  err->base.emit_message = on_message;
  err->message[0] = 0;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    std::snprintf(err->message, sizeof(err->message), "CMYK/YCCK JPEG images are not supported");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  cinfo.out_color_space = JCS_RGB;
  jpeg_calc_output_dimensions(&cinfo);
  const int64_t w = cinfo.output_width, h = cinfo.output_height;
  if (w <= 0 || h <= 0 || w > kMaxPixels / h) {
    std::snprintf(err->message, sizeof(err->message), "unsupported dimensions %lldx%lld",
                  static_cast<long long>(w), static_cast<long long>(h));
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  // Resizing may throw bad_alloc: do it before libjpeg holds more state
  // than jpeg_destroy_decompress releases.
  try {
    out->rgb.resize(size_t(w * h * 3));
  } catch (...) {
    std::snprintf(err->message, sizeof(err->message), "out of memory");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  out->width = w;
  out->height = h;
  jpeg_start_decompress(&cinfo);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out->rgb.data() + size_t(cinfo.output_scanline) * size_t(w) * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

}  // namespace

RgbImage decode_jpeg(const uint8_t* data, size_t size) {
  ErrorManager err;
  RgbImage img;
  if (!decode_raw(data, size, &err, &img))
    fail(ErrorCode::kInvalidArgument, "JPEG: ", err.message[0] ? err.message : "decoding failed");
  return img;
}

}  // namespace tessera::cpu::image
