// Static shapes for the optimizer: what follows exactly from fully static
// graph input shapes and the constants (see shape_inference.cpp).
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.hpp"

namespace tessera::optimizer {

// Walks nodes in order: visit(node) records the shapes of its outputs that
// its op's rule makes certain. Constants (non-overridable initializers,
// looked up live, so values folded during the walk count) have their own
// shapes; graph inputs their declared ones when every dim is a number.
class ShapeInferrer {
 public:
  using Dims = std::vector<int64_t>;
  ShapeInferrer(const ir::Model& m, const ir::Graph& g);

  // The dims of `value`, when known.
  const Dims* dims(const std::string& value) const;
  void set(const std::string& value, Dims d) { dims_[value] = std::move(d); }
  // Records the node's output shapes (nothing for ops without a rule, or
  // inputs of unknown shape, or inputs its rule rejects).
  void visit(const ir::Node& n);
  // Output k's dims, per the rules, without recording them.
  std::vector<std::optional<Dims>> infer(const ir::Node& n) const;
  // The values of constant `value` (int64 or int32), when it is one.
  std::optional<Dims> ints(const std::string& value) const;

 private:
  const Tensor* constant(const std::string& value) const;
  const ir::Model& model_;
  const ir::Graph& g_;
  std::unordered_map<std::string, Dims> dims_;
  std::unordered_set<std::string> graph_inputs_;
};

}  // namespace tessera::optimizer
