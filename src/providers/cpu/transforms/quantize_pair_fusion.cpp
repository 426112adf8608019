// QuantizeLinear(DequantizeLinear(q)) with the same scale and zero point is
// q itself, and with a Relu or a constant Clip between them it is
// Clip(q, lo, hi) of the quantized bounds (q itself again when they are the
// type's ends): the
// round trip through float between two quantized operators (QOperator and
// QDQ models have one after nearly every convolution) becomes nothing, or
// one pass over bytes.
//
// Exact: for an integer a = q - z and a scale s > 0, (a * s) / s rounds to a
// (the float error is far below one half), and Q clamps q back to itself;
// Relu passes a * s when a >= 0 and gives 0, which quantizes to z, else;
// Clip and Q are both monotonic, so Q(Clip(x, lo, hi)) = clamp(Q(x), Q(lo),
// Q(hi)).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/quant_types.hpp"
#include "linalg/quantize.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"
#include "providers/cpu/transforms/quant_match.hpp"

namespace tessera::cpu {

using namespace tessera::optimizer;

namespace {

bool same_params(const Tensor* s1, const Tensor* z1, const Tensor* s2, const Tensor* z2) {
  const float a = s1->data<float>()[0], b = s2->data<float>()[0];
  return std::memcmp(&a, &b, sizeof(float)) == 0 && z1->dtype() == z2->dtype() &&
         z1->element_as_double(0) == z2->element_as_double(0);
}

// A Clip's constant float scalar bounds (-inf / +inf where omitted), or
// nothing when a bound is not a constant finite-or-infinite scalar.
std::optional<std::pair<float, float>> clip_bounds(const DefUse& v, const ir::Node& clip) {
  std::pair<float, float> b = {-std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::infinity()};
  for (size_t k = 1; k < 3; ++k) {
    if (k >= clip.inputs.size() || clip.inputs[k].empty()) continue;
    const Tensor* t = v.constant(clip.inputs[k]);
    if (!t || t->dtype() != DataType::kFloat || t->num_elements() != 1) return std::nullopt;
    const float x = t->data<float>()[0];
    if (std::isnan(x)) return std::nullopt;
    (k == 1 ? b.first : b.second) = x;
  }
  return b;
}

// QuantizeLinear's arithmetic on one value: saturate(nearbyint(x / s) + z),
// in float as its kernel computes it.
int32_t quantize_bound(float x, float s, int32_t z, int32_t lowest, int32_t top) {
  const float r = std::nearbyint(x / s) + float(z);
  return r <= float(lowest) ? lowest : r >= float(top) ? top : int32_t(r);
}

// 8-bit ranges.
int32_t lowest_of(DataType t) { return t == DataType::kInt8 ? -128 : 0; }
int32_t top_of(DataType t) { return t == DataType::kInt8 ? 127 : 255; }

// QuantizeLinear(act(DequantizeLinear(x))), each value read by the next
// alone; act is a Relu, a Clip of constant bounds, or nothing.
struct Chain {
  int q = -1, act = -1, dq = -1;
  std::pair<float, float> bounds = {-std::numeric_limits<float>::infinity(),
                                    std::numeric_limits<float>::infinity()};
  const Tensor *s1 = nullptr, *z1 = nullptr, *s2 = nullptr, *z2 = nullptr;  // DQ's, Q's
};

// The activation only node q reads (act -1 when there is none, or it is a
// Clip whose bounds are not constant).
Chain activation_into(const DefUse& v, const ir::Graph& g, int q, const std::vector<bool>& dead) {
  Chain c;
  c.q = q;
  const std::string& in = g.nodes[size_t(q)].inputs[0];
  int act = producer_of(v, g, in, "Relu");
  if (act < 0) act = producer_of(v, g, in, "Clip");
  if (act < 0 || dead[size_t(act)] || sole_consumer(v, g, in, "QuantizeLinear") != q) return c;
  if (g.nodes[size_t(act)].op_type == "Relu") {
    c.bounds.first = 0.0f;
  } else {
    auto b = clip_bounds(v, g.nodes[size_t(act)]);
    if (!b) return c;
    c.bounds = *b;
  }
  c.act = act;
  return c;
}

std::optional<Chain> dq_act_q(const DefUse& v, const ir::Graph& g, int i,
                              const std::vector<bool>& dead) {
  const Tensor *s2 = nullptr, *z2 = nullptr;
  if (dead[size_t(i)] || !plain_quantize(v, g.nodes[size_t(i)], &s2, &z2)) return std::nullopt;
  Chain c = activation_into(v, g, i, dead);
  const std::string& dq_out =
      c.act >= 0 ? g.nodes[size_t(c.act)].inputs[0] : g.nodes[size_t(i)].inputs[0];
  c.dq = producer_of(v, g, dq_out, "DequantizeLinear");
  if (c.dq < 0 || dead[size_t(c.dq)]) return std::nullopt;
  const ir::Node& dq = g.nodes[size_t(c.dq)];
  const char* reader = c.act >= 0 ? g.nodes[size_t(c.act)].op_type.c_str() : "QuantizeLinear";
  if (!plain_dequantize(v, dq, &c.s1, &c.z1) || sole_consumer(v, g, dq_out, reader) < 0)
    return std::nullopt;
  c.s2 = s2, c.z2 = z2;
  return c;
}

// The integer range [Q(lo), Q(hi)] of a chain's activation bounds, in its
// QuantizeLinear's arithmetic.
std::pair<int32_t, int32_t> quantized_bounds(const Chain& c) {
  const DataType t = c.z2->dtype();
  const float s = c.s2->data<float>()[0];
  const int32_t z = int32_t(c.z2->element_as_double(0));
  return {quantize_bound(c.bounds.first, s, z, lowest_of(t), top_of(t)),
          quantize_bound(c.bounds.second, s, z, lowest_of(t), top_of(t))};
}

// A Relu or constant Clip read only by a QuantizeLinear whose whole range
// already lies inside its bounds does nothing: Q(Clip(x, lo, hi)) is
// clamp(Q(x), Q(lo), Q(hi)), and Q(x) already saturates there. (Calibrated
// quantizers give a Relu6's output exactly that range.) The Q reads the
// activation's input instead.
size_t drop_saturated_activations(ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t dropped = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const Tensor *s = nullptr, *z = nullptr;
    if (!plain_quantize(v, g.nodes[size_t(i)], &s, &z)) continue;
    Chain c = activation_into(v, g, i, dead);
    if (c.act < 0) continue;
    c.s2 = s, c.z2 = z;
    const DataType t = z->dtype();
    if (quantized_bounds(c) != std::pair{lowest_of(t), top_of(t)}) continue;
    g.nodes[size_t(i)].inputs[0] = g.nodes[size_t(c.act)].inputs[0];
    dead[size_t(c.act)] = true;
    ++dropped;
  }
  if (dropped) erase_nodes(g, dead);
  return dropped;
}

}  // namespace

size_t fuse_quantize_pairs(ir::Model& model, ir::Graph& g) {
  if (model.opset("") < 12) return 0;  // Max and Clip on 8-bit tensors
  const size_t dropped = drop_saturated_activations(g);
  DefUse v(g);
  FreshNames fresh(g);
  std::unordered_set<std::string> outputs;
  for (const auto& o : g.outputs) outputs.insert(o.name);
  std::vector<bool> dead(g.nodes.size(), false);
  std::unordered_map<std::string, std::string> rename;
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    auto c = dq_act_q(v, g, i, dead);
    if (!c || !same_params(c->s1, c->z1, c->s2, c->z2)) continue;
    const ir::Node& q = g.nodes[size_t(i)];
    const ir::Node& dq = g.nodes[size_t(c->dq)];
    const std::string& q_in = dq.inputs[0];
    // The integer range the activation leaves: Relu keeps [z, top], Clip
    // [Q(lo), Q(hi)] (Q is monotonic, so clipping before it is clamping after
    // it). A bound at the type's end leaves nothing to do there.
    const DataType t = c->z2->dtype();
    const int32_t lowest = lowest_of(t), top = top_of(t);
    const auto [lo, hi] = quantized_bounds(*c);
    const bool clamp = lo != lowest || hi != top;
    if (!clamp && !outputs.count(q.outputs[0]) && !v.pinned(q.outputs[0])) {
      // Q(DQ(q)) is q: its readers read q.
      rename[q.outputs[0]] = q_in;
      dead[size_t(i)] = true;
    } else {
      ir::Node f;
      f.name = q.name + (clamp ? "_clamp" : "_identity");
      f.op_type = clamp ? "Clip" : "Identity";
      f.inputs = {q_in};
      if (clamp) {
        // Clip(q, lo, hi) on q's type: min(max(q, lo), hi), as Clip reads
        // them (so lo > hi gives hi, as clipping the floats would).
        for (int32_t b : {lo, hi}) {
          const std::string name = fresh(q.name + "_bound");
          Tensor bound(t, Shape{});
          if (t == DataType::kInt8)
            bound.mutable_data<int8_t>()[0] = int8_t(b);
          else
            bound.mutable_data<uint8_t>()[0] = uint8_t(b);
          g.initializers[name] = bound;
          f.inputs.push_back(name);
        }
      }
      f.outputs = q.outputs;
      g.nodes[size_t(i)] = std::move(f);
    }
    dead[size_t(c->dq)] = true;
    if (c->act >= 0) dead[size_t(c->act)] = true;
    ++fused;
  }
  if (!fused) return dropped;
  // (A chain of removed pairs renames through each in turn.)
  for (auto& n : g.nodes)
    for (auto& in : n.inputs)
      for (auto it = rename.find(in); it != rename.end(); it = rename.find(in)) in = it->second;
  erase_nodes(g, dead);
  return dropped + fused;
}

size_t fuse_quantize_lookups(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  FreshNames fresh(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    auto c = dq_act_q(v, g, i, dead);
    if (!c) continue;
    const ir::Node& q = g.nodes[size_t(i)];
    const ir::Node& dq = g.nodes[size_t(c->dq)];
    // The table: the three kernels' own loops (and the activation's formula)
    // over every input byte.
    uint8_t bytes[256];
    float real[256];
    for (int b = 0; b < 256; ++b) bytes[b] = uint8_t(b);
    linalg::dequantize_8bit(bytes, c->z1->dtype() == DataType::kInt8, 256, c->s1->data<float>()[0],
                            float(c->z1->element_as_double(0)), real);
    if (c->act >= 0)
      for (float& r : real) r = std::min(std::max(r, c->bounds.first), c->bounds.second);
    Tensor table(c->z2->dtype(), Shape{256});
    const float ys = c->s2->data<float>()[0], yz = float(c->z2->element_as_double(0));
    if (c->z2->dtype() == DataType::kUInt8)
      linalg::quantize_u8(real, 256, ys, yz, table.mutable_data<uint8_t>());
    else
      linalg::quantize_s8(real, 256, ys, yz, table.mutable_data<int8_t>());
    const std::string table_name = fresh(q.name + "_table");
    g.initializers[table_name] = table;
    ir::Node f;
    f.name = q.name + "_lookup";
    f.op_type = "QuantizedLookup";
    f.domain = kTesseraDomain;
    f.inputs = {dq.inputs[0], table_name};
    f.outputs = q.outputs;
    dead[size_t(c->dq)] = true;
    if (c->act >= 0) dead[size_t(c->act)] = true;
    g.nodes[size_t(i)] = std::move(f);
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::cpu
