// Where a tensor's external data lives, checked so that a model can only
// reach files inside its own folder (see ExternalDataSecurity.md).
#pragma once
#include <string>

namespace tessera::onnx {

// Resolves `location` against `base_dir` and returns the canonical path of the
// data file. Refuses (kInvalidGraph, naming the tensor and location) an empty
// base_dir, an absolute location, a ".." component, and any path whose
// canonical form leaves base_dir (e.g. through a symlink). A file that does not
// exist is kNoSuchFile.
std::string resolve_external_location(const std::string& base_dir, const std::string& location,
                                      const std::string& tensor_name);

}  // namespace tessera::onnx
