// The operator schema table: for each (domain, op type, since-version), the
// op's attributes with their defaults, its type constraints, and its type
// and shape rules. Type inference, the optimizer's static shapes, the
// kernels that size their outputs and the generated operator matrix all read
// it, so each rule is written once. Families register their entries in
// schema_<family>.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "core/tensor.hpp"
#include "ir/graph.hpp"

namespace tessera::ops {

class ShapeQuery;
struct OpSchema;

// An attribute and, unless `required`, the value an absent one stands for.
struct AttrDef {
  std::string name;
  ir::AttrType type = ir::AttrType::kInt;
  bool required = false;
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
};

// Type variable `name` ("T", "T1", ...) of the inputs and outputs listed:
// every tensor input listed has one element type, one of `allowed`.
// `variadic`: the last input listed stands for it and every input after it
// (Concat's, Sum's). Inputs a param does not list are not checked (Loop's
// carried values, which may each have their own type).
//
// The outputs listed take the variable's type (ops::infer_output_types), the
// first of these that is known: the attribute `dtype_attr` (a data type:
// Cast's `to`, `dtype`, `output_dtype`, `stash_type`) where the node sets it;
// the type of the first input listed whose type is known; the type of input
// `like_input` (the *Like generators without a dtype); the attribute's
// default; `fallback`; the one type of `allowed` when it holds one.
struct TypeParam {
  std::string name;
  std::vector<int> inputs, outputs;
  std::vector<DataType> allowed;
  bool variadic = false;
  std::string dtype_attr = {};
  int like_input = -1;
  DataType fallback = DataType::kUndefined;
  // The last output listed stands for it and every output after it (Split's).
  bool variadic_outputs = false;
};

// Output shapes: one entry per output, nullopt where it is not known from
// what the query knows (an input of unknown shape, a shape input that is not
// constant). Invalid inputs throw kInvalidArgument naming the node and input.
using OutShapes = std::vector<std::optional<Shape>>;
using ShapeRule = OutShapes (*)(const ShapeQuery&);
// Output types from the input types and the node's attributes, for ops whose
// outputs a TypeParam cannot state (Constant's value, a subgraph's outputs,
// sequences); kUnknown entries are "not inferable".
using TypeRule = std::vector<ir::TypeInfo> (*)(const ir::Node&, int64_t opset,
                                               const std::vector<ir::TypeInfo>& inputs);

struct OpSchema {
  std::string domain;  // "" for ai.onnx
  std::string op_type;
  int64_t since = 1;  // serves opsets from here to the next entry's since
  std::vector<AttrDef> attrs;
  std::vector<TypeParam> types;
  TypeRule type_rule = nullptr;    // null: the outputs' TypeParams type them
  ShapeRule shape_rule = nullptr;  // null: no static rule

  const AttrDef* attr_def(const std::string& name) const;
  // The node's attribute `name`, or the schema's default; kInvalidArgument
  // naming the node when it is required and absent. `name` must be declared.
  int64_t attr_int(const ir::Node& n, const std::string& name) const;
  float attr_float(const ir::Node& n, const std::string& name) const;
  std::string attr_string(const ir::Node& n, const std::string& name) const;
  std::vector<int64_t> attr_ints(const ir::Node& n, const std::string& name) const;
  std::vector<std::string> attr_strings(const ir::Node& n, const std::string& name) const;
};

// The entry serving `opset` of (domain, op_type) (ai.onnx as "" or
// "ai.onnx"), or null.
const OpSchema* find_schema(const std::string& domain, const std::string& op_type, int64_t opset);
const OpSchema* find_schema(const ir::Node& node, int64_t opset);
// The same, failing (kNotImplemented, naming the node) when there is none.
const OpSchema& schema_of(const ir::Node& node, int64_t opset);
// Every entry, ordered by domain, op type and since.
const std::vector<OpSchema>& all_schemas();

// For passes that read what an attribute means whatever the model's opset
// (Q/DQ's saturate, block_size, output_dtype, precision; MaxPool's
// ceil_mode): the default of the op's latest entry that declares `name`, or
// null when none does.
const AttrDef* latest_attr_def(const std::string& domain, const std::string& op_type,
                               const std::string& name);
// The node's int attribute `name`, else that default; `fallback` when no
// entry of the op declares it and the node does not set it.
int64_t attr_int_any_version(const ir::Node& n, const std::string& name, int64_t fallback);
// Whether the node leaves int attribute `name` at its default (absent, or
// set to it); true when no entry declares it and the node does not set it.
bool attr_is_default(const ir::Node& n, const std::string& name);

// Shape's start and end attributes (opset 15 on; before, the whole shape),
// for ops::shape_range.
int64_t shape_start(const OpSchema& s, const ir::Node& n);
std::optional<int64_t> shape_end(const OpSchema& s, const ir::Node& n);

// What a shape rule sees of one node: the shapes of its inputs and the
// integer values of its shape-like inputs, where known. The optimizer answers
// from declared shapes and constants, kernels from their input tensors.
class ShapeQuery {
 public:
  ShapeQuery(const ir::Node& node, int64_t opset, const OpSchema& schema)
      : node_(node), opset_(opset), schema_(schema) {}
  virtual ~ShapeQuery() = default;

  const ir::Node& node() const { return node_; }
  int64_t opset() const { return opset_; }
  const OpSchema& schema() const { return schema_; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  // Input i's shape; null when absent or unknown.
  virtual const Shape* shape(size_t i) const = 0;
  // Input i's values as int64 (from int64 or int32); nullopt when absent,
  // not known, or of another type.
  virtual std::optional<std::vector<int64_t>> ints(size_t i) const = 0;

  int64_t attr_int(const std::string& name) const { return schema_.attr_int(node_, name); }
  std::string attr_string(const std::string& name) const {
    return schema_.attr_string(node_, name);
  }
  std::vector<int64_t> attr_ints(const std::string& name) const {
    return schema_.attr_ints(node_, name);
  }
  bool has_attr(const char* name) const { return node_.attr(name) != nullptr; }
  // "input 1 'B' of shape [2,3]" (the shape when known).
  std::string input_desc(size_t i) const;
  template <typename... Args>
  [[noreturn]] void fail(Args&&... args) const {
    tessera::fail(ErrorCode::kInvalidArgument, node_.describe(), ": ", std::forward<Args>(args)...);
  }

 private:
  const ir::Node& node_;
  int64_t opset_;
  const OpSchema& schema_;
};

// A query over tensors a kernel holds (null: omitted). ints() reads the
// tensor's data, so only shape-like inputs (host memory) may be asked.
class TensorShapeQuery : public ShapeQuery {
 public:
  TensorShapeQuery(const ir::Node& node, int64_t opset, const OpSchema& schema,
                   std::vector<const Tensor*> inputs)
      : ShapeQuery(node, opset, schema), inputs_(std::move(inputs)) {}
  const Shape* shape(size_t i) const override;
  std::optional<std::vector<int64_t>> ints(size_t i) const override;

 private:
  std::vector<const Tensor*> inputs_;
};

// The schema's shape rule applied to a kernel's input tensors: output 0's
// shape (or output `k`'s). Fails naming the node when the rule does not
// know it.
OutShapes output_shapes(const OpSchema& schema, const ir::Node& node, int64_t opset,
                        std::vector<const Tensor*> inputs);
Shape output_shape(const OpSchema& schema, const ir::Node& node, int64_t opset,
                   std::vector<const Tensor*> inputs, size_t k = 0);

}  // namespace tessera::ops
