// JPEG 2000 decoder over libopenjp2: JP2 files and raw J2K codestreams, read
// from memory through stream callbacks. openjpeg reports errors through a
// per-codec callback and return values (it never exits or jumps). Samples
// of other precisions are shifted to 8 bits, signed ones offset first.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include <openjpeg.h>

#include "core/error.hpp"
#include "providers/cpu/image/image_codecs.hpp"

namespace tessera::cpu::image {

namespace {

struct Source {
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
  std::string message;
};

OPJ_SIZE_T read_fn(void* buf, OPJ_SIZE_T n, void* user) {
  auto* s = static_cast<Source*>(user);
  if (s->pos >= s->size) return OPJ_SIZE_T(-1);
  const size_t k = std::min<size_t>(n, s->size - s->pos);
  std::memcpy(buf, s->data + s->pos, k);
  s->pos += k;
  return k;
}
OPJ_OFF_T skip_fn(OPJ_OFF_T n, void* user) {
  auto* s = static_cast<Source*>(user);
  if (n < 0) {
    const size_t back = std::min<size_t>(size_t(-n), s->pos);
    s->pos -= back;
    return -OPJ_OFF_T(back);
  }
  const size_t k = std::min<size_t>(size_t(n), s->size - std::min(s->pos, s->size));
  s->pos += k;
  return OPJ_OFF_T(k);
}
OPJ_BOOL seek_fn(OPJ_OFF_T off, void* user) {
  auto* s = static_cast<Source*>(user);
  if (off < 0 || size_t(off) > s->size) return OPJ_FALSE;
  s->pos = size_t(off);
  return OPJ_TRUE;
}
void on_error(const char* msg, void* user) {
  auto* s = static_cast<Source*>(user);
  if (s->message.empty()) {
    s->message = msg;
    while (!s->message.empty() && s->message.back() == '\n') s->message.pop_back();
  }
}
void ignore(const char*, void*) {}

[[noreturn]] void bad(const Source& s, const std::string& what) {
  fail(ErrorCode::kInvalidArgument, "JPEG 2000: ", what, s.message.empty() ? "" : ": ", s.message);
}

uint8_t to_8bit(OPJ_INT32 v, const opj_image_comp_t& c) {
  int64_t x = int64_t(v) + (c.sgnd ? (int64_t(1) << (c.prec - 1)) : 0);
  x = c.prec >= 8 ? x >> (c.prec - 8) : x << (8 - c.prec);
  return uint8_t(std::clamp<int64_t>(x, 0, 255));
}

}  // namespace

RgbImage decode_jpeg2000(const uint8_t* data, size_t size) {
  Source src{data, size, 0, {}};
  const bool jp2 = size >= 4 && std::memcmp(data, "\xFF\x4F\xFF\x51", 4) != 0;
  std::unique_ptr<opj_stream_t, void (*)(opj_stream_t*)> stream(opj_stream_create(1 << 16, OPJ_TRUE),
                                                               opj_stream_destroy);
  std::unique_ptr<opj_codec_t, void (*)(opj_codec_t*)> codec(
      opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K), opj_destroy_codec);
  if (!stream || !codec) fail(ErrorCode::kFail, "JPEG 2000: cannot create the decoder");
  opj_stream_set_read_function(stream.get(), read_fn);
  opj_stream_set_skip_function(stream.get(), skip_fn);
  opj_stream_set_seek_function(stream.get(), seek_fn);
  opj_stream_set_user_data(stream.get(), &src, nullptr);
  opj_stream_set_user_data_length(stream.get(), size);
  opj_set_error_handler(codec.get(), on_error, &src);
  opj_set_warning_handler(codec.get(), ignore, nullptr);
  opj_set_info_handler(codec.get(), ignore, nullptr);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  if (!opj_setup_decoder(codec.get(), &params)) bad(src, "cannot set up the decoder");
  // Strict: a truncated codestream is an error, not a silently partial image.
  opj_decoder_set_strict_mode(codec.get(), OPJ_TRUE);
  opj_image_t* raw = nullptr;
  if (!opj_read_header(stream.get(), codec.get(), &raw)) {
    if (raw) opj_image_destroy(raw);
    bad(src, "cannot read the header");
  }
  std::unique_ptr<opj_image_t, void (*)(opj_image_t*)> image(raw, opj_image_destroy);
  if (image->numcomps == 0) bad(src, "the image has no components");
  const opj_image_comp_t& c0 = image->comps[0];
  check_dimensions("JPEG 2000", c0.w, c0.h);
  if (!opj_decode(codec.get(), stream.get(), image.get()) ||
      !opj_end_decompress(codec.get(), stream.get()))
    bad(src, "cannot decode the image data");
  const OPJ_COLOR_SPACE cs = image->color_space;
  if (cs == OPJ_CLRSPC_SYCC || cs == OPJ_CLRSPC_EYCC || cs == OPJ_CLRSPC_CMYK)
    bad(src, "colour space " + std::to_string(int(cs)) + " (YCC/CMYK) is not supported");
  // Grey (1 or 2 components: grey, alpha) or colour (3+, first three RGB).
  const uint32_t used = image->numcomps >= 3 ? 3 : 1;
  for (uint32_t i = 0; i < used; ++i) {
    const opj_image_comp_t& c = image->comps[i];
    if (c.w != c0.w || c.h != c0.h || !c.data)
      bad(src, "subsampled or missing components are not supported");
    if (c.prec < 1 || c.prec > 31) bad(src, "component precision " + std::to_string(c.prec));
  }
  RgbImage img;
  img.width = c0.w;
  img.height = c0.h;
  const size_t n = size_t(c0.w) * c0.h;
  img.rgb.resize(n * 3);
  for (size_t p = 0; p < n; ++p)
    for (uint32_t ch = 0; ch < 3; ++ch) {
      const opj_image_comp_t& c = image->comps[used == 3 ? ch : 0];
      img.rgb[p * 3 + ch] = to_8bit(c.data[p], c);
    }
  return img;
}

}  // namespace tessera::cpu::image
