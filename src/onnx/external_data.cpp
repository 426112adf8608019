#include "onnx/external_data.hpp"

#include <climits>
#include <cstdlib>
#include <memory>

#include "core/error.hpp"

namespace tessera::onnx {

namespace {

[[noreturn]] void refuse(const std::string& tensor_name, const std::string& location,
                         const std::string& why) {
  fail(ErrorCode::kInvalidGraph, "tensor '", tensor_name, "': external data location '", location,
       "' refused: ", why);
}

// realpath(3), or "" when the path does not resolve.
std::string canonical(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> p(::realpath(path.c_str(), nullptr), &std::free);
  return p ? std::string(p.get()) : std::string();
}

// Whether the canonical `path` lies inside the canonical folder `dir`.
bool is_under(const std::string& path, const std::string& dir) {
  std::string prefix = dir == "/" ? dir : dir + "/";
  return path.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::string real_parent_dir(const std::string& path) {
  std::string real = canonical(path);
  size_t slash = real.find_last_of('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? std::string("/") : real.substr(0, slash);
}

std::string resolve_external_location(const std::string& base_dir, const std::string& location,
                                      const std::string& tensor_name,
                                      const std::string& real_model_dir) {
  if (base_dir.empty())
    refuse(tensor_name, location,
           "the model was parsed from memory without a base directory, so external data "
           "cannot be located");
  if (location.empty()) refuse(tensor_name, location, "the location is empty");
  if (location.find('\0') != std::string::npos)
    refuse(tensor_name, location, "the location contains a NUL byte");
  if (location.front() == '/' || location.front() == '\\')
    refuse(tensor_name, location, "absolute paths are not allowed");
  // Split on both separators so "a\..\b" is caught too.
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find_first_of("/\\", start);
    if (end == std::string::npos) end = location.size();
    if (location.compare(start, end - start, "..") == 0 && end - start == 2)
      refuse(tensor_name, location, "'..' path components are not allowed");
    start = end + 1;
  }

  std::string base = canonical(base_dir);
  if (base.empty())
    fail(ErrorCode::kNoSuchFile, "tensor '", tensor_name, "': model directory '", base_dir,
         "' does not exist");
  std::string joined = base + "/" + location;
  std::string resolved = canonical(joined);
  if (resolved.empty())
    fail(ErrorCode::kNoSuchFile, "tensor '", tensor_name, "': external data file '", joined,
         "' (location '", location, "') does not exist");
  if (is_under(resolved, base)) return resolved;
  // A model symlinked from a store (Hugging Face's cache: snapshots/<v>/ of
  // links into blobs/) has its data next to the real file, not the link.
  std::string real_dir = real_model_dir.empty() ? std::string() : canonical(real_model_dir);
  if (!real_dir.empty() && is_under(resolved, real_dir)) return resolved;
  fail(ErrorCode::kInvalidGraph, "External data path validation failed for tensor '", tensor_name,
       "': external data location '", location, "' refused: it resolves to '", resolved,
       "', outside the model directory '", base, "'",
       real_dir.empty() || real_dir == base
           ? std::string()
           : str_cat(" and the model file's real directory '", real_dir, "'"),
       " (through a symbolic link?)");
}

}  // namespace tessera::onnx
