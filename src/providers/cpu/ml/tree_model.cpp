#include "providers/cpu/ml/tree_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "providers/cpu/ml/ml_common.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu::ml {

namespace {

NodeMode parse_mode(const ep::KernelInfo& info, const std::string& m) {
  static const std::pair<const char*, NodeMode> kModes[] = {
      {"BRANCH_LEQ", NodeMode::kLeq},       {"BRANCH_LT", NodeMode::kLt},
      {"BRANCH_GTE", NodeMode::kGte},       {"BRANCH_GT", NodeMode::kGt},
      {"BRANCH_EQ", NodeMode::kEq},         {"BRANCH_NEQ", NodeMode::kNeq},
      {"BRANCH_MEMBER", NodeMode::kMember}, {"LEAF", NodeMode::kLeaf}};
  for (const auto& [name, mode] : kModes)
    if (m == name) return mode;
  info.fail_node("node mode '", m, "' is not a BRANCH_* mode or LEAF");
}

template <typename T>
void check_len(const ep::KernelInfo& info, const char* name, const std::vector<T>& v, size_t n,
               bool optional = false) {
  if (v.size() != n && !(optional && v.empty()))
    info.fail_node("attribute ", name, " has ", v.size(), " entries; expected ", n);
}

// Longest path from `i`, or -1 if a cycle is found (state: 0 new, 1 open, 2 done).
int64_t depth_of(const std::vector<TreeNode>& nodes, int64_t i, std::vector<int8_t>& state,
                 std::vector<int64_t>& depth) {
  // Iterative DFS: a deep tree must not overflow the stack.
  std::vector<std::pair<int64_t, int>> stack{{i, 0}};
  while (!stack.empty()) {
    auto& [n, step] = stack.back();
    const TreeNode& nd = nodes[size_t(n)];
    if (step == 0) {
      if (state[size_t(n)] == 2) {
        stack.pop_back();
        continue;
      }
      if (state[size_t(n)] == 1) return -1;
      state[size_t(n)] = 1;
      if (nd.mode == NodeMode::kLeaf) {
        state[size_t(n)] = 2;
        depth[size_t(n)] = 0;
        stack.pop_back();
        continue;
      }
      step = 1;
      stack.push_back({nd.true_child, 0});
      continue;
    }
    if (step == 1) {
      step = 2;
      if (state[size_t(nd.true_child)] == 1) return -1;
      stack.push_back({nd.false_child, 0});
      continue;
    }
    if (state[size_t(nd.false_child)] == 1) return -1;
    depth[size_t(n)] = 1 + std::max(depth[size_t(nd.true_child)], depth[size_t(nd.false_child)]);
    state[size_t(n)] = 2;
    stack.pop_back();
  }
  return depth[size_t(i)];
}

}  // namespace

void TreeModel::validate(const ep::KernelInfo& info) {
  const int64_t n = int64_t(nodes.size());
  for (int64_t i = 0; i < n; ++i) {
    const TreeNode& nd = nodes[size_t(i)];
    if (nd.mode == NodeMode::kLeaf) {
      for (int64_t l = nd.leaf_begin; l < nd.leaf_end; ++l)
        if (leaves[size_t(l)].target < 0 || leaves[size_t(l)].target >= n_targets)
          info.fail_node("leaf weight for target ", leaves[size_t(l)].target, " outside [0, ",
                         n_targets, ")");
      continue;
    }
    if (nd.true_child < 0 || nd.true_child >= n || nd.false_child < 0 || nd.false_child >= n)
      info.fail_node("tree node ", i, " has a child outside the tree");
    if (nd.feature < 0) info.fail_node("tree node ", i, " has negative feature id ", nd.feature);
    max_feature = std::max(max_feature, nd.feature);
  }
  std::vector<int8_t> state(size_t(n), 0);
  std::vector<int64_t> depth(size_t(n), 0);
  for (int64_t r : roots) {
    if (r < 0 || r >= n) info.fail_node("tree root ", r, " is outside the nodes");
    int64_t d = depth_of(nodes, r, state, depth);
    if (d < 0) info.fail_node("the trees contain a cycle");
    max_depth = std::max(max_depth, d);
    root_depth.push_back(d);
  }
  build_walk();
}

void TreeModel::build_walk() {
  walk_mode = NodeMode::kLeaf;
  walk.clear();
  NodeMode mode = NodeMode::kLeaf;
  for (const TreeNode& nd : nodes) {
    if (nd.mode == NodeMode::kLeaf) continue;
    if (nd.mode == NodeMode::kMember || (mode != NodeMode::kLeaf && nd.mode != mode)) return;
    mode = nd.mode;
  }
  if (nodes.size() > size_t(std::numeric_limits<int32_t>::max()) ||
      max_feature > std::numeric_limits<int32_t>::max())
    return;
  walk.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TreeNode& nd = nodes[i];
    WalkNode& w = walk[i];
    if (nd.mode == NodeMode::kLeaf) {
      w = {0.0, 0, 0, {int32_t(i), int32_t(i)}};
    } else {
      w = {nd.value,
           int32_t(nd.feature),
           nd.missing_true ? 1 : 0,
           {int32_t(nd.true_child), int32_t(nd.false_child)}};
    }
  }
  walk_mode = mode;
}

namespace {

template <NodeMode M>
bool compare(double v, double value) {
  if constexpr (M == NodeMode::kLeq) return v <= value;
  if constexpr (M == NodeMode::kLt) return v < value;
  if constexpr (M == NodeMode::kGte) return v >= value;
  if constexpr (M == NodeMode::kGt) return v > value;
  if constexpr (M == NodeMode::kEq) return v == value;
  return v != value;
}

constexpr int64_t kWalkGroup = 16;  // rows walking one tree together

// The leaf each of `rows` (<= kWalkGroup) rows reaches from `root` in
// `depth` steps, into leaf[]: every row takes every step (a leaf leads to
// itself), so no step branches on the data.
template <NodeMode M>
void walk_group(const WalkNode* walk, int32_t root, int64_t depth, const double* x, int64_t rows,
                int64_t cols, int32_t* leaf) {
  for (int64_t i = 0; i < rows; ++i) leaf[i] = root;
  for (int64_t step = 0; step < depth; ++step)
    for (int64_t i = 0; i < rows; ++i) {
      const WalkNode& w = walk[leaf[i]];
      const double v = x[i * cols + w.feature];
      const bool go = compare<M>(v, w.value) | (std::isnan(v) & (w.missing_true != 0));
      leaf[i] = w.child[go ? 0 : 1];
    }
}

using WalkGroupFn = void (*)(const WalkNode*, int32_t, int64_t, const double*, int64_t, int64_t,
                             int32_t*);

WalkGroupFn walk_group_for(NodeMode mode) {
  switch (mode) {
    case NodeMode::kLeq:
      return &walk_group<NodeMode::kLeq>;
    case NodeMode::kLt:
      return &walk_group<NodeMode::kLt>;
    case NodeMode::kGte:
      return &walk_group<NodeMode::kGte>;
    case NodeMode::kGt:
      return &walk_group<NodeMode::kGt>;
    case NodeMode::kEq:
      return &walk_group<NodeMode::kEq>;
    case NodeMode::kNeq:
      return &walk_group<NodeMode::kNeq>;
    default:
      return nullptr;
  }
}

}  // namespace

void TreeModel::predict_rows(const double* x, int64_t rows, int64_t cols, Aggregate agg,
                             double* out) const {
  const int64_t T = n_targets;
  std::vector<char> seen(size_t(rows * T), 0);
  std::fill(out, out + rows * T, 0.0);
  // Row n's leaf `nd` of one tree, added to its scores.
  auto add_leaf = [&](int64_t n, const TreeNode* nd) {
    double* o_row = out + n * T;
    char* s_row = seen.data() + n * T;
    for (int64_t l = nd->leaf_begin; l < nd->leaf_end; ++l) {
      const LeafWeight& w = leaves[size_t(l)];
      double& o = o_row[w.target];
      char& s = s_row[w.target];
      if (agg == Aggregate::kMin)
        o = s ? std::min(o, w.weight) : w.weight;
      else if (agg == Aggregate::kMax)
        o = s ? std::max(o, w.weight) : w.weight;
      else
        o += w.weight;
      s = 1;
    }
  };
  const WalkGroupFn walk_fn = cols > 0 && !walk.empty() ? walk_group_for(walk_mode) : nullptr;
  for (size_t t = 0; t < roots.size(); ++t) {
    const int64_t r = roots[t];
    if (walk_fn) {
      int32_t leaf[kWalkGroup];
      for (int64_t n0 = 0; n0 < rows; n0 += kWalkGroup) {
        const int64_t g = std::min(kWalkGroup, rows - n0);
        walk_fn(walk.data(), int32_t(r), root_depth[t], x + n0 * cols, g, cols, leaf);
        for (int64_t i = 0; i < g; ++i) add_leaf(n0 + i, &nodes[size_t(leaf[i])]);
      }
      continue;
    }
    for (int64_t n = 0; n < rows; ++n) {
      const double* xr = x + n * cols;
      const TreeNode* nd = &nodes[size_t(r)];
      while (nd->mode != NodeMode::kLeaf) {
        const double v = xr[nd->feature];
        bool go;
        if (std::isnan(v) && nd->missing_true) {
          go = true;
        } else {
          switch (nd->mode) {
            case NodeMode::kLeq:
              go = v <= nd->value;
              break;
            case NodeMode::kLt:
              go = v < nd->value;
              break;
            case NodeMode::kGte:
              go = v >= nd->value;
              break;
            case NodeMode::kGt:
              go = v > nd->value;
              break;
            case NodeMode::kEq:
              go = v == nd->value;
              break;
            case NodeMode::kNeq:
              go = v != nd->value;
              break;
            default:
              go = std::find(sets.begin() + nd->set_begin, sets.begin() + nd->set_end, v) !=
                   sets.begin() + nd->set_end;
          }
        }
        nd = &nodes[size_t(go ? nd->true_child : nd->false_child)];
      }
      add_leaf(n, nd);
    }
  }
  if (agg == Aggregate::kAverage && !roots.empty())
    for (int64_t i = 0; i < rows * T; ++i) out[i] /= double(roots.size());
}

TreeModel tree_model_from_v3(const ep::KernelInfo& info, const char* prefix, int64_t n_targets) {
  TreeModel m;
  m.n_targets = n_targets;
  auto tree = info.attr_ints("nodes_treeids");
  auto id = info.attr_ints("nodes_nodeids");
  auto feat = info.attr_ints("nodes_featureids");
  auto modes = info.attr_strings("nodes_modes");
  auto vals = attr_doubles(info, "nodes_values");
  auto tr = info.attr_ints("nodes_truenodeids");
  auto fl = info.attr_ints("nodes_falsenodeids");
  auto miss = info.attr_ints("nodes_missing_value_tracks_true");
  const size_t n = tree.size();
  check_len(info, "nodes_nodeids", id, n);
  check_len(info, "nodes_featureids", feat, n);
  check_len(info, "nodes_modes", modes, n);
  check_len(info, "nodes_values", vals, n, true);
  check_len(info, "nodes_truenodeids", tr, n);
  check_len(info, "nodes_falsenodeids", fl, n);
  check_len(info, "nodes_missing_value_tracks_true", miss, n, true);
  std::map<std::pair<int64_t, int64_t>, int64_t> index;
  std::map<int64_t, int64_t> first_of_tree;
  for (size_t i = 0; i < n; ++i) {
    if (!index.emplace(std::make_pair(tree[i], id[i]), int64_t(i)).second)
      info.fail_node("node (tree ", tree[i], ", id ", id[i], ") appears twice");
    first_of_tree.emplace(tree[i], int64_t(i));
  }
  auto child = [&](size_t i, int64_t cid) {
    auto it = index.find({tree[i], cid});
    if (it == index.end())
      info.fail_node("node (tree ", tree[i], ", id ", id[i], ") has a missing child ", cid);
    return it->second;
  };
  m.nodes.resize(n);
  std::vector<char> is_child(n, 0);
  for (size_t i = 0; i < n; ++i) {
    TreeNode& nd = m.nodes[i];
    nd.mode = parse_mode(info, modes[i]);
    if (nd.mode == NodeMode::kMember) info.fail_node("BRANCH_MEMBER needs TreeEnsemble (opset 5)");
    nd.feature = feat[i];
    nd.value = vals.empty() ? 0.0 : vals[i];
    nd.missing_true = !miss.empty() && miss[i] != 0;
    if (nd.mode != NodeMode::kLeaf) {
      nd.true_child = child(i, tr[i]);
      nd.false_child = child(i, fl[i]);
      is_child[size_t(nd.true_child)] = is_child[size_t(nd.false_child)] = 1;
    }
  }
  // Leaf weights, grouped per node.
  const std::string p(prefix);
  auto wt = info.attr_ints(p + "_treeids");
  auto wn = info.attr_ints(p + "_nodeids");
  auto wid = info.attr_ints(p + "_ids");
  auto ww = attr_doubles(info, p + "_weights");
  check_len(info, (p + "_nodeids").c_str(), wn, wt.size());
  check_len(info, (p + "_ids").c_str(), wid, wt.size());
  check_len(info, (p + "_weights").c_str(), ww, wt.size());
  std::vector<std::vector<LeafWeight>> per_node(n);
  for (size_t k = 0; k < wt.size(); ++k) {
    auto it = index.find({wt[k], wn[k]});
    if (it == index.end())
      info.fail_node(p, " weight ", k, " names a missing node (tree ", wt[k], ", id ", wn[k], ")");
    per_node[size_t(it->second)].push_back({wid[k], ww[k]});
  }
  for (size_t i = 0; i < n; ++i) {
    m.nodes[i].leaf_begin = int64_t(m.leaves.size());
    m.leaves.insert(m.leaves.end(), per_node[i].begin(), per_node[i].end());
    m.nodes[i].leaf_end = int64_t(m.leaves.size());
  }
  // Each tree's root is its node that no other node points to.
  for (const auto& [t, first] : first_of_tree) {
    int64_t root = -1;
    for (size_t i = 0; i < n && root < 0; ++i)
      if (tree[i] == t && !is_child[i]) root = int64_t(i);
    m.roots.push_back(root < 0 ? first : root);
  }
  m.validate(info);
  return m;
}

TreeModel tree_model_from_v5(const ep::KernelInfo& info) {
  TreeModel m;
  m.n_targets = info.attr_int("n_targets", 1);
  if (m.n_targets < 1) info.fail_node("n_targets must be >= 1, got ", m.n_targets);
  auto feat = info.attr_ints("nodes_featureids");
  auto tr = info.attr_ints("nodes_truenodeids");
  auto fl = info.attr_ints("nodes_falsenodeids");
  auto trl = info.attr_ints("nodes_trueleafs");
  auto fll = info.attr_ints("nodes_falseleafs");
  auto miss = info.attr_ints("nodes_missing_value_tracks_true");
  auto ltarget = info.attr_ints("leaf_targetids");
  const Tensor* modes_t = info.attr_tensor("nodes_modes");
  const Tensor* splits_t = info.attr_tensor("nodes_splits");
  const Tensor* lw_t = info.attr_tensor("leaf_weights");
  const Tensor* member_t = info.attr_tensor("membership_values");
  if (!modes_t || !splits_t || !lw_t)
    info.fail_node("nodes_modes, nodes_splits and leaf_weights are required");
  if (modes_t->dtype() == DataType::kString)
    info.fail_node("nodes_modes must be a uint8 tensor, got ", modes_t->description());
  std::vector<int64_t> modes(size_t(modes_t->num_elements()));
  for (size_t i = 0; i < modes.size(); ++i) modes[i] = modes_t->element_as_int64(int64_t(i));
  auto splits = read_as<double>(*splits_t);
  auto lw = read_as<double>(*lw_t);
  const size_t n = feat.size();
  check_len(info, "nodes_modes", modes, n);
  check_len(info, "nodes_splits", splits, n);
  check_len(info, "nodes_truenodeids", tr, n);
  check_len(info, "nodes_falsenodeids", fl, n);
  check_len(info, "nodes_trueleafs", trl, n);
  check_len(info, "nodes_falseleafs", fll, n);
  check_len(info, "nodes_missing_value_tracks_true", miss, n, true);
  check_len(info, "leaf_weights", lw, ltarget.size());
  std::vector<double> members = member_t ? read_as<double>(*member_t) : std::vector<double>{};
  size_t mpos = 0;
  const int64_t nl = int64_t(ltarget.size());
  m.nodes.resize(n + size_t(nl));
  for (size_t i = 0; i < n; ++i) {
    TreeNode& nd = m.nodes[i];
    if (modes[i] < 0 || modes[i] > 6)
      info.fail_node("nodes_modes[", i, "] = ", modes[i], " is not 0..6");
    nd.mode = NodeMode(modes[i]);
    nd.feature = feat[i];
    nd.value = splits[i];
    nd.missing_true = !miss.empty() && miss[i] != 0;
    auto link = [&](int64_t id, int64_t leaf) {
      int64_t lim = leaf ? nl : int64_t(n);
      if (id < 0 || id >= lim)
        info.fail_node("node ", i, " points to ", leaf ? "leaf " : "node ", id, " of ", lim);
      return leaf ? int64_t(n) + id : id;
    };
    nd.true_child = link(tr[i], trl[i]);
    nd.false_child = link(fl[i], fll[i]);
    if (nd.mode == NodeMode::kMember) {
      // This node's set: the members up to the next NaN, in node order.
      nd.set_begin = int64_t(m.sets.size());
      while (mpos < members.size() && !std::isnan(members[mpos])) m.sets.push_back(members[mpos++]);
      if (mpos >= members.size() && !member_t)
        info.fail_node("BRANCH_MEMBER node ", i, " needs membership_values");
      ++mpos;
      nd.set_end = int64_t(m.sets.size());
    }
  }
  for (int64_t l = 0; l < nl; ++l) {
    TreeNode& nd = m.nodes[size_t(int64_t(n) + l)];
    nd.mode = NodeMode::kLeaf;
    nd.leaf_begin = int64_t(m.leaves.size());
    m.leaves.push_back({ltarget[size_t(l)], lw[size_t(l)]});
    nd.leaf_end = nd.leaf_begin + 1;
  }
  for (int64_t r : info.attr_ints("tree_roots")) {
    if (r < 0 || r >= int64_t(n)) info.fail_node("tree root ", r, " is outside the ", n, " nodes");
    // A single-leaf tree: a root whose both branches are the same leaf.
    if (trl[size_t(r)] && fll[size_t(r)] && tr[size_t(r)] == fl[size_t(r)])
      m.roots.push_back(m.nodes[size_t(r)].true_child);
    else
      m.roots.push_back(r);
  }
  m.validate(info);
  return m;
}

}  // namespace tessera::cpu::ml
