// Static types of graph values, with symbolic dimensions, as ONNX TypeProto
// describes them: tensor, sparse tensor, sequence, map, optional.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/data_type.hpp"

namespace tessera::ir {

struct Dim {
  std::optional<int64_t> value;  // known size
  std::string symbol;            // dim_param, when symbolic
  std::string denotation{};      // what the dim means ("DATA_BATCH"); {} keeps Dim{v, ""} complete
  bool is_known() const { return value.has_value(); }
  std::string to_string() const;
};

struct TypeInfo {
  enum class Kind { kUnknown, kTensor, kSparseTensor, kSequence, kMap, kOptional };
  Kind kind = Kind::kUnknown;
  DataType elem_type = DataType::kUndefined;  // tensor / sparse tensor element; map key type
  std::optional<std::vector<Dim>> shape;      // absent: rank unknown
  std::shared_ptr<TypeInfo> inner;            // sequence / optional element; map value type
  std::string denotation;

  static TypeInfo tensor(DataType t, std::optional<std::vector<Dim>> shape = std::nullopt) {
    TypeInfo ti;
    ti.kind = Kind::kTensor;
    ti.elem_type = t;
    ti.shape = std::move(shape);
    return ti;
  }
  bool is_tensor() const { return kind == Kind::kTensor; }
  // "tensor(float)", "seq(tensor(int64))", "map(string,tensor(float))", "optional(...)".
  std::string to_string() const;
  // "[N,3,224,224]" or "?" when rank unknown.
  std::string shape_string() const;
};

}  // namespace tessera::ir
