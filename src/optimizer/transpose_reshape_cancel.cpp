// Transpose(Transpose(x)) and Reshape(Reshape(x)) collapse into one node (or
// none, when the two transposes undo each other).
#include <optional>
#include <set>

#include "ops/schema.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// Points every reader of `from` at `to` instead.
void rename_reads(ir::Graph& g, const std::string& from, const std::string& to) {
  for (auto& n : g.nodes)
    for (auto& in : n.inputs)
      if (in == from) in = to;
}

// A Transpose's permutation: its perm, or without one the reversal of its
// input's dims where the rank is known (a static shape, full or partial).
std::optional<std::vector<int64_t>> perm_of(const ir::Graph& g, const ir::Node& t) {
  if (const ir::Attribute* p = t.attr("perm")) return p->ints;
  const ir::ValueInfo* vi = t.inputs.empty() ? nullptr : g.find_value_info(t.inputs[0]);
  if (!vi || !vi->type.is_tensor() || !vi->type.shape) return std::nullopt;
  std::vector<int64_t> perm(vi->type.shape->size());
  for (size_t k = 0; k < perm.size(); ++k) perm[k] = int64_t(perm.size() - 1 - k);
  return perm;
}

}  // namespace

size_t cancel_transposes(ir::Graph& g) {
  size_t changed = 0;
  for (bool again = true; again;) {
    again = false;
    DefUse v(g);
    for (int i = 0; i < int(g.nodes.size()); ++i) {
      const ir::Node& first = g.nodes[size_t(i)];
      if (!ir::is_onnx_domain(first.domain) || first.op_type != "Transpose" ||
          first.outputs.size() != 1)
        continue;
      int j = sole_consumer(v, g, first.outputs[0], "Transpose");
      if (j < 0) continue;
      ir::Node& second = g.nodes[size_t(j)];
      // Without perm the rank is needed to spell the reversal: left alone
      // where it is not known.
      const auto p1 = perm_of(g, first), p2 = perm_of(g, second);
      if (!p1 || !p2 || p1->size() != p2->size()) continue;
      std::vector<int64_t> perm(p2->size());
      bool identity = true, valid = true;
      for (size_t k = 0; k < perm.size(); ++k) {
        int64_t q = (*p2)[k];
        if (q < 0 || q >= int64_t(perm.size())) valid = false;
        if (!valid) break;
        perm[k] = (*p1)[size_t(q)];
        if (perm[k] != int64_t(k)) identity = false;
      }
      if (!valid) continue;
      std::string x = first.inputs[0];
      if (identity && !v.pinned(second.outputs[0])) {
        std::string y = second.outputs[0];
        g.nodes.erase(g.nodes.begin() + std::max(i, j));
        g.nodes.erase(g.nodes.begin() + std::min(i, j));
        rename_reads(g, y, x);
      } else {
        // One transpose with the composed permutation, where the second was.
        second.inputs[0] = x;
        std::erase_if(second.attributes, [](const ir::Attribute& a) { return a.name == "perm"; });
        ir::Attribute composed;
        composed.name = "perm";
        composed.type = ir::AttrType::kInts;
        composed.ints = perm;
        second.attributes.push_back(std::move(composed));
        g.nodes.erase(g.nodes.begin() + i);
      }
      ++changed;
      again = true;
      break;
    }
  }
  return changed;
}

size_t merge_reshapes(ir::Graph& g) {
  size_t changed = 0;
  for (bool again = true; again;) {
    again = false;
    DefUse v(g);
    for (int i = 0; i < int(g.nodes.size()); ++i) {
      const ir::Node& first = g.nodes[size_t(i)];
      if (!ir::is_onnx_domain(first.domain) || first.op_type != "Reshape" ||
          first.inputs.size() < 2)
        continue;
      int j = sole_consumer(v, g, first.outputs[0], "Reshape");
      if (j < 0) continue;
      ir::Node& second = g.nodes[size_t(j)];
      if (second.inputs.size() < 2 || second.inputs[0] != first.outputs[0]) continue;
      // The second shape must not copy dims (0) from the intermediate shape,
      // unless allowzero makes 0 a literal size.
      const Tensor* shape = v.constant(second.inputs[1]);
      if (!shape) continue;
      bool copies = false;
      if (ops::attr_is_default(second, "allowzero"))
        for (int64_t d : shape->to_int64_vector()) copies |= d == 0;
      if (copies) continue;
      second.inputs[0] = first.inputs[0];
      g.nodes.erase(g.nodes.begin() + i);
      ++changed;
      again = true;
      break;
    }
  }
  return changed;
}

}  // namespace tessera::optimizer
