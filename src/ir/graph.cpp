#include "ir/graph.hpp"

#include "core/error.hpp"

namespace tessera::ir {

const char* attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::kFloat: return "float";
    case AttrType::kInt: return "int";
    case AttrType::kString: return "string";
    case AttrType::kTensor: return "tensor";
    case AttrType::kGraph: return "graph";
    case AttrType::kFloats: return "floats";
    case AttrType::kInts: return "ints";
    case AttrType::kStrings: return "strings";
    case AttrType::kTensors: return "tensors";
    case AttrType::kGraphs: return "graphs";
    case AttrType::kSparseTensor: return "sparse_tensor";
    case AttrType::kSparseTensors: return "sparse_tensors";
    case AttrType::kTypeProto: return "type_proto";
    case AttrType::kTypeProtos: return "type_protos";
    case AttrType::kUndefined: break;
  }
  return "undefined";
}

const Attribute* Node::attr(std::string_view attr_name) const {
  for (const auto& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

std::string Node::describe() const {
  std::string op = domain.empty() ? op_type : str_cat(domain, ".", op_type);
  return str_cat(op, " node '", name, "'");
}

const ValueInfo* Graph::find_input(std::string_view n) const {
  for (const auto& v : inputs)
    if (v.name == n) return &v;
  return nullptr;
}

const ValueInfo* Graph::find_value_info(std::string_view n) const {
  for (const auto* list : {&inputs, &outputs, &value_info})
    for (const auto& v : *list)
      if (v.name == n) return &v;
  return nullptr;
}

int64_t Model::opset(std::string_view d) const {
  for (const auto& o : opset_imports) {
    if (o.domain == d || (is_onnx_domain(o.domain) && is_onnx_domain(d))) return o.version;
  }
  return 0;
}

}  // namespace tessera::ir
