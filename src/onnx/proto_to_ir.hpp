// The message-level readers: ModelProto, GraphProto, NodeProto, AttributeProto,
// TypeProto, FunctionProto → ir. Each takes the bytes of one message; the
// caller has pushed the message's path segment.
#pragma once
#include <string>
#include <string_view>

#include "ir/graph.hpp"
#include "onnx/wire_reader.hpp"

namespace tessera::onnx {

ir::Model read_model_proto(ParseContext& ctx, std::string_view bytes, const std::string& base_dir);
ir::Graph read_graph_proto(ParseContext& ctx, std::string_view bytes, const std::string& base_dir);
ir::TypeInfo read_type_proto(ParseContext& ctx, std::string_view bytes);

}  // namespace tessera::onnx
