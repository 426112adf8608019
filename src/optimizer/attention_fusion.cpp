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
//
// With `seq_first`, also torchvision's nn.MultiheadAttention (sequence
// first: ViT's encoder), after shape folding:
//   q3 = Transpose(Reshape(Q, [S, B*H, D]), [1,0,2])      (Q: [S, B, H*D])
//   k3 = Transpose(Reshape(K, [S, B*H, D]), [1,2,0])
//   v3 = Transpose(Reshape(V, [S, B*H, D]), [1,0,2])
//   p  = Softmax(MatMul(q3 / c (or * c, or q3), k3), axis -1)
//   Y  = Reshape(Transpose(MatMul(p, v3), [1,0,2]), [S*B, H*D] or [S, B, H*D])
// becomes MultiHeadAttention(Q, K, V) with seq_first = 1 (Q, K, V and Y laid
// out [S, B, H*D]); H comes from Y's last dim over D. Where Q, K and V are
// three Slices of one [S, B, 3*H*D] projection along its last axis (as
// nn.MultiheadAttention's packed in_proj exports), the node reads that
// tensor (packed_qkv) and the Slices go.
#include <algorithm>
#include <cstdint>

#include "ops/schema.hpp"
#include "optimizer/def_use.hpp"
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

// Transpose(Reshape(x, [b, S, H, D]), perm) feeding only `reader`; with
// rank 3, Transpose(Reshape(x, [S, B*H, D]), perm) (the sequence-first form).
std::optional<HeadSplit> head_split(const DefUse& v, const ir::Graph& g, const std::string& value,
                                    int reader, const std::vector<int64_t>& perm,
                                    int64_t rank = 4) {
  int t = producer_of(v, g, value, "Transpose");
  if (t < 0 || !v.only_consumer(value, reader) || perm_of(g.nodes[size_t(t)]) != perm)
    return std::nullopt;
  const std::string& reshaped = g.nodes[size_t(t)].inputs[0];
  int r = producer_of(v, g, reshaped, "Reshape");
  if (r < 0 || !v.only_consumer(reshaped, t) || g.nodes[size_t(r)].inputs.size() != 2)
    return std::nullopt;
  const Tensor* s = v.constant(g.nodes[size_t(r)].inputs[1]);
  if (!s || s->dtype() != DataType::kInt64 || s->rank() != 1 || s->num_elements() != rank)
    return std::nullopt;
  HeadSplit h{g.nodes[size_t(r)].inputs[0], s->to_int64_vector(), t, r};
  // The batch of [b, S, H, D] may be -1; every size of [S, B*H, D] is given.
  if (rank == 4 && h.shape[0] != -1 && h.shape[0] <= 0) return std::nullopt;
  for (size_t i = rank == 4 ? 1 : 0; i < size_t(rank); ++i)
    if (h.shape[i] <= 0) return std::nullopt;
  return h;
}

// The constant float scalar of a Div (divisor) or Mul (either side) reading
// `scores`: the factor scores are multiplied by, or nullopt.
std::optional<float> scale_of(const DefUse& v, const ir::Node& n, const std::string& scores) {
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
  Matcher(const DefUse& v, const ir::Graph& g, const std::vector<bool>& dead)
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
    if (n.domain == "com.microsoft" && n.op_type == "FusedMatMul" && n.inputs.size() == 2) {
      const ops::OpSchema& s = *ops::find_schema(n.domain, n.op_type, 1);
      if (s.attr_int(n, "transA") != 0 || s.attr_int(n, "transBatchA") != 0 ||
          s.attr_int(n, "transBatchB") != 0)
        return false;
      r.sc = -1, r.qk = sc, r.scale = s.attr_float(n, "alpha");
      r.k_untransposed = s.attr_int(n, "transB") == 1;
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

  const DefUse& v_;
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
int packed_split(const DefUse& v, const ir::Graph& g, int64_t opset, const HeadSplit& q,
                 const HeadSplit& k, const HeadSplit& val) {
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
  const int64_t axis = ops::schema_of(n, opset).attr_int(n, "axis");
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

// The fused node's sizes: heads H, head size D, sequence S, batch B (-1:
// what is left of the elements), and whether Q, K, V and Y are sequence first.
struct Geometry {
  int64_t heads, head_size, seq, batch;
  bool seq_first = false;
};

ir::Node attention_node(const std::string& name, const Geometry& geo, const HeadSplit& q,
                        const HeadSplit& k, const HeadSplit& v, const Scores& s,
                        std::vector<int64_t> out_shape, std::vector<std::string> outputs,
                        const std::string& packed) {
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
  n.attributes = {int_attr("num_heads", geo.heads), int_attr("head_size", geo.head_size),
                  int_attr("seq_len", geo.seq),     int_attr("batch", geo.batch),
                  float_attr("scale", s.scale),     shape_attr};
  if (s.where >= 0) n.attributes.push_back(float_attr("masked_value", s.fill));
  if (!packed.empty()) n.attributes.push_back(int_attr("packed_qkv", 1));
  if (geo.seq_first) n.attributes.push_back(int_attr("seq_first", 1));
  // Trailing omitted inputs are left out.
  while (!n.inputs.empty() && n.inputs.back().empty()) n.inputs.pop_back();
  return n;
}

// The three Slices that cut Q, K and V ([0, w), [w, 2w), [2w, 3w) of the last
// axis, step 1) from one value whose last dim is known to be 3w, each read
// only by its head-split Reshape: their nodes, and the sliced value in
// `packed`; empty when there are none.
std::vector<int> packed_slices(const DefUse& v, const ir::Graph& g,
                               const std::vector<const HeadSplit*>& parts, int64_t w,
                               std::string& packed) {
  std::vector<int> nodes;
  if (w > INT64_MAX / 3) return {};  // sizes from the model's constants
  for (size_t i = 0; i < parts.size(); ++i) {
    const int p = producer_of(v, g, parts[i]->input, "Slice");
    if (p < 0 || !v.only_consumer(parts[i]->input, parts[i]->reshape)) return {};
    const ir::Node& n = g.nodes[size_t(p)];
    if (n.inputs.size() < 4 || (i > 0 && n.inputs[0] != packed)) return {};
    packed = n.inputs[0];
    const ir::ValueInfo* vi = g.find_value_info(packed);
    const auto* dims = vi && vi->type.is_tensor() && vi->type.shape ? &*vi->type.shape : nullptr;
    if (!dims || dims->empty() || dims->back().value != 3 * w) return {};
    auto ints = [&](size_t k) -> std::optional<std::vector<int64_t>> {
      const Tensor* t =
          k < n.inputs.size() && !n.inputs[k].empty() ? v.constant(n.inputs[k]) : nullptr;
      if (!t || t->dtype() != DataType::kInt64 || t->rank() != 1) return std::nullopt;
      return t->to_int64_vector();
    };
    const int64_t last = int64_t(dims->size()) - 1;
    const auto axes = ints(3);
    if (ints(1) != std::vector<int64_t>{int64_t(i) * w} ||
        ints(2) != std::vector<int64_t>{int64_t(i + 1) * w} || !axes || axes->size() != 1 ||
        ((*axes)[0] != -1 && (*axes)[0] != last))
      return {};
    if (n.inputs.size() > 4 && !n.inputs[4].empty() && ints(4) != std::vector<int64_t>{1})
      return {};
    nodes.push_back(p);
  }
  return nodes;
}

// torchvision's sequence-first attention (see the top of this file) read
// from its Softmax `sm`: the fused node and the nodes it replaces (the last
// of them, the final Reshape, first), or nullopt.
std::optional<std::pair<ir::Node, std::vector<int>>> seq_first_attention(const DefUse& v,
                                                                         const ir::Graph& g, int sm,
                                                                         int64_t opset,
                                                                         bool packed_qkv) {
  const ir::Node& softmax = g.nodes[size_t(sm)];
  // The last axis of the 3-D scores (the default axis is 1 before opset 13).
  if (const int64_t ax = ops::schema_of(softmax, opset).attr_int(softmax, "axis");
      ax != -1 && ax != 2)
    return std::nullopt;
  const int qk = producer_of(v, g, softmax.inputs[0], "MatMul");
  if (qk < 0 || !v.only_consumer(softmax.inputs[0], sm) || g.nodes[size_t(qk)].inputs.size() != 2)
    return std::nullopt;
  const ir::Node& qk_mm = g.nodes[size_t(qk)];
  // Q's heads, scaled by a constant first or not.
  Scores sc;
  std::string q3 = qk_mm.inputs[0];
  int q_reader = qk;
  if (const int d = v.producer(q3);
      d >= 0 && ir::is_onnx_domain(g.nodes[size_t(d)].domain) && v.only_consumer(q3, qk)) {
    for (const std::string& in : g.nodes[size_t(d)].inputs)
      if (auto c = scale_of(v, g.nodes[size_t(d)], in)) {
        sc.sc = d, sc.scale = *c, q3 = in, q_reader = d;
        break;
      }
  }
  auto q = head_split(v, g, q3, q_reader, {1, 0, 2}, 3);
  auto k = head_split(v, g, qk_mm.inputs[1], qk, {1, 2, 0}, 3);
  if (!q || !k || q->shape != k->shape) return std::nullopt;
  const int pv = sole_consumer(v, g, softmax.outputs[0], "MatMul");
  if (pv < 0 || g.nodes[size_t(pv)].inputs.size() != 2 ||
      g.nodes[size_t(pv)].inputs[0] != softmax.outputs[0])
    return std::nullopt;
  auto val = head_split(v, g, g.nodes[size_t(pv)].inputs[1], pv, {1, 0, 2}, 3);
  if (!val || val->shape != q->shape) return std::nullopt;
  const int tr = sole_consumer(v, g, g.nodes[size_t(pv)].outputs[0], "Transpose");
  if (tr < 0 || perm_of(g.nodes[size_t(tr)]) != std::vector<int64_t>{1, 0, 2}) return std::nullopt;
  const int rs = sole_consumer(v, g, g.nodes[size_t(tr)].outputs[0], "Reshape");
  if (rs < 0 || g.nodes[size_t(rs)].inputs.size() != 2) return std::nullopt;
  auto out_shape = merge_shape(v.constant(g.nodes[size_t(rs)].inputs[1]));
  // Y's last dim is H * D: it tells the heads from the batch in [S, B*H, D].
  const int64_t S = q->shape[0], BH = q->shape[1], D = q->shape[2];
  if (!out_shape || out_shape->size() < 2 || out_shape->back() <= 0 || out_shape->back() % D)
    return std::nullopt;
  const int64_t H = out_shape->back() / D;
  if (BH % H) return std::nullopt;
  const Geometry geo{H, D, S, BH / H, /*seq_first=*/true};
  // Y must hold S * B * H * D elements (sizes from the model's constants:
  // products that overflow match nothing).
  int64_t known = 1, total = 0;
  bool free_dim = false;
  for (int64_t d : *out_shape)
    if (d == -1)
      free_dim = true;
    else if (__builtin_mul_overflow(known, d, &known))
      return std::nullopt;
  if (__builtin_mul_overflow(S, BH, &total) || __builtin_mul_overflow(total, D, &total) ||
      (free_dim ? total % known != 0 : known != total))
    return std::nullopt;
  std::vector<int> chain = {
      rs, q->reshape, q->transpose, k->reshape, k->transpose, val->reshape, val->transpose,
      qk, sm,         pv,           tr};
  if (sc.sc >= 0) chain.push_back(sc.sc);
  std::string packed;
  if (packed_qkv) {
    const auto slices = packed_slices(v, g, {&*q, &*k, &*val}, H * D, packed);
    if (slices.empty()) packed.clear();
    chain.insert(chain.end(), slices.begin(), slices.end());
  }
  ir::Node n = attention_node(softmax.name, geo, *q, *k, *val, sc, std::move(*out_shape),
                              g.nodes[size_t(rs)].outputs, packed);
  return std::make_pair(std::move(n), std::move(chain));
}

}  // namespace

size_t fuse_attention(ir::Model& model, ir::Graph& g, bool packed_qkv, bool seq_first) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  Matcher match(v, g, dead);
  size_t fused = 0;
  const int64_t opset = model.opset("");
  for (int sm = 0; sm < int(g.nodes.size()); ++sm) {
    const ir::Node& softmax = g.nodes[size_t(sm)];
    if (dead[size_t(sm)] || !ir::is_onnx_domain(softmax.domain) || softmax.op_type != "Softmax" ||
        softmax.inputs.empty() || softmax.outputs.size() != 1)
      continue;
    // Last axis of the 4-D scores (the default axis is 1 before opset 13).
    const int64_t ax = ops::schema_of(softmax, opset).attr_int(softmax, "axis");
    if (ax != -1 && ax != 3) continue;
    auto s = match.scores(sm);
    if (!s) {
      auto sf = seq_first ? seq_first_attention(v, g, sm, opset, packed_qkv) : std::nullopt;
      if (!sf ||
          std::any_of(sf->second.begin(), sf->second.end(), [&](int c) { return dead[size_t(c)]; }))
        continue;
      const int rs = sf->second[0];
      for (int c : sf->second) dead[size_t(c)] = c != rs;
      g.nodes[size_t(rs)] = std::move(sf->first);  // the last node: every input exists by then
      ++fused;
      continue;
    }
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
    const int split = packed_qkv ? packed_split(v, g, opset, *q, *k, *val) : -1;
    if (split >= 0) chain.push_back(split);
    bool taken = false;
    for (int c : chain) taken |= dead[size_t(c)];
    if (taken) continue;
    const Geometry geo{q->shape[2], q->shape[3], q->shape[1], q->shape[0]};
    ir::Node mha = attention_node(softmax.name, geo, *q, *k, *val, *s, std::move(*out_shape),
                                  g.nodes[size_t(rs)].outputs,
                                  split >= 0 ? g.nodes[size_t(split)].inputs[0] : "");
    for (int c : chain) dead[size_t(c)] = true;
    g.nodes[size_t(rs)] = std::move(mha);  // the last node: every input exists by then
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::optimizer
