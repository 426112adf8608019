// Where a tensor's external data lives, checked so that a model can only
// reach files inside its own folder (see ExternalDataSecurity.md), and the
// data an application hands in instead of files.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "core/tensor.hpp"

namespace tessera::onnx {

// What the application supplies to the model reader: data for a model's
// external data (onnxruntime's add_external_initializers and
// add_external_initializers_from_files_in_memory), and sizes for free input
// dimensions by denotation.
struct SuppliedExternalData {
  // Main-graph initializers the application hands in, by name: the model's
  // data for them is never read (their files need not exist), and each must
  // have the model's element type and shape.
  const std::map<std::string, Tensor>* initializers = nullptr;
  // The contents of external data files, by the location the model names them
  // with; read in place of the file system.
  const std::map<std::string, std::shared_ptr<const std::string>>* files = nullptr;
  // Sizes for the main graph inputs' free dimensions by their denotation
  // (TensorShapeProto.Dimension.denotation, such as "DATA_BATCH"; onnxruntime's
  // add_free_dimension_override_by_denotation). The reader fixes them as it
  // reads the inputs, before any pass sees the shapes; a fixed dimension
  // keeps its size.
  const std::map<std::string, int64_t>* free_dimension_overrides_by_denotation = nullptr;
};

// Resolves `location` against `base_dir` and returns the canonical path of the
// data file. Refuses (kInvalidGraph, naming the tensor and location) an empty
// base_dir, an absolute location, a ".." component, and any path whose
// canonical form is neither under base_dir nor under `real_model_dir` (the
// folder of the model file's real path, "" for none): a model and its data
// symlinked into one folder from a blob store load, a symlink out of both
// folders does not ("External data path validation failed ..."). A file that
// does not exist is kNoSuchFile.
std::string resolve_external_location(const std::string& base_dir, const std::string& location,
                                      const std::string& tensor_name,
                                      const std::string& real_model_dir = "");

// The folder holding the real file `path` names (symlinks resolved), or ""
// when it does not resolve.
std::string real_parent_dir(const std::string& path);

}  // namespace tessera::onnx
