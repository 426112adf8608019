// Writing the IR back as ONNX protobuf bytes (optimized models, test models).
#pragma once
#include <string>

#include "core/value.hpp"
#include "ir/graph.hpp"

namespace tessera::onnx {

// Where a saved model's large initializers go instead of the model file
// (onnxruntime's session.optimized_model_external_initializers_* entries):
// numeric main-graph initializers of at least min_size_in_bytes are written
// to `file_name`, a path relative to the model's folder, and the model names
// them by location, offset and length. An empty file_name keeps all inline.
struct ExternalInitializers {
  std::string file_name;
  size_t min_size_in_bytes = 1024;
};

std::string serialize_model(const ir::Model& model);
void save_model(const ir::Model& model, const std::string& path,
                const ExternalInitializers& external = {});
std::string serialize_tensor(const Tensor& tensor, const std::string& name = "");
// Writes a value as the backend-test layout expects (TensorProto / SequenceProto / OptionalProto).
std::string serialize_value(const Value& value, const std::string& name = "");

}  // namespace tessera::onnx
