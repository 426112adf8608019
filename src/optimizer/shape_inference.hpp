// Static shapes for the optimizer: what follows exactly from the graph
// inputs' declared shapes, full or partial, and the constants (see
// shape_inference.cpp).
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.hpp"
#include "ops/partial_shape.hpp"

namespace tessera::optimizer {

// Walks nodes in order: visit(node) records the shapes of its outputs that
// its op's rule makes certain. Constants (non-overridable initializers,
// looked up live, so values folded during the walk count) have their own
// shapes; graph inputs and value_info their declared ones. A shape with
// unknown dims (a dynamic batch) is kept as a partial shape: its rank and the
// dims that are known, with the model's symbols (ops/partial_shape.hpp).
class ShapeInferrer {
 public:
  using Dims = std::vector<int64_t>;
  ShapeInferrer(const ir::Model& m, const ir::Graph& g);

  // The dims of `value`, when every one is known.
  const Dims* dims(const std::string& value) const;
  void set(const std::string& value, Dims d) {
    partial_.erase(value);
    dims_[value] = std::move(d);
  }
  // The shape of `value` with unknown dims, when some are unknown and its
  // rank is known (null otherwise: see dims()).
  const ops::PartialShape* partial(const std::string& value) const;
  // The shape of `value` as far as it is known, full or partial.
  std::optional<ops::PartialShape> shape(const std::string& value) const;
  // Records the node's output shapes (nothing for ops without a rule, or
  // inputs of unknown shape, or inputs its rule rejects).
  void visit(const ir::Node& n);
  // Output k's shape, per the rules, without recording it.
  ops::PartialOutShapes infer(const ir::Node& n) const;
  // The values of constant `value` (int64 or int32), when it is one.
  std::optional<Dims> ints(const std::string& value) const;

 private:
  const Tensor* constant(const std::string& value) const;
  const ir::Model& model_;
  const ir::Graph& g_;
  std::unordered_map<std::string, Dims> dims_;
  std::unordered_map<std::string, ops::PartialShape> partial_;
  std::unordered_set<std::string> graph_inputs_;
};

}  // namespace tessera::optimizer
