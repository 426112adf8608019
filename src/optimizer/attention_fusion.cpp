// Multi-head self-attention as torch exports it (BERT, torch 1.13 / 2.x):
//   q4 = Transpose(Reshape(Q, [b, S, H, D]), [0,2,1,3])
//   k4 = Transpose(Reshape(K, [b, S, H, D]), [0,2,3,1])     (K^T per head)
//   v4 = Transpose(Reshape(V, [b, S, H, D]), [0,2,1,3])
//   p  = Softmax([Where(keep, ] MatMul(q4, k4) / c (or * c) [, fill)] [+ mask], axis -1)
//   Y  = Reshape(Transpose(MatMul(p, v4), [0,2,1,3]), shape)
// becomes one com.tessera MultiHeadAttention(Q, K, V[, mask]) that the CPU
// provider runs per (batch, head) on strided views. Every intermediate must
// be read only by the next node of the chain; the three head-split Reshapes
// must agree on a constant [b, S, H, D] with b -1 or positive; the scale must
// be a float scalar constant; the final Reshape's shape a constant without 0s.
// The Where is GPT's causal mask: `keep` a constant bool tensor, `fill` a
// constant float scalar. When Q, K and V are the three equal parts of one
// Split of a packed projection along its last axis, and the Split may go
// (packed_qkv), the node reads that tensor instead: MultiHeadAttention(QKV,
// "", ""[, mask]) with packed_qkv = 1, and no copy is made of Q, K or V.
#include <algorithm>

#include "optimizer/graph_view.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

struct HeadSplit {
  std::string input;           // the [.., S*H*D] value being split into heads
  std::vector<int64_t> shape;  // the Reshape's [b, S, H, D]
  int transpose = -1, reshape = -1;
};

std::vector<int64_t> perm_of(const ir::Node& n) {
  const ir::Attribute* p = n.attr("perm");
  return p ? p->ints : std::vector<int64_t>{};
}

// Transpose(Reshape(x, [b, S, H, D]), perm) feeding only `reader`.
std::optional<HeadSplit> head_split(const GraphView& v, const ir::Graph& g,
                                    const std::string& value, int reader,
                                    const std::vector<int64_t>& perm) {
  int t = producer_of(v, g, value, "Transpose");
  if (t < 0 || !v.only_consumer(value, reader) || perm_of(g.nodes[size_t(t)]) != perm)
    return std::nullopt;
  const std::string& reshaped = g.nodes[size_t(t)].inputs[0];
  int r = producer_of(v, g, reshaped, "Reshape");
  if (r < 0 || !v.only_consumer(reshaped, t) || g.nodes[size_t(r)].inputs.size() != 2)
    return std::nullopt;
  const Tensor* s = v.constant(g.nodes[size_t(r)].inputs[1]);
  if (!s || s->dtype() != DataType::kInt64 || s->rank() != 1 || s->num_elements() != 4)
    return std::nullopt;
  HeadSplit h{g.nodes[size_t(r)].inputs[0], s->to_int64_vector(), t, r};
  if (h.shape[0] != -1 && h.shape[0] <= 0) return std::nullopt;
  for (size_t i = 1; i < 4; ++i)
    if (h.shape[i] <= 0) return std::nullopt;
  return h;
}

// The constant float scalar of a Div (divisor) or Mul (either side) reading
// `scores`: the factor scores are multiplied by, or nullopt.
std::optional<float> scale_of(const GraphView& v, const ir::Node& n, const std::string& scores) {
  if (n.inputs.size() != 2) return std::nullopt;
  auto scalar = [&](const std::string& name) -> std::optional<double> {
    const Tensor* t = v.constant(name);
    if (!t || !is_fusable_float(t->dtype())) return std::nullopt;
    return scalar_value(t);
  };
  if (n.op_type == "Div" && n.inputs[0] == scores && n.inputs[1] != scores) {
    auto c = scalar(n.inputs[1]);
    if (c && *c != 0.0) return float(1.0 / *c);
  }
  if (n.op_type == "Mul" && (n.inputs[0] == scores) != (n.inputs[1] == scores)) {
    auto c = scalar(n.inputs[0] == scores ? n.inputs[1] : n.inputs[0]);
    if (c) return float(*c);
  }
  return std::nullopt;
}

ir::Attribute int_attr(const char* name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInt;
  a.i = v;
  return a;
}

ir::Attribute float_attr(const char* name, float v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloat;
  a.f = v;
  return a;
}

// The chain from the Softmax backwards to the Q.K^T MatMul.
struct Scores {
  int sc = -1, qk = -1;  // the scale node (-1: none), the Q.K^T MatMul
  float scale = 1;
  // ONNX Runtime's FusedMatMul is the product and the scale (alpha) in one;
  // with transB = 1 it reads K's heads untransposed ([0,2,1,3]).
  bool k_untransposed = false;
  int add = -1;  // the mask Add, when present
  std::string mask;
  int where = -1;  // the causal Where, when present
  std::string keep;
  float fill = 0;
};

// Matches the nodes between two values of one candidate, on a def-use view
// and the nodes already claimed by earlier fusions.
class Matcher {
 public:
  Matcher(const GraphView& v, const ir::Graph& g, const std::vector<bool>& dead)
      : v_(v), g_(g), dead_(dead) {}

  // Softmax input <- [Add(mask)] <- [Where(keep, ., fill)] <- Div/Mul(scale) <- MatMul.
  std::optional<Scores> scores(int sm) const {
    const std::string& in = g_.nodes[size_t(sm)].inputs[0];
    Scores r;
    int add = producer_of(v_, g_, in, "Add");
    if (add < 0) return masked(in, sm, r) ? std::optional<Scores>(r) : std::nullopt;
    const ir::Node& a = g_.nodes[size_t(add)];
    if (!v_.only_consumer(in, sm) || a.inputs.size() != 2 || a.inputs[0] == a.inputs[1])
      return std::nullopt;
    // The scores are the operand made by the scale node; the other is the mask.
    for (int k = 0; k < 2; ++k) {
      r = Scores{};
      if (masked(a.inputs[size_t(k)], add, r)) {
        r.add = add;
        r.mask = a.inputs[size_t(1 - k)];
        return r;
      }
    }
    return std::nullopt;
  }

 private:
  bool masked(const std::string& value, int reader, Scores& r) const {
    int w = producer_of(v_, g_, value, "Where");
    if (w < 0) return scaled(value, reader, r);
    const ir::Node& wn = g_.nodes[size_t(w)];
    if (dead_[size_t(w)] || !v_.only_consumer(value, reader) || wn.inputs.size() != 3) return false;
    const Tensor* keep = v_.constant(wn.inputs[0]);
    const Tensor* fill = v_.constant(wn.inputs[2]);
    if (!keep || keep->dtype() != DataType::kBool || keep->rank() > 4 || !fill ||
        !is_fusable_float(fill->dtype()) || fill->num_elements() != 1)
      return false;
    r.where = w;
    r.keep = wn.inputs[0];
    r.fill = float(fill->element_as_double(0));
    return scaled(wn.inputs[1], w, r);
  }

  bool scaled(const std::string& value, int reader, Scores& r) const {
    int sc = v_.producer(value);
    if (sc < 0 || dead_[size_t(sc)] || !v_.only_consumer(value, reader)) return false;
    const ir::Node& n = g_.nodes[size_t(sc)];
    if (n.domain == "com.microsoft" && n.op_type == "FusedMatMul" && n.inputs.size() == 2 &&
        attr_int(n, "transA", 0) == 0 && attr_int(n, "transBatchA", 0) == 0 &&
        attr_int(n, "transBatchB", 0) == 0) {
      const ir::Attribute* alpha = n.attr("alpha");
      r.sc = -1, r.qk = sc, r.scale = alpha ? alpha->f : 1.0f;
      r.k_untransposed = attr_int(n, "transB", 0) == 1;
      return true;
    }
    if (!ir::is_onnx_domain(n.domain)) return false;
    for (const std::string& in : g_.nodes[size_t(sc)].inputs) {
      int p = producer_of(v_, g_, in, "MatMul");
      if (p < 0 || !v_.only_consumer(in, sc)) continue;
      if (auto c = scale_of(v_, g_.nodes[size_t(sc)], in)) {
        r.sc = sc, r.qk = p, r.scale = *c;
        return true;
      }
    }
    return false;
  }

  const GraphView& v_;
  const ir::Graph& g_;
  const std::vector<bool>& dead_;
};

// The final Reshape's constant shape: positive sizes and at most one -1.
std::optional<std::vector<int64_t>> merge_shape(const Tensor* t) {
  if (!t || t->dtype() != DataType::kInt64 || t->rank() != 1) return std::nullopt;
  std::vector<int64_t> dims = t->to_int64_vector();
  int minus_ones = 0;
  for (int64_t d : dims) {
    if (d != -1 && d <= 0) return std::nullopt;
    minus_ones += d == -1;
  }
  if (minus_ones > 1) return std::nullopt;
  return dims;
}

// The Split whose outputs 0, 1 and 2 are Q, K and V, each H*D wide, along
// the last axis of one [.., S, 3*H*D] tensor (a packed QKV projection, as
// torch's split/chunk of one Linear exports it), each read only by its
// head-split Reshape; -1 when there is none.
int packed_split(const GraphView& v, const ir::Graph& g, const HeadSplit& q, const HeadSplit& k,
                 const HeadSplit& val) {
  const int p = v.producer(q.input);
  if (p < 0) return -1;
  const ir::Node& n = g.nodes[size_t(p)];
  if (!ir::is_onnx_domain(n.domain) || n.op_type != "Split" || n.inputs.empty() ||
      n.outputs != std::vector<std::string>{q.input, k.input, val.input} ||
      !v.only_consumer(q.input, q.reshape) || !v.only_consumer(k.input, k.reshape) ||
      !v.only_consumer(val.input, val.reshape))
    return -1;
  const int64_t hd = q.shape[2] * q.shape[3];
  // The input's dims, when its declared shape gives them.
  const ir::ValueInfo* vi = g.find_value_info(n.inputs[0]);
  const auto* dims = vi && vi->type.is_tensor() && vi->type.shape ? &*vi->type.shape : nullptr;
  // The last axis: -1, or its index when the input's rank is known.
  const int64_t axis = attr_int(n, "axis", 0);
  if (axis != -1 && !(dims && axis >= 0 && size_t(axis) + 1 == dims->size())) return -1;
  // The last dim when known, else -1.
  const int64_t width = dims && !dims->empty() ? dims->back().value.value_or(-1) : -1;
  // Three parts of H*D: sizes given (input 1 from opset 13, the `split`
  // attribute before), or an equal split of a known 3*H*D.
  std::vector<int64_t> sizes;
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* t = v.constant(n.inputs[1]);
    if (!t || t->dtype() != DataType::kInt64) return -1;
    sizes = t->to_int64_vector();
  } else if (const ir::Attribute* a = n.attr("split")) {
    sizes = a->ints;
  } else if (width == 3 * hd) {
    sizes = {hd, hd, hd};
  }
  return sizes == std::vector<int64_t>{hd, hd, hd} ? p : -1;
}

ir::Node attention_node(const std::string& name, const HeadSplit& q, const HeadSplit& k,
                        const HeadSplit& v, const Scores& s, std::vector<int64_t> out_shape,
                        std::vector<std::string> outputs, const std::string& packed) {
  ir::Node n;
  n.name = name + "_attention";
  n.op_type = "MultiHeadAttention";
  n.domain = kTesseraDomain;
  n.inputs = packed.empty() ? std::vector<std::string>{q.input, k.input, v.input}
                            : std::vector<std::string>{packed, "", ""};
  if (!s.mask.empty() || s.where >= 0) n.inputs.push_back(s.mask);
  if (s.where >= 0) n.inputs.push_back(s.keep);
  n.outputs = std::move(outputs);
  ir::Attribute shape_attr;
  shape_attr.name = "output_shape";
  shape_attr.type = ir::AttrType::kInts;
  shape_attr.ints = std::move(out_shape);
  n.attributes = {int_attr("num_heads", q.shape[2]), int_attr("head_size", q.shape[3]),
                  int_attr("seq_len", q.shape[1]),   int_attr("batch", q.shape[0]),
                  float_attr("scale", s.scale),      shape_attr};
  if (s.where >= 0) n.attributes.push_back(float_attr("masked_value", s.fill));
  if (!packed.empty()) n.attributes.push_back(int_attr("packed_qkv", 1));
  // Trailing omitted inputs are left out.
  while (!n.inputs.empty() && n.inputs.back().empty()) n.inputs.pop_back();
  return n;
}

}  // namespace

size_t fuse_attention(ir::Model& model, ir::Graph& g, bool packed_qkv) {
  GraphView v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  Matcher match(v, g, dead);
  size_t fused = 0;
  const bool opset13 = model.opset("") >= 13;
  for (int sm = 0; sm < int(g.nodes.size()); ++sm) {
    const ir::Node& softmax = g.nodes[size_t(sm)];
    if (dead[size_t(sm)] || !ir::is_onnx_domain(softmax.domain) || softmax.op_type != "Softmax" ||
        softmax.inputs.empty() || softmax.outputs.size() != 1)
      continue;
    // Last axis of the 4-D scores (before opset 13 the axis must be given: its default is 1).
    const ir::Attribute* ax = softmax.attr("axis");
    if (ax ? (ax->i != -1 && ax->i != 3) : !opset13) continue;
    auto s = match.scores(sm);
    if (!s) continue;
    const ir::Node& qk_mm = g.nodes[size_t(s->qk)];
    if (qk_mm.inputs.size() != 2) continue;
    auto q = head_split(v, g, qk_mm.inputs[0], s->qk, {0, 2, 1, 3});
    auto k = head_split(
        v, g, qk_mm.inputs[1], s->qk,
        s->k_untransposed ? std::vector<int64_t>{0, 2, 1, 3} : std::vector<int64_t>{0, 2, 3, 1});
    if (!q || !k || q->shape != k->shape) continue;
    // Forwards: MatMul(p, v4) -> Transpose [0,2,1,3] -> Reshape(shape).
    int pv = sole_consumer(v, g, softmax.outputs[0], "MatMul");
    if (pv < 0 || g.nodes[size_t(pv)].inputs.size() != 2 ||
        g.nodes[size_t(pv)].inputs[0] != softmax.outputs[0])
      continue;
    auto val = head_split(v, g, g.nodes[size_t(pv)].inputs[1], pv, {0, 2, 1, 3});
    if (!val || val->shape != q->shape) continue;
    int tr = sole_consumer(v, g, g.nodes[size_t(pv)].outputs[0], "Transpose");
    if (tr < 0 || perm_of(g.nodes[size_t(tr)]) != std::vector<int64_t>{0, 2, 1, 3}) continue;
    int rs = sole_consumer(v, g, g.nodes[size_t(tr)].outputs[0], "Reshape");
    if (rs < 0 || g.nodes[size_t(rs)].inputs.size() != 2) continue;
    auto out_shape = merge_shape(v.constant(g.nodes[size_t(rs)].inputs[1]));
    if (!out_shape) continue;
    std::vector<int> chain = {q->reshape,
                              q->transpose,
                              k->reshape,
                              k->transpose,
                              val->reshape,
                              val->transpose,
                              s->qk,
                              s->sc,
                              sm,
                              pv,
                              tr};
    if (s->sc < 0) chain.erase(std::find(chain.begin(), chain.end(), s->sc));
    if (s->add >= 0) chain.push_back(s->add);
    if (s->where >= 0) chain.push_back(s->where);
    const int split = packed_qkv ? packed_split(v, g, *q, *k, *val) : -1;
    if (split >= 0) chain.push_back(split);
    bool taken = false;
    for (int c : chain) taken |= dead[size_t(c)];
    if (taken) continue;
    ir::Node mha = attention_node(softmax.name, *q, *k, *val, *s, std::move(*out_shape),
                                  g.nodes[size_t(rs)].outputs,
                                  split >= 0 ? g.nodes[size_t(split)].inputs[0] : "");
    for (int c : chain) dead[size_t(c)] = true;
    g.nodes[size_t(rs)] = std::move(mha);  // the last node: every input exists by then
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::optimizer
