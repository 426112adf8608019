// Writing the IR back as ONNX protobuf bytes (optimized models, test models).
#pragma once
#include <string>

#include "core/value.hpp"
#include "ir/graph.hpp"

namespace tessera::onnx {

std::string serialize_model(const ir::Model& model);
void save_model(const ir::Model& model, const std::string& path);
std::string serialize_tensor(const Tensor& tensor, const std::string& name = "");
// Writes a value as the backend-test layout expects (TensorProto / SequenceProto / OptionalProto).
std::string serialize_value(const Value& value, const std::string& name = "");

}  // namespace tessera::onnx
