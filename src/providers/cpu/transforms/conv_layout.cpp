// choose_conv_layout: runs chains of 2-D and 3-D convolutions and 2-D pools
// in the channel-blocked layout (linalg/nchwc.hpp, [N, ceil(C/16), H, W, 16],
// or [N, ceil(C/16), D, H, W, 16]).
//
// Why: im2col + GEMM in NCHW copies every activation into a column matrix
// and packs it again for the GEMM; the blocked kernels read the activations
// in place, 16 output channels per FMA. The gain holds only if the data stays
// blocked from one convolution to the next, so this pass converts whole
// regions at once and reorders only at their borders:
//   - Conv / com.tessera FusedConv with a constant float [M, C/group, KH, KW]
//     filter, group 1, depthwise, or groups of whole blocks (C/group and
//     M/group multiples of 16), or groups of 4 or 8 channels in and out
//     (rewritten as groups of one block, small_groups_filter), or a
//     [M, C, KD, KH, KW] one of group 1 (a video network's) -> com.tessera
//     NchwcConv. Its input is the
//     blocked value when there is one, the plain one (input_layout 0) for a
//     dense conv with at most 4 input channels (a stem), else one
//     ReorderToNchwc per value shared by every reader. A FusedConv's residual
//     is taken blocked, or reordered when its static shape is [*, M, *, *].
//   - MaxPool (one output) and AveragePool of a 2-D blocked value, and
//     GlobalAveragePool of any -> their Nchwc versions; Add, Sub and Mul of
//     two blocked values with the same logical channel count and rank (a squeeze-excitation's
//     x * scale[N, C, 1, 1] included), and Relu, LeakyRelu, HardSwish and
//     Tanh of a blocked value stay ai.onnx ops on the blocked values
//     (element-wise, and zero stays zero in the padding; broadcasting over
//     N, H and W is the same in both layouts).
//   - Concat along the channels of blocked values of one rank whose channels,
//     all but the last, fill whole blocks -> a Concat of the blocked values
//     (axis 1); an inference BatchNormalization of a 2-D blocked value -> a
//     depthwise 1x1 NchwcConv with its scale and shift (DenseNet's, after
//     each Concat), taking the activation that alone reads it.
//   - Nothing else reads blocked values: each blocked value gets a fresh name,
//     and where a plain reader, a graph output or a subgraph needs the
//     original, one ReorderFromNchwc (attribute channels) right after the
//     producer recreates it under its original name.
// The blocked values' types come from type inference of com.tessera ops (the
// first input's element type, shape unknown), so nothing trusts a 4-D shape.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "linalg/nchwc.hpp"
#include "linalg/winograd.hpp"
#include "ops/schema.hpp"
#include "optimizer/activation_match.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"

namespace tessera::cpu {

using namespace tessera::optimizer;

namespace {

struct Blocked {
  std::string name;  // the blocked value
  int64_t channels = 0;
  int64_t spatial = 2;  // its logical spatial rank: 2, or 3 (D, H, W)
};

bool is_onnx_op(const ir::Node& n, const char* op) {
  return ir::is_onnx_domain(n.domain) && n.op_type == op;
}

// The shape of `value` as far as it is known: a constant's, or a declared
// type's (a partial one has unknown dims: a dynamic batch or image size).
std::optional<std::vector<ir::Dim>> known_shape(const DefUse& v, const ir::Graph& g,
                                                const std::string& value) {
  if (const Tensor* t = v.constant(value)) {
    std::vector<ir::Dim> d;
    for (int64_t x : t->shape().dims()) d.push_back(ir::Dim{x, ""});
    return d;
  }
  const ir::ValueInfo* vi = g.find_value_info(value);
  if (!vi || !vi->type.is_tensor() || !vi->type.shape) return std::nullopt;
  return *vi->type.shape;
}

// False only when the element type of `value` is declared and not float.
bool maybe_float(const ir::Graph& g, const std::string& value) {
  const ir::ValueInfo* vi = g.find_value_info(value);
  return !vi || vi->type.kind != ir::TypeInfo::Kind::kTensor ||
         vi->type.elem_type == DataType::kUndefined || vi->type.elem_type == DataType::kFloat;
}

ir::Attribute int_attr(const char* name, int64_t value) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInt;
  a.i = value;
  return a;
}

// The size of the last axis of `value` where the graph shows it: a static
// shape, or a producer that fixes it (MatMul or MatMulBias by a constant [K, C], an
// element-wise op with a constant [C], LayerNormalization over the last axis
// with a constant [C] scale), looking through shape-keeping unary ops; -1
// when unknown. ReorderToNchwc checks it at run time (attribute channels).
int64_t last_dim_hint(const DefUse& v, const ir::Graph& g, int64_t opset, const std::string& value,
                      int depth = 4) {
  if (const auto d = known_shape(v, g, value); d && !d->empty() && d->back().value)
    return *d->back().value;
  const int p = v.producer(value);
  if (p < 0 || depth == 0) return -1;
  const ir::Node& n = g.nodes[size_t(p)];
  if (n.inputs.empty() || n.outputs.size() != 1) return -1;
  if ((is_onnx_op(n, "MatMul") && n.inputs.size() == 2) ||
      (n.domain == kTesseraDomain && n.op_type == "MatMulBias" && n.inputs.size() == 3)) {
    const Tensor* b = v.constant(n.inputs[1]);
    return b && b->rank() == 2 ? b->shape()[1] : -1;
  }
  if (is_onnx_op(n, "LayerNormalization") && n.inputs.size() >= 2 &&
      ops::schema_of(n, opset).attr_int(n, "axis") == -1) {
    const Tensor* scale = v.constant(n.inputs[1]);
    return scale && scale->rank() == 1 ? scale->shape()[0] : -1;
  }
  if ((is_onnx_op(n, "Add") || is_onnx_op(n, "Sub") || is_onnx_op(n, "Mul") ||
       is_onnx_op(n, "Div")) &&
      n.inputs.size() == 2) {
    for (size_t k = 0; k < 2; ++k)
      if (const Tensor* c = v.constant(n.inputs[k]); c && c->rank() == 1 && c->shape()[0] > 1)
        return c->shape()[0];
    for (size_t k = 0; k < 2; ++k)
      if (!v.constant(n.inputs[k])) return last_dim_hint(v, g, opset, n.inputs[k], depth - 1);
    return -1;
  }
  const bool unary = (ir::is_onnx_domain(n.domain) &&
                      (n.op_type == "Relu" || n.op_type == "Gelu" || n.op_type == "Erf" ||
                       n.op_type == "Sigmoid" || n.op_type == "Tanh")) ||
                     (n.domain == kTesseraDomain && n.op_type == "BiasGelu");
  return unary ? last_dim_hint(v, g, opset, n.inputs[0], depth - 1) : -1;
}

// A constant that multiplies or shifts each channel of a 2-D image alike:
// [C, 1, 1] or [1, C, 1, 1] float; its channel count C, else -1.
int64_t per_channel_constant(const Tensor* t) {
  if (!t || t->dtype() != DataType::kFloat) return -1;
  const auto& d = t->shape().dims();
  if (d.size() == 3 && d[1] == 1 && d[2] == 1) return d[0];
  if (d.size() == 4 && d[0] == 1 && d[2] == 1 && d[3] == 1) return d[1];
  return -1;
}

// That constant blocked: [1, blocks(C), 1, 1, 16], padded channels zero (so
// an Add keeps them zero, and a Mul too).
Tensor blocked_per_channel(const Tensor& t, int64_t C) {
  const int64_t cb = linalg::nchwc::blocks(C);
  Tensor out(DataType::kFloat, Shape{1, cb, 1, 1, 16});
  float* o = out.mutable_data<float>();
  std::fill(o, o + out.num_elements(), 0.f);
  std::copy(t.data<float>(), t.data<float>() + C, o);
  return out;
}

// True when a node reads `value` that the blocked layout may take blocked:
// a convolution, or an Add, Sub or Mul with a per-channel constant.
bool blocked_reader_likely(const DefUse& v, const ir::Graph& g, const std::string& value) {
  for (int c : v.consumers(value)) {
    const ir::Node& n = g.nodes[size_t(c)];
    if (is_onnx_op(n, "Conv") || (n.domain == kTesseraDomain && n.op_type == "FusedConv"))
      return true;
    if ((is_onnx_op(n, "Add") || is_onnx_op(n, "Sub") || is_onnx_op(n, "Mul")) &&
        n.inputs.size() == 2)
      for (const auto& in : n.inputs)
        if (per_channel_constant(v.constant(in)) > 0) return true;
  }
  return false;
}

bool has_perm(const ir::Node& n, const std::vector<int64_t>& perm) {
  const ir::Attribute* a = n.attr("perm");
  return a && a->ints == perm;
}

// The filter [M, 16, KH, KW] of a convolution with groups of `cpg` =
// W.shape[1] channels in and out (M == C, cpg dividing 16) as groups of one
// block (16 channels): each output channel reads its own group's channels
// within its block, zero weight for the block's other groups. The blocked
// kernels then do 16 / cpg times the products, all at full vector width,
// which still beats a plain grouped convolution of 4 channels (im2col and
// GEMMs of 4 rows) and the reorders around it.
Tensor small_groups_filter(const Tensor& w, int64_t group) {
  const auto& wd = w.shape().dims();
  const int64_t M = wd[0], cpg = wd[1], taps = wd[2] * wd[3], mpg = M / group;
  Tensor out(DataType::kFloat, Shape{M, 16, wd[2], wd[3]});
  float* o = out.mutable_data<float>();
  std::fill(o, o + out.num_elements(), 0.f);
  const float* in = w.data<float>();
  for (int64_t m = 0; m < M; ++m) {
    const int64_t first = (m / mpg) * cpg % 16;  // the group's first channel within the block
    for (int64_t c = 0; c < cpg; ++c)
      std::copy(in + (m * cpg + c) * taps, in + (m * cpg + c + 1) * taps,
                o + (m * 16 + first + c) * taps);
  }
  return out;
}

}  // namespace

size_t choose_conv_layout(ir::Model& model, ir::Graph& g, bool winograd, bool winograd_4x4) {
  DefUse v(g);
  const size_t n = g.nodes.size();
  std::unordered_map<std::string, Blocked> blocked;        // original value -> blocked copy
  std::unordered_map<std::string, std::string> reordered;  // plain value -> its ReorderToNchwc
  FreshNames fresh(g);                                     // node and value names alike
  std::vector<std::vector<ir::Node>> before(n);  // ReorderToNchwc nodes to place before node i
  std::vector<ir::Node> nodes(n);                // node i, converted or as it was
  // The blocked name of plain `value`, reordering it (once) before node i.
  auto to_blocked = [&](const std::string& value, size_t i) {
    auto it = reordered.find(value);
    if (it != reordered.end()) return it->second;
    ir::Node r;
    r.name = fresh("ReorderToNchwc_" + value);
    r.op_type = "ReorderToNchwc";
    r.domain = kTesseraDomain;
    r.inputs = {value};
    r.outputs = {fresh(value + "_nchwc")};
    before[i].push_back(r);
    return reordered[value] = r.outputs[0];
  };
  auto blocked_channels = [&](const std::string& value) -> int64_t {
    auto it = blocked.find(value);
    return it == blocked.end() ? -1 : it->second.channels;
  };
  auto blocked_spatial = [&](const std::string& value) -> int64_t {
    auto it = blocked.find(value);
    return it == blocked.end() ? -1 : it->second.spatial;
  };
  // Renames node i's outputs (one) to a fresh blocked value of `channels`
  // and spatial rank `spatial`.
  auto block_output = [&](ir::Node& node, int64_t channels, int64_t spatial) {
    const std::string orig = node.outputs[0];
    node.outputs[0] = fresh(orig + "_nchwc");
    blocked[orig] = {node.outputs[0], channels, spatial};
  };
  size_t converted = 0;
  // Activations folded into the NchwcConv made of the BatchNormalization
  // before them: their output is that conv's blocked value.
  std::vector<bool> absorbed(n, false);
  for (size_t i = 0; i < n; ++i) {
    const ir::Node& node = g.nodes[i];
    if (absorbed[i]) {
      blocked[node.outputs[0]] = blocked[node.inputs[0]];
      continue;
    }
    nodes[i] = node;
    ir::Node& out = nodes[i];
    const bool conv = is_onnx_op(node, "Conv");
    const bool fused = node.domain == kTesseraDomain && node.op_type == "FusedConv";
    if ((conv || fused) && node.outputs.size() == 1 && node.inputs.size() >= 2 &&
        node.inputs.size() <= 4 && !node.inputs[0].empty() && !node.outputs[0].empty()) {
      const Tensor* w = v.constant(node.inputs[1]);
      if (!w || w->dtype() != DataType::kFloat || (w->rank() != 4 && w->rank() != 5)) continue;
      const auto& wd = w->shape().dims();
      const int64_t spatial = int64_t(wd.size()) - 2;
      const int64_t group = ops::schema_of(node, model.opset(node.domain)).attr_int(node, "group");
      const int64_t M = wd[0];
      int64_t C = 0;
      // An impossible group (from a broken model) is left to the Conv kernel's error.
      if (group < 1 || __builtin_mul_overflow(wd[1], group, &C)) continue;
      if (spatial == 3 && group != 1) continue;  // the 3-D kernels are dense only
      // Group 1, depthwise, or groups of whole blocks (RegNet's, ResNeXt's
      // later stages), which run as one dense blocked convolution a group;
      // or groups of 4 or 8 channels in and out (ResNeXt's first stages),
      // several to a block, which run as groups of one block each with a
      // block-diagonal filter (small_groups_filter).
      const bool block_groups = wd[1] % 16 == 0 && M % group == 0 && (M / group) % 16 == 0;
      const bool small_groups =
          spatial == 2 && group > 1 && (wd[1] == 4 || wd[1] == 8) && M == C && C % 16 == 0;
      if (group != 1 && !(wd[1] == 1 && group == M) && !block_groups && !small_groups) continue;
      const std::string& x = node.inputs[0];
      if (!maybe_float(g, x)) continue;
      const int64_t xc = blocked_channels(x);
      // Cannot be valid; leave it to the Conv kernel.
      if (xc >= 0 && (xc != C || blocked_spatial(x) != spatial)) continue;
      if (node.inputs.size() > 2 && blocked.count(node.inputs[2])) continue;  // a bias is 1-D
      const std::string z = node.inputs.size() > 3 ? node.inputs[3] : std::string();
      if (!z.empty()) {
        const int64_t zc = blocked_channels(z);
        if (zc >= 0 && (zc != M || blocked_spatial(z) != spatial)) continue;
        if (zc < 0) {  // a plain residual is reordered only when it surely is [*, M, *, *]
          const auto zd = known_shape(v, g, z);
          if (!zd || zd->size() != wd.size() || (*zd)[1].value != M || !maybe_float(g, z)) continue;
        }
      }
      out.op_type = "NchwcConv";
      out.domain = kTesseraDomain;
      if (small_groups) {
        out.inputs[1] = fresh(node.inputs[1] + "_block_groups");
        g.initializers[out.inputs[1]] = small_groups_filter(*w, group);
        std::erase_if(out.attributes, [](const ir::Attribute& a) { return a.name == "group"; });
        out.attributes.push_back(int_attr("group", C / 16));
      }
      int64_t layout = 1;
      if (xc >= 0)
        out.inputs[0] = blocked[x].name;
      else if (group == 1 && C <= 4)
        layout = 0;
      else
        out.inputs[0] = to_blocked(x, i);
      out.attributes.push_back(int_attr("input_layout", layout));
      // 3x3 stride-1 layers run as Winograd products where the channels
      // suit (linalg/winograd.hpp): ResNet-50's layer1-3.
      const int64_t tile = linalg::nchwc::winograd_tile(C, M, winograd_4x4);
      if (winograd && tile && layout == 1 && group == 1 && spatial == 2 && wd[2] == 3 &&
          wd[3] == 3 && ints_all_or_absent(node, "strides", 1) &&
          ints_all_or_absent(node, "dilations", 1)) {
        ir::Attribute a;
        a.name = "algorithm";
        a.type = ir::AttrType::kString;
        a.s = tile == 4 ? "winograd_4x4" : "winograd_2x2";
        out.attributes.push_back(a);
      }
      if (!z.empty()) out.inputs[3] = blocked.count(z) ? blocked[z].name : to_blocked(z, i);
      block_output(out, M, spatial);
      ++converted;
      continue;
    }
    if (node.inputs.empty() || node.outputs.empty() || node.outputs[0].empty()) continue;
    // NHWC -> NCHW before a blocked reader: one copy into the blocked layout
    // (ConvNeXt's blocks end so), when the channel count is known.
    if (is_onnx_op(node, "Transpose") && node.inputs.size() == 1 && node.outputs.size() == 1 &&
        has_perm(node, {0, 3, 1, 2}) && blocked_channels(node.inputs[0]) < 0 &&
        maybe_float(g, node.inputs[0]) && blocked_reader_likely(v, g, node.outputs[0])) {
      // An image of at most 4 channels (an NHWC model's RGB input) stays a
      // plain Transpose: its convolution reads the plain value as a stem
      // does, where a 16-lane block would be 3/16 full, 5x the FMAs on the
      // slow blocked-stem tiles (ResNet-18's 7x7 stem: 28.8 ms against
      // 0.25 ms).
      const int64_t c = last_dim_hint(v, g, model.opset(""), node.inputs[0]);
      if (c <= 4) continue;
      out.op_type = "ReorderToNchwc";
      out.domain = kTesseraDomain;
      out.attributes = {int_attr("channels_last", 1), int_attr("channels", c)};
      block_output(out, c, 2);
      ++converted;
      continue;
    }
    // Add, Sub and Mul of two blocked values of one channel count and rank
    // (broadcasting over N, H and W is the same in both layouts), or of a
    // blocked value and a per-channel constant, either operand (the
    // squeeze-excitation scale, ConvNeXt's layer scale).
    if ((is_onnx_op(node, "Add") || is_onnx_op(node, "Sub") || is_onnx_op(node, "Mul")) &&
        node.inputs.size() == 2 && node.outputs.size() == 1) {
      const size_t b = blocked_channels(node.inputs[0]) >= 0 ? 0 : 1;
      const std::string &x = node.inputs[b], &other = node.inputs[1 - b];
      const int64_t c = blocked_channels(x), sp = blocked_spatial(x);
      if (c < 0) continue;
      if (blocked_channels(other) == c && blocked_spatial(other) == sp) {
        out.inputs[1 - b] = blocked[other].name;
      } else if (sp == 2 && per_channel_constant(v.constant(other)) == c) {
        out.inputs[1 - b] = fresh(other + "_nchwc");
        g.initializers[out.inputs[1 - b]] = blocked_per_channel(*v.constant(other), c);
      } else {
        continue;
      }
      out.inputs[b] = blocked[x].name;
      block_output(out, c, sp);
      ++converted;
      continue;
    }
    const int64_t xc = blocked_channels(node.inputs[0]);
    if (xc < 0) continue;
    const int64_t xs = blocked_spatial(node.inputs[0]);
    // NCHW -> NHWC of a blocked value: one copy out of the blocked layout.
    if (is_onnx_op(node, "Transpose") && node.outputs.size() == 1 && xs == 2 &&
        has_perm(node, {0, 2, 3, 1})) {
      out.op_type = "ReorderFromNchwc";
      out.domain = kTesseraDomain;
      out.inputs[0] = blocked[node.inputs[0]].name;
      out.attributes = {int_attr("channels", xc), int_attr("channels_last", 1)};
      ++converted;
      continue;
    }
    // Concat along the channels of blocked values: the blocks of each input
    // follow one another when all but the last fill whole blocks.
    // Concat-1's axis is optional (default 1); the schema holds the default.
    const int64_t concat_axis = is_onnx_op(node, "Concat")
                                    ? ops::schema_of(node, model.opset("")).attr_int(node, "axis")
                                    : 0;
    if (is_onnx_op(node, "Concat") && node.outputs.size() == 1 &&
        (concat_axis == 1 || concat_axis == -1 - xs)) {
      int64_t total = 0;
      bool ok = true;
      for (size_t k = 0; k < node.inputs.size() && ok; ++k) {
        const int64_t c = blocked_channels(node.inputs[k]);
        ok = c > 0 && (k + 1 == node.inputs.size() || c % 16 == 0) &&
             blocked_spatial(node.inputs[k]) == xs;
        total += c;
      }
      if (!ok) continue;
      for (size_t k = 0; k < node.inputs.size(); ++k) out.inputs[k] = blocked[node.inputs[k]].name;
      std::erase_if(out.attributes, [](const ir::Attribute& a) { return a.name == "axis"; });
      out.attributes.push_back(int_attr("axis", 1));  // the blocks' axis of [N, C/16, H, W, 16]
      block_output(out, total, xs);
      ++converted;
      continue;
    }
    // An inference BatchNormalization left over (after a Concat, as in
    // DenseNet: not foldable into a convolution) is a per-channel scale and
    // shift: a depthwise 1x1 convolution on the blocked value.
    if (is_onnx_op(node, "BatchNormalization") && node.inputs.size() == 5 && xs == 2) {
      auto a = bn_affine(v, node, xc, model.opset(""));
      if (!a) continue;
      Tensor w(DataType::kFloat, Shape{xc, 1, 1, 1});
      Tensor b(DataType::kFloat, Shape{xc});
      for (int64_t c = 0; c < xc; ++c) {
        const size_t k = size_t(c);
        w.mutable_data<float>()[c] = float(a->s[k]);
        b.mutable_data<float>()[c] = float(a->beta[k] - a->mean[k] * a->s[k]);
      }
      ir::Node conv;
      conv.name = node.name;
      conv.op_type = "NchwcConv";
      conv.domain = kTesseraDomain;
      conv.inputs = {blocked[node.inputs[0]].name, fresh(node.name + "_bn_scale"),
                     fresh(node.name + "_bn_shift")};
      conv.outputs = {node.outputs[0]};
      conv.attributes = {int_attr("group", xc), int_attr("input_layout", 1)};
      // DenseNet's BatchNormalization -> Relu -> Conv: the Relu is the
      // conv's epilogue instead of one more pass.
      if (auto act = match_activation(v, g, node.outputs[0], model.opset(""), true);
          act && act->nodes.size() == 1 && !v.pinned(node.outputs[0])) {
        conv.attributes.insert(conv.attributes.end(), act->attrs.begin(), act->attrs.end());
        absorbed[size_t(act->nodes[0])] = true;
      }
      g.initializers[conv.inputs[1]] = std::move(w);
      g.initializers[conv.inputs[2]] = std::move(b);
      out = std::move(conv);
      block_output(out, xc, xs);
      ++converted;
      continue;
    }
    const ir::Attribute* ks = node.attr("kernel_shape");
    const bool pool2d = node.inputs.size() == 1 && ks && ks->ints.size() == 2 && xs == 2;
    const char* nchwc_op = nullptr;
    if (is_onnx_op(node, "MaxPool") && pool2d &&
        (node.outputs.size() == 1 || (node.outputs.size() == 2 && node.outputs[1].empty())))
      nchwc_op = "NchwcMaxPool";
    else if (is_onnx_op(node, "AveragePool") && pool2d && node.outputs.size() == 1)
      nchwc_op = "NchwcAveragePool";
    else if (is_onnx_op(node, "GlobalAveragePool") && node.inputs.size() == 1 &&
             node.outputs.size() == 1)
      nchwc_op = "NchwcGlobalAveragePool";
    if (nchwc_op) {
      out.op_type = nchwc_op;
      out.domain = kTesseraDomain;
      out.outputs.resize(1);
      std::erase_if(out.attributes,
                    [](const ir::Attribute& a) { return a.name == "storage_order"; });
    } else if ((is_onnx_op(node, "Relu") || is_onnx_op(node, "LeakyRelu") ||
                is_onnx_op(node, "HardSwish") || is_onnx_op(node, "Tanh")) &&
               node.inputs.size() == 1 && node.outputs.size() == 1) {
    } else {
      continue;
    }
    out.inputs[0] = blocked[node.inputs[0]].name;
    block_output(out, xc, xs);
    ++converted;
  }
  if (!converted) return 0;

  // Originals still read as such: by a node left plain, a graph output or a subgraph.
  std::unordered_set<std::string> needed;
  for (size_t i = 0; i < n; ++i)
    for (const auto& in : nodes[i].inputs)
      if (!absorbed[i] && blocked.count(in)) needed.insert(in);
  for (const auto& [orig, b] : blocked)
    if (v.pinned(orig)) needed.insert(orig);

  std::vector<ir::Node> result;
  result.reserve(n + converted);
  for (size_t i = 0; i < n; ++i) {
    for (auto& r : before[i]) result.push_back(std::move(r));
    const std::string orig = g.nodes[i].outputs.empty() ? std::string() : g.nodes[i].outputs[0];
    if (!absorbed[i]) result.push_back(std::move(nodes[i]));
    if (orig.empty() || !needed.count(orig) || !blocked.count(orig)) continue;
    ir::Node r;
    r.name = fresh("ReorderFromNchwc_" + orig);
    r.op_type = "ReorderFromNchwc";
    r.domain = kTesseraDomain;
    r.inputs = {blocked[orig].name};
    r.outputs = {orig};
    r.attributes.push_back(int_attr("channels", blocked[orig].channels));
    result.push_back(std::move(r));
  }
  g.nodes = std::move(result);
  import_tessera_domain(model);
  return converted;
}

}  // namespace tessera::cpu
