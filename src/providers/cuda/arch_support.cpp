#include "providers/cuda/arch_support.hpp"

#include <cctype>

#include "core/error.hpp"

namespace tessera::cuda {

std::vector<BuiltArch> parse_built_archs(const std::string& list) {
  std::vector<BuiltArch> out;
  size_t i = 0;
  while (i < list.size()) {
    const size_t end = list.find_first_of(";,", i);
    const std::string entry =
        list.substr(i, end == std::string::npos ? std::string::npos : end - i);
    i = end == std::string::npos ? list.size() : end + 1;
    if (entry.empty()) continue;
    size_t k = 0;
    BuiltArch a;
    while (k < entry.size() && std::isdigit(static_cast<unsigned char>(entry[k])))
      a.cc = a.cc * 10 + (entry[k++] - '0');
    // "90a" runs on sm_90 alone; "100f" (family) on its major version, as
    // machine code always does.
    if (k < entry.size() && (entry[k] == 'a' || entry[k] == 'f')) a.specific = entry[k++] == 'a';
    const std::string kind = entry.substr(k);
    if (k == 0 || a.cc < 10 || (kind != "" && kind != "-real" && kind != "-virtual"))
      fail(ErrorCode::kInvalidArgument, "CUDA architecture list '", list, "': cannot read entry '",
           entry, "' (expected e.g. 90, 90-real, 120-virtual)");
    a.sass = kind != "-virtual";
    a.ptx = kind != "-real";
    out.push_back(a);
  }
  return out;
}

std::string kernels_for_device(const std::vector<BuiltArch>& built, int cc) {
  // The closest machine code first: it is what the driver picks.
  const BuiltArch* best_sass = nullptr;
  const BuiltArch* best_ptx = nullptr;
  for (const BuiltArch& a : built) {
    const bool same_family = a.cc / 10 == cc / 10 && a.cc <= cc;
    if (a.sass && (a.specific ? a.cc == cc : same_family) && (!best_sass || a.cc > best_sass->cc))
      best_sass = &a;
    if (a.ptx && (a.specific ? a.cc == cc : a.cc <= cc) && (!best_ptx || a.cc > best_ptx->cc))
      best_ptx = &a;
  }
  if (best_sass)
    return str_cat("sm_", best_sass->cc, best_sass->specific ? "a" : "", " machine code");
  if (best_ptx)
    return str_cat("PTX compute_", best_ptx->cc, ", compiled by the driver at first use");
  return "";
}

std::string describe_built_archs(const std::vector<BuiltArch>& built) {
  std::string out;
  const auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  for (const BuiltArch& a : built)
    if (a.sass) add(str_cat("sm_", a.cc, a.specific ? "a" : ""));
  for (const BuiltArch& a : built)
    if (a.ptx) add(str_cat("PTX compute_", a.cc, a.specific ? "a" : ""));
  return out;
}

}  // namespace tessera::cuda
