#include "optimizer/def_use.hpp"

#include <algorithm>
#include <cmath>

#include "ir/graph_algorithms.hpp"

namespace tessera::optimizer {

DefUse::DefUse(const ir::Graph& g) : g_(g) {
  for (const auto& in : g.inputs) graph_inputs_.insert(in.name);
  for (const auto& o : g.outputs) pinned_.insert(o.name);
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const auto& n = g.nodes[size_t(i)];
    for (const auto& o : n.outputs)
      if (!o.empty()) producer_[o] = i;
    std::unordered_set<std::string> seen;
    for (const auto& in : n.inputs) {
      if (in.empty()) continue;
      ++uses_[in];
      if (seen.insert(in).second) consumers_[in].push_back(i);
    }
    for (const auto& a : n.attributes) {
      if (a.g)
        for (auto& r : ir::outer_scope_reads(*a.g)) pinned_.insert(r);
      for (const auto& sub : a.graphs)
        for (auto& r : ir::outer_scope_reads(*sub)) pinned_.insert(r);
    }
  }
}

int DefUse::producer(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

const std::vector<int>& DefUse::consumers(const std::string& value) const {
  static const std::vector<int> none;
  auto it = consumers_.find(value);
  return it == consumers_.end() ? none : it->second;
}

bool DefUse::only_consumer(const std::string& value, int node) const {
  if (pinned_.count(value)) return false;
  auto it = uses_.find(value);
  if (it == uses_.end() || it->second != 1) return false;
  const auto& c = consumers(value);
  return c.size() == 1 && c[0] == node;
}

const Tensor* DefUse::constant(const std::string& value) const {
  if (value.empty() || graph_inputs_.count(value)) return nullptr;
  auto it = g_.initializers.find(value);
  return it == g_.initializers.end() ? nullptr : &it->second;
}

std::optional<double> scalar_value(const Tensor* t) {
  if (!t || t->num_elements() != 1) return std::nullopt;
  if (!is_float_or_double(t->dtype())) return std::nullopt;
  return t->element_as_double(0);
}

bool near(std::optional<double> v, double want) {
  return v && std::abs(*v - want) <= 1e-5 * std::abs(want);
}

bool near(const Tensor* t, double want) {
  const std::optional<double> v = scalar_value(t);
  if (!v) return false;
  // Half an ulp, relative: 2^-11 for float16's 10-bit fraction, 2^-8 for bfloat16's 7.
  const double tol = t->dtype() == DataType::kFloat16    ? 4.9e-4
                     : t->dtype() == DataType::kBFloat16 ? 3.9e-3
                                                         : 1e-5;
  return std::abs(*v - want) <= tol * std::abs(want);
}

bool is_fusable_float(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

bool is_float_or_double(DataType t) { return t == DataType::kDouble || is_fusable_float(t); }

bool ints_all_or_absent(const ir::Node& n, const char* name, int64_t v) {
  const ir::Attribute* a = n.attr(name);
  return !a || std::all_of(a->ints.begin(), a->ints.end(), [v](int64_t x) { return x == v; });
}

int64_t attr_int(const ir::Node& n, const char* name, int64_t def) {
  const ir::Attribute* a = n.attr(name);
  return a ? a->i : def;
}

FreshNames::FreshNames(const ir::Graph& g) {
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) used_.insert(o);
  for (const auto& [k, v] : g.initializers) used_.insert(k);
  for (const auto& [k, v] : g.sparse_initializers) used_.insert(k);
  for (const auto& in : g.inputs) used_.insert(in.name);
}

std::string FreshNames::operator()(const std::string& base) {
  std::string s = base;
  for (int i = 1; used_.count(s); ++i) s = base + "_" + std::to_string(i);
  used_.insert(s);
  return s;
}

std::string fresh_name(const ir::Graph& g, const std::string& base) { return FreshNames(g)(base); }

void import_tessera_domain(ir::Model& m) {
  if (m.opset(kTesseraDomain) == 0) m.opset_imports.push_back({kTesseraDomain, kTesseraOpset});
}

void erase_nodes(ir::Graph& g, const std::vector<bool>& dead) {
  std::vector<ir::Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!dead[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

}  // namespace tessera::optimizer

namespace tessera::optimizer {

int sole_consumer(const DefUse& v, const ir::Graph& g, const std::string& value,
                  const char* op_type) {
  const auto& c = v.consumers(value);
  if (c.size() != 1 || !v.only_consumer(value, c[0])) return -1;
  const ir::Node& n = g.nodes[size_t(c[0])];
  return ir::is_onnx_domain(n.domain) && n.op_type == op_type ? c[0] : -1;
}

int producer_of(const DefUse& v, const ir::Graph& g, const std::string& value,
                const char* op_type) {
  int p = v.producer(value);
  if (p < 0) return -1;
  const ir::Node& n = g.nodes[size_t(p)];
  return ir::is_onnx_domain(n.domain) && n.op_type == op_type ? p : -1;
}

size_t commit_fusions(ir::Model& m, ir::Graph& g, const std::vector<bool>& dead, size_t fused) {
  if (fused) {
    erase_nodes(g, dead);
    import_tessera_domain(m);
  }
  return fused;
}

}  // namespace tessera::optimizer
