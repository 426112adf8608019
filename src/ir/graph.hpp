// The in-memory model: a Graph of Nodes over named values, as ONNX defines it.
// Plain data with helpers; passes and the partitioner edit it directly.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/sparse_tensor.hpp"
#include "core/tensor.hpp"
#include "ir/type_info.hpp"

namespace tessera::ir {

struct Graph;

enum class AttrType {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};
const char* attr_type_name(AttrType t);

struct Attribute {
  std::string name;
  AttrType type = AttrType::kUndefined;
  std::string ref_attr_name;  // inside a function body: refers to the caller's attribute
  std::string doc_string;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;  // also holds a sparse tensor, densified at load
  std::shared_ptr<Graph> g;
  TypeInfo tp;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  std::vector<TypeInfo> type_protos;
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" is the default ONNX domain (ai.onnx)
  std::string overload;
  std::vector<std::string> inputs;  // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::vector<Attribute> attributes;
  std::string doc_string;

  const Attribute* attr(std::string_view attr_name) const;
  // "Conv (node 'conv1')" style description for error messages.
  std::string describe() const;
};

struct ValueInfo {
  std::string name;
  TypeInfo type;
  std::string doc_string;
};

struct Graph {
  std::string name;
  std::string doc_string;
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;
  std::map<std::string, Tensor> initializers;
  // Initializers read as SparseTensorProto and kept sparse because every
  // reader takes them sparse (SparseToDenseMatMul's A); a name is in one of
  // the two maps, never both.
  std::map<std::string, SparseTensor> sparse_initializers;

  const ValueInfo* find_input(std::string_view n) const;
  const ValueInfo* find_value_info(std::string_view n) const;  // inputs, outputs or value_info
};

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
};

// A model-local function (FunctionProto); inlined into the graph after load.
struct Function {
  std::string name;
  std::string domain;
  std::string overload;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attribute_names;
  std::vector<Attribute> attribute_defaults;
  std::vector<Node> nodes;
  std::vector<OpsetImport> opset_imports;
  std::vector<ValueInfo> value_info;
  std::string doc_string;
};

struct Model {
  int64_t ir_version = 0;
  std::vector<OpsetImport> opset_imports;
  std::string producer_name, producer_version, domain, doc_string;
  int64_t model_version = 0;
  std::vector<std::pair<std::string, std::string>> metadata_props;
  Graph graph;
  std::vector<Function> functions;
  std::string path;  // where it was loaded from (for messages and external data), may be empty

  // Opset version imported for a domain ("" and "ai.onnx" are the same); 0 if not imported.
  int64_t opset(std::string_view domain) const;
};

// "" and "ai.onnx" name the same domain.
inline bool is_onnx_domain(std::string_view d) { return d.empty() || d == "ai.onnx"; }

}  // namespace tessera::ir
