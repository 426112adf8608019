// One flat form for every tree ensemble encoding (TreeEnsembleRegressor /
// Classifier v1-v3 keyed by (tree id, node id), TreeEnsemble v5 with
// separate node and leaf arrays): nodes in a vector, children by index,
// leaves holding (target, weight) pairs. Validated once at load, so the
// evaluation loop can neither read out of bounds nor loop forever.
#pragma once
#include <cstdint>
#include <vector>

#include "ep/kernel.hpp"

namespace tessera::cpu::ml {

enum class NodeMode : uint8_t { kLeq = 0, kLt, kGte, kGt, kEq, kNeq, kMember, kLeaf };

struct TreeNode {
  NodeMode mode = NodeMode::kLeaf;
  bool missing_true = false;
  int64_t feature = 0;
  double value = 0;
  int64_t true_child = -1, false_child = -1;
  int64_t set_begin = 0, set_end = 0;    // kMember: range in TreeModel::sets
  int64_t leaf_begin = 0, leaf_end = 0;  // kLeaf: range in TreeModel::leaves
};

struct LeafWeight {
  int64_t target;
  double weight;
};

enum class Aggregate { kAverage = 0, kSum = 1, kMin = 2, kMax = 3 };

// A node as the branch-free walk reads it (TreeModel::walk): 24 bytes; a
// leaf leads to itself, so a row that reaches its leaf early stays there.
struct WalkNode {
  double value;
  int32_t feature;
  int32_t missing_true;  // 1: a NaN feature takes the true child
  int32_t child[2];      // true, false
};

struct TreeModel {
  std::vector<TreeNode> nodes;
  std::vector<double> sets;
  std::vector<LeafWeight> leaves;
  std::vector<int64_t> roots;
  int64_t n_targets = 0;
  int64_t max_feature = -1;
  int64_t max_depth = 0;            // longest root-to-leaf path, bounds every walk
  std::vector<int64_t> root_depth;  // each tree's longest path
  // Where every branch node has one comparison mode other than BRANCH_MEMBER
  // (walk_mode), the nodes again as WalkNodes: rows then walk each tree in
  // groups, each step a comparison that picks the child by index rather
  // than by a branch, the rows' chains of loads overlapping. kLeaf: none.
  NodeMode walk_mode = NodeMode::kLeaf;
  std::vector<WalkNode> walk;

  // Checks children, leaf ranges and targets, rejects cycles, sets max_*,
  // root_depth and the walk form.
  void validate(const ep::KernelInfo& info);
  void build_walk();
  // Aggregated (not post-transformed) scores of `rows` rows of x (`cols`
  // features each), `n_targets` per row into out. Tree by tree over all the
  // rows, so that one tree's nodes stay in cache while every row walks it;
  // each row still adds its trees' leaves in tree order.
  void predict_rows(const double* x, int64_t rows, int64_t cols, Aggregate agg, double* out) const;
};

// Parses the v1/v3 encoding; `prefix` is "target" or "class".
TreeModel tree_model_from_v3(const ep::KernelInfo& info, const char* prefix, int64_t n_targets);
// Parses the v5 TreeEnsemble encoding.
TreeModel tree_model_from_v5(const ep::KernelInfo& info);

}  // namespace tessera::cpu::ml
