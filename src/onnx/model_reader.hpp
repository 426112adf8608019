// Reading ONNX protobuf bytes into the IR. Every length, tag and count is
// checked against the bytes actually present; malformed input throws
// tessera::Error (kInvalidProtobuf / kInvalidGraph / kNoSuchFile) naming the
// file, the message path (e.g. graph.node[3].attribute[1]) and the problem.
#pragma once
#include <string>

#include "core/value.hpp"
#include "ir/graph.hpp"
#include "onnx/external_data.hpp"

namespace tessera::onnx {

// Loads a model file; external data is resolved relative to its folder (or
// that of the file's real path, when the model is a symlink) and
// memory-mapped where possible; what `supplied` holds is used instead.
ir::Model load_model(const std::string& path, const SuppliedExternalData& supplied = {});
// Parses model bytes. `base_dir` is where external data lives ("" forbids
// external data files, not data supplied in memory); `source_name` names the
// bytes in error messages.
ir::Model parse_model(const void* data, size_t size, const std::string& base_dir = "",
                      const std::string& source_name = "<model bytes>",
                      const SuppliedExternalData& supplied = {});

// A serialized TensorProto (e.g. test_data_set_0/input_0.pb).
Tensor load_tensor(const std::string& path);
Tensor parse_tensor(const void* data, size_t size, const std::string& source_name = "<tensor>");

// A backend-test data file holding a value of the given type: TensorProto for
// tensors, SequenceProto for sequences, OptionalProto for optionals, MapProto for maps.
Value load_value(const std::string& path, const ir::TypeInfo& type);
Value parse_value(const void* data, size_t size, const ir::TypeInfo& type,
                  const std::string& source_name = "<value>", const std::string& base_dir = "");

}  // namespace tessera::onnx
