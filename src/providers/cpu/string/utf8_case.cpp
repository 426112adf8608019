#include "providers/cpu/string/utf8_case.hpp"

#include <cstdint>

namespace tessera::cpu::text {

namespace {

// Decodes one code point at s[i]; returns its length in bytes, or 0 when the
// bytes there are not valid UTF-8 (the caller then copies one byte as is).
size_t decode(std::string_view s, size_t i, uint32_t& cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  cp = len == 1 ? c : len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3fu);
  }
  return len;
}

void encode(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xc0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += char(0xe0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  } else {
    out += char(0xf0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3f));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  }
}

// In Latin Extended-A, upper/lower pairs sit on adjacent code points; which
// of the pair is upper depends on the block's parity.
bool ext_a_pair(uint32_t cp, bool& is_upper) {
  if ((cp >= 0x100 && cp <= 0x12f) || (cp >= 0x132 && cp <= 0x137) ||
      (cp >= 0x14a && cp <= 0x177)) {
    is_upper = (cp % 2) == 0;
    return true;
  }
  if ((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17e)) {
    is_upper = (cp % 2) == 1;
    return true;
  }
  return false;
}

uint32_t lower(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp < 0x80) return cp;
  if (cp >= 0xc0 && cp <= 0xde && cp != 0xd7) return cp + 0x20;
  bool up;
  if (ext_a_pair(cp, up)) return up ? cp + 1 : cp;
  if (cp == 0x178) return 0xff;
  if (cp >= 0x391 && cp <= 0x3a9 && cp != 0x3a2) return cp + 0x20;
  if (cp >= 0x410 && cp <= 0x42f) return cp + 0x20;
  if (cp >= 0x400 && cp <= 0x40f) return cp + 0x50;
  return cp;
}

uint32_t upper(uint32_t cp) {
  if (cp >= 'a' && cp <= 'z') return cp - 32;
  if (cp < 0x80) return cp;
  if (cp >= 0xe0 && cp <= 0xfe && cp != 0xf7) return cp - 0x20;
  if (cp == 0xff) return 0x178;
  bool up;
  if (ext_a_pair(cp, up)) return up ? cp : cp - 1;
  if (cp >= 0x3b1 && cp <= 0x3c9 && cp != 0x3c2) return cp - 0x20;
  if (cp == 0x3c2) return 0x3a3;  // final sigma
  if (cp >= 0x430 && cp <= 0x44f) return cp - 0x20;
  if (cp >= 0x450 && cp <= 0x45f) return cp - 0x50;
  return cp;
}

template <typename Map>
std::string map_text(std::string_view s, Map m) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t len = decode(s, i, cp);
    if (len == 0) {
      out += s[i++];
      continue;
    }
    encode(m(cp), out);
    i += len;
  }
  return out;
}

}  // namespace

std::string utf8_to_lower(std::string_view s) { return map_text(s, lower); }
std::string utf8_to_upper(std::string_view s) { return map_text(s, upper); }

}  // namespace tessera::cpu::text
