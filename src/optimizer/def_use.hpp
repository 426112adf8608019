// Read-side helpers the fusion passes share: who produces and who reads each
// value, which values are fixed constants, and small attribute/tensor tests.
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.hpp"

namespace tessera::optimizer {

// The domain of Tessera's internal fused ops, and its opset version.
inline constexpr const char* kTesseraDomain = "com.tessera";
inline constexpr int64_t kTesseraOpset = 1;

// A snapshot of the graph's def-use structure. Rebuild it after edits.
class DefUse {
 public:
  explicit DefUse(const ir::Graph& g);

  // Index of the node producing `value`, or -1 (graph input, initializer).
  int producer(const std::string& value) const;
  // Indices of the nodes reading `value` (once per reading node).
  const std::vector<int>& consumers(const std::string& value) const;
  // True when `value` is read by exactly one node input, and not by a graph
  // output or a subgraph: it may then disappear inside a fused node.
  bool only_consumer(const std::string& value, int node) const;
  // The constant tensor behind `value` (an initializer that is not also a
  // graph input, so it cannot be overridden at run time), or nullptr.
  const Tensor* constant(const std::string& value) const;
  // True for graph outputs and values read by subgraphs.
  bool pinned(const std::string& value) const { return pinned_.count(value) > 0; }

 private:
  const ir::Graph& g_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::unordered_map<std::string, int> uses_;  // node-input reads, counted per slot
  std::unordered_set<std::string> pinned_;     // graph outputs and subgraph reads
  std::unordered_set<std::string> graph_inputs_;
};

// A single-element constant's value, for float, double, float16 and
// bfloat16 (callers check the type their fused op allows).
std::optional<double> scalar_value(const Tensor* t);
// True when `v` is within a relative 1e-5 of `want`.
bool near(std::optional<double> v, double want);
// True when the scalar constant `t` holds `want` as closely as its type can:
// within 1e-5 for float and double, within half a unit in the last place
// for float16 and bfloat16 (a half model's sqrt(2) is 1.4140625).
bool near(const Tensor* t, double want);
// The float types the transformer fusions are made in: float, and the half
// types, whose fused CPU kernels convert through float.
bool is_fusable_float(DataType t);
// Those and double: the types of Conv folds and fusions, Gelu's constants
// and scalar_value (not the float8/float4 kinds).
bool is_float_or_double(DataType t);
// The integer attribute's value, or `def` when absent.
int64_t attr_int(const ir::Node& n, const char* name, int64_t def);
// True when the ints attribute is absent or every value of it is `v` (a
// conv's strides or dilations all 1, its pads all 0).
bool ints_all_or_absent(const ir::Node& n, const char* name, int64_t v);
// A fresh value name based on `base` not yet used in the graph. Collects
// the graph's names on every call: a pass making many names uses FreshNames.
std::string fresh_name(const ir::Graph& g, const std::string& base);
// Fresh names for a pass that makes many: the graph's names (node outputs,
// initializers, graph inputs) are collected once, and every name handed out
// is added, so two calls never return the same name. Names the pass adds by
// other means must be existing ones (a fused node taking over its last
// node's outputs), or they are not known here.
class FreshNames {
 public:
  explicit FreshNames(const ir::Graph& g);
  // `base` when unused, else the first unused of base_1, base_2, ...
  std::string operator()(const std::string& base);

 private:
  std::unordered_set<std::string> used_;
};
// Adds the com.tessera opset import if the model lacks it.
void import_tessera_domain(ir::Model& m);
// Drops the nodes whose flag is set, keeping the order of the others.
void erase_nodes(ir::Graph& g, const std::vector<bool>& dead);
// The end of every fusion pass into com.tessera ops: when `fused` nodes were
// made, drops the replaced ones and imports the domain. Returns `fused`.
size_t commit_fusions(ir::Model& m, ir::Graph& g, const std::vector<bool>& dead, size_t fused);

}  // namespace tessera::optimizer

namespace tessera::optimizer {

// The node reading `value` when it is the value's only reader (see
// DefUse::only_consumer) and an ai.onnx `op_type`; -1 otherwise.
int sole_consumer(const DefUse& v, const ir::Graph& g, const std::string& value,
                  const char* op_type);
// The node producing `value` when it is an ai.onnx `op_type`; -1 otherwise.
int producer_of(const DefUse& v, const ir::Graph& g, const std::string& value, const char* op_type);

}  // namespace tessera::optimizer
