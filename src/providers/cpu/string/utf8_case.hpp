// Locale-independent case mapping of UTF-8 text: ASCII, Latin-1, Latin
// Extended-A, Greek and Cyrillic, which covers the common cases without
// depending on the locales installed on the machine. Other code points and
// invalid bytes pass through unchanged.
#pragma once
#include <string>
#include <string_view>

namespace tessera::cpu::text {

std::string utf8_to_lower(std::string_view s);
std::string utf8_to_upper(std::string_view s);

}  // namespace tessera::cpu::text
