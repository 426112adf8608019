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
#include "optimizer/graph_view.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// A constant positive float scalar scale and an 8-bit scalar zero point
// (inputs 1 and 2 of a QuantizeLinear or DequantizeLinear).
bool simple_params(const GraphView& v, const ir::Node& n, const Tensor** s, const Tensor** z) {
  if (n.inputs.size() < 3 || n.outputs.size() != 1 || attr_int(n, "block_size", 0) != 0)
    return false;
  *s = v.constant(n.inputs[1]);
  *z = v.constant(n.inputs[2]);
  return *s && *z && (*s)->dtype() == DataType::kFloat && (*s)->num_elements() == 1 &&
         (*s)->data<float>()[0] > 0.f && is_8bit_integer_type((*z)->dtype()) &&
         (*z)->num_elements() == 1;
}

bool same_params(const Tensor* s1, const Tensor* z1, const Tensor* s2, const Tensor* z2) {
  const float a = s1->data<float>()[0], b = s2->data<float>()[0];
  return std::memcmp(&a, &b, sizeof(float)) == 0 && z1->dtype() == z2->dtype() &&
         z1->element_as_double(0) == z2->element_as_double(0);
}

// A Clip's constant float scalar bounds (-inf / +inf where omitted), or
// nothing when a bound is not a constant finite-or-infinite scalar.
std::optional<std::pair<float, float>> clip_bounds(const GraphView& v, const ir::Node& clip) {
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

}  // namespace

// A Relu or constant Clip read only by a QuantizeLinear whose whole range
// already lies inside its bounds does nothing: Q(Clip(x, lo, hi)) is
// clamp(Q(x), Q(lo), Q(hi)), and Q(x) already saturates there. (Calibrated
// quantizers give a Relu6's output exactly that range.) The Q reads the
// activation's input instead.
size_t drop_saturated_activations(ir::Graph& g) {
  GraphView v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t dropped = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    ir::Node& q = g.nodes[size_t(i)];
    const Tensor *s = nullptr, *z = nullptr;
    if (!ir::is_onnx_domain(q.domain) || q.op_type != "QuantizeLinear" ||
        !simple_params(v, q, &s, &z) || attr_int(q, "saturate", 1) != 1 ||
        attr_int(q, "output_dtype", 0) != 0)
      continue;
    int act = producer_of(v, g, q.inputs[0], "Relu");
    if (act < 0) act = producer_of(v, g, q.inputs[0], "Clip");
    if (act < 0 || dead[size_t(act)] || sole_consumer(v, g, q.inputs[0], "QuantizeLinear") != i)
      continue;
    const ir::Node& a = g.nodes[size_t(act)];
    std::optional<std::pair<float, float>> b =
        std::pair{0.0f, std::numeric_limits<float>::infinity()};
    if (a.op_type == "Clip") b = clip_bounds(v, a);
    if (!b) continue;
    const bool is_signed = z->dtype() == DataType::kInt8;
    const int32_t lowest = is_signed ? -128 : 0, top = is_signed ? 127 : 255;
    const int32_t zp = int32_t(z->element_as_double(0));
    const float scale = s->data<float>()[0];
    if (quantize_bound(b->first, scale, zp, lowest, top) != lowest ||
        quantize_bound(b->second, scale, zp, lowest, top) != top)
      continue;
    q.inputs[0] = a.inputs[0];
    dead[size_t(act)] = true;
    ++dropped;
  }
  if (dropped) erase_nodes(g, dead);
  return dropped;
}

size_t fuse_quantize_pairs(ir::Model& model, ir::Graph& g) {
  if (model.opset("") < 12) return 0;  // Max and Clip on 8-bit tensors
  const size_t dropped = drop_saturated_activations(g);
  GraphView v(g);
  std::unordered_set<std::string> outputs;
  for (const auto& o : g.outputs) outputs.insert(o.name);
  std::vector<bool> dead(g.nodes.size(), false);
  std::unordered_map<std::string, std::string> rename;
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& q = g.nodes[size_t(i)];
    const Tensor *s2 = nullptr, *z2 = nullptr, *s1 = nullptr, *z1 = nullptr;
    if (dead[size_t(i)] || !ir::is_onnx_domain(q.domain) || q.op_type != "QuantizeLinear" ||
        !simple_params(v, q, &s2, &z2) || attr_int(q, "saturate", 1) != 1 ||
        attr_int(q, "output_dtype", 0) != 0)
      continue;
    // Q's input: DQ's output, or a Relu or Clip of it; each read by the next alone.
    int act = producer_of(v, g, q.inputs[0], "Relu");
    if (act < 0) act = producer_of(v, g, q.inputs[0], "Clip");
    if (act >= 0 && sole_consumer(v, g, q.inputs[0], "QuantizeLinear") != i) act = -1;
    std::optional<std::pair<float, float>> bounds;  // the Clip's, when act is one
    if (act >= 0 && g.nodes[size_t(act)].op_type == "Clip") {
      bounds = clip_bounds(v, g.nodes[size_t(act)]);
      if (!bounds) act = -1;
    }
    const std::string& dq_out = act >= 0 ? g.nodes[size_t(act)].inputs[0] : q.inputs[0];
    const int d = producer_of(v, g, dq_out, "DequantizeLinear");
    if (d < 0 || dead[size_t(d)] || (act >= 0 && dead[size_t(act)])) continue;
    const ir::Node& dq = g.nodes[size_t(d)];
    if (!simple_params(v, dq, &s1, &z1) || !same_params(s1, z1, s2, z2) ||
        sole_consumer(v, g, dq_out,
                      act >= 0 ? g.nodes[size_t(act)].op_type.c_str() : "QuantizeLinear") < 0)
      continue;
    const std::string& q_in = dq.inputs[0];
    // The integer range the activation leaves: Relu keeps [z, top], Clip
    // [Q(lo), Q(hi)] (Q is monotonic, so clipping before it is clamping after
    // it). A bound at the type's end leaves nothing to do there.
    const bool is_signed = z2->dtype() == DataType::kInt8;
    const int32_t lowest = is_signed ? -128 : 0, top = is_signed ? 127 : 255;
    const int32_t zp = int32_t(z2->element_as_double(0));
    int32_t lo = lowest, hi = top;
    if (act >= 0 && !bounds) lo = zp;
    if (bounds) {
      lo = quantize_bound(bounds->first, s2->data<float>()[0], zp, lowest, top);
      hi = quantize_bound(bounds->second, s2->data<float>()[0], zp, lowest, top);
    }
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
          const std::string name = fresh_name(g, q.name + "_bound");
          Tensor t(z2->dtype(), Shape{});
          if (is_signed)
            t.mutable_data<int8_t>()[0] = int8_t(b);
          else
            t.mutable_data<uint8_t>()[0] = uint8_t(b);
          g.initializers[name] = t;
          f.inputs.push_back(name);
        }
      }
      f.outputs = q.outputs;
      g.nodes[size_t(i)] = std::move(f);
    }
    dead[size_t(d)] = true;
    if (act >= 0) dead[size_t(act)] = true;
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
  GraphView v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& q = g.nodes[size_t(i)];
    const Tensor *s2 = nullptr, *z2 = nullptr, *s1 = nullptr, *z1 = nullptr;
    if (dead[size_t(i)] || !ir::is_onnx_domain(q.domain) || q.op_type != "QuantizeLinear" ||
        !simple_params(v, q, &s2, &z2) || attr_int(q, "saturate", 1) != 1 ||
        attr_int(q, "output_dtype", 0) != 0 || attr_int(q, "precision", 0) != 0)
      continue;
    int act = producer_of(v, g, q.inputs[0], "Relu");
    if (act < 0) act = producer_of(v, g, q.inputs[0], "Clip");
    if (act >= 0 && (dead[size_t(act)] || sole_consumer(v, g, q.inputs[0], "QuantizeLinear") != i))
      act = -1;
    std::pair<float, float> bounds = {0.0f, std::numeric_limits<float>::infinity()};  // Relu
    if (act >= 0 && g.nodes[size_t(act)].op_type == "Clip") {
      auto b = clip_bounds(v, g.nodes[size_t(act)]);
      if (!b) act = -1;
      if (b) bounds = *b;
    }
    const std::string& dq_out = act >= 0 ? g.nodes[size_t(act)].inputs[0] : q.inputs[0];
    const int d = producer_of(v, g, dq_out, "DequantizeLinear");
    if (d < 0 || dead[size_t(d)]) continue;
    const ir::Node& dq = g.nodes[size_t(d)];
    if (!simple_params(v, dq, &s1, &z1) || attr_int(dq, "output_dtype", 0) != 0 ||
        sole_consumer(v, g, dq_out,
                      act >= 0 ? g.nodes[size_t(act)].op_type.c_str() : "QuantizeLinear") < 0)
      continue;
    // The table: the three kernels' own loops (and the activation's formula)
    // over every input byte.
    uint8_t bytes[256];
    float real[256];
    for (int b = 0; b < 256; ++b) bytes[b] = uint8_t(b);
    linalg::dequantize_8bit(bytes, z1->dtype() == DataType::kInt8, 256, s1->data<float>()[0],
                            float(z1->element_as_double(0)), real);
    if (act >= 0)
      for (float& r : real) r = std::min(std::max(r, bounds.first), bounds.second);
    Tensor table(z2->dtype(), Shape{256});
    const float ys = s2->data<float>()[0], yz = float(z2->element_as_double(0));
    if (z2->dtype() == DataType::kUInt8)
      linalg::quantize_u8(real, 256, ys, yz, table.mutable_data<uint8_t>());
    else
      linalg::quantize_s8(real, 256, ys, yz, table.mutable_data<int8_t>());
    const std::string table_name = fresh_name(g, q.name + "_table");
    g.initializers[table_name] = table;
    ir::Node f;
    f.name = q.name + "_lookup";
    f.op_type = "QuantizedLookup";
    f.domain = kTesseraDomain;
    f.inputs = {dq.inputs[0], table_name};
    f.outputs = q.outputs;
    dead[size_t(d)] = true;
    if (act >= 0) dead[size_t(act)] = true;
    g.nodes[size_t(i)] = std::move(f);
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::optimizer
