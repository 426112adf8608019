// What flows along a graph edge: a tensor, a sparse tensor, a sequence, a
// map, or nothing (an optional without a value).
#pragma once
#include <memory>
#include <vector>

#include "core/sparse_tensor.hpp"
#include "core/tensor.hpp"

namespace tessera {

class Value;
using Sequence = std::vector<Value>;

// A map as ONNX ML ops produce it: parallel 1-D key and value tensors.
struct MapValue {
  Tensor keys;
  Tensor values;
};

class Value {
 public:
  enum class Kind { kNone, kTensor, kSequence, kMap, kSparseTensor };

  Value() = default;
  Value(Tensor t) : kind_(Kind::kTensor), tensor_(std::move(t)) {}  // NOLINT: implicit by design
  static Value sequence(Sequence items, DataType elem_type = DataType::kUndefined) {
    Value v;
    v.kind_ = Kind::kSequence;
    v.seq_ = std::make_shared<const Sequence>(std::move(items));
    v.elem_type_ = elem_type;
    return v;
  }
  static Value sparse(SparseTensor s) {
    Value v;
    v.kind_ = Kind::kSparseTensor;
    v.sparse_ = std::make_shared<SparseTensor>(std::move(s));
    return v;
  }
  static Value map(MapValue m) {
    Value v;
    v.kind_ = Kind::kMap;
    v.map_ = std::make_shared<const MapValue>(std::move(m));
    return v;
  }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_map() const { return kind_ == Kind::kMap; }
  bool is_sparse() const { return kind_ == Kind::kSparseTensor; }

  const Tensor& tensor() const {
    check(is_tensor(), "value is a ", kind_name(), ", not a tensor");
    return tensor_;
  }
  Tensor& tensor() {
    check(is_tensor(), "value is a ", kind_name(), ", not a tensor");
    return tensor_;
  }
  const Sequence& seq() const {
    check(is_sequence(), "value is a ", kind_name(), ", not a sequence");
    return *seq_;
  }
  // Element type of a sequence (known even when it is empty).
  DataType seq_elem_type() const { return elem_type_; }
  const SparseTensor& sparse() const {
    check(is_sparse(), "value is a ", kind_name(), ", not a sparse tensor");
    return *sparse_;
  }
  // For the C API's calls that fill a sparse value in place after creating it.
  SparseTensor& mutable_sparse() {
    check(is_sparse(), "value is a ", kind_name(), ", not a sparse tensor");
    return *sparse_;
  }
  const MapValue& map() const {
    check(is_map(), "value is a ", kind_name(), ", not a map");
    return *map_;
  }
  const char* kind_name() const {
    switch (kind_) {
      case Kind::kNone:
        return "none";
      case Kind::kTensor:
        return "tensor";
      case Kind::kSequence:
        return "sequence";
      case Kind::kMap:
        return "map";
      case Kind::kSparseTensor:
        return "sparse tensor";
    }
    return "?";
  }

 private:
  Kind kind_ = Kind::kNone;
  Tensor tensor_;
  std::shared_ptr<const Sequence> seq_;
  std::shared_ptr<const MapValue> map_;
  std::shared_ptr<SparseTensor> sparse_;
  DataType elem_type_ = DataType::kUndefined;
};

}  // namespace tessera
