// String kernels: the per-file registration hooks register_string.cpp calls.
#pragma once
#include <string>

#include "ep/kernel_registry.hpp"

namespace tessera::cpu::text {

void register_string_basic(ep::KernelRegistry& r);  // StringNormalizer, StringSplit, StringConcat
void register_regex(ep::KernelRegistry& r);         // RegexFullMatch

// Rewrites the RE2 constructs std::regex (ECMAScript) lacks into equivalents:
// named groups (?P<n>...) and (?<n>...) become plain groups, \A and \z become
// ^ and $, \Q...\E is escaped literally, and a leading (?i) is reported
// through `icase`. Throws on RE2 features that have no equivalent here
// (Unicode classes \p, \C, inline flags other than a leading (?i)).
std::string re2_to_ecmascript(const std::string& pattern, bool& icase);

}  // namespace tessera::cpu::text
