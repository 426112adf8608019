// Contrib ops with CPU kernels: com.microsoft's (ONNX Runtime's contrib
// operators, by their documented interface) and com.tessera's, which
// Tessera's optimizer and the CPU provider's transforms make. Fused ops keep
// the attributes of the ops they replace plus `activation` and
// `activation_params` (fused_activation.hpp). Output types:
// type_inference.cpp's contrib rules.
#include "ops/broadcast.hpp"
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

const std::vector<DataType>& halfs() {  // float, float16, bfloat16
  static const std::vector<DataType> v = {DataType::kFloat, DataType::kFloat16,
                                          DataType::kBFloat16};
  return v;
}

// The shape of inputs a and b broadcast together, for every output.
OutShapes broadcast_pair(const ShapeQuery& q, size_t a, size_t b) {
  const Shape* x = shape_of(q, a);
  const Shape* y = shape_of(q, b);
  if (!x || !y) return {};
  try {
    return OutShapes(q.num_outputs(), broadcast_shapes({*x, *y}));
  } catch (const Error& e) {
    q.fail(e.what());
  }
}

OutShapes first_as_input0(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  return {*x};
}

// input [B, S, D] with weights [D, hidden_q + hidden_k + hidden_v] ->
// output [B, S, hidden_v] (qkv_hidden_sizes, or a third of the weights').
OutShapes ms_attention(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* w = shape_of(q, 1);
  if (!x || !w) return {};
  if (x->rank() != 3 || w->rank() != 2 || (*w)[0] != (*x)[2])
    q.fail("input [B, S, D] and weights [D, 3 * hidden] do not fit: ", q.input_desc(0), ", ",
           q.input_desc(1));
  const std::vector<int64_t> sizes = q.attr_ints("qkv_hidden_sizes");
  if (!sizes.empty() && sizes.size() != 3)
    q.fail("qkv_hidden_sizes ", Shape(sizes).to_string(), " must hold 3 values");
  const int64_t hv = sizes.empty() ? (*w)[1] / 3 : sizes[2];
  return {Shape{(*x)[0], (*x)[1], hv}, std::nullopt};  // present: the past's length
}

// query [B, S, D] with key given -> [B, S, D]; packed QKV (no key)
// [B, S, (N + 2 * kvN) * H] -> [B, S, N * H]. The caches' length follows
// from seqlens_k and total_sequence_length.
OutShapes group_query_attention(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  if (x->rank() != 3) q.fail("query must be [B, S, hidden]: ", q.input_desc(0));
  if (q.has_input(1)) return {*x};
  const int64_t n = q.attr_int("num_heads"), kv = q.attr_int("kv_num_heads");
  if (n <= 0 || kv <= 0 || n > INT64_MAX / 4 || kv > INT64_MAX / 4 || (*x)[2] % (n + 2 * kv) != 0)
    q.fail("packed query ", q.input_desc(0), " does not hold num_heads ", n, " + 2 x kv_num_heads ",
           kv, " heads");
  return {Shape{(*x)[0], (*x)[1], n * ((*x)[2] / (n + 2 * kv))}};
}

// input_ids [B, S], word_embedding [V, H] -> output [B, S, H], mask_index [B],
// embedding_sum [B, S, H].
OutShapes embed_layer_norm(const ShapeQuery& q) {
  const Shape* ids = shape_of(q, 0);
  const Shape* word = shape_of(q, 2);
  if (!ids || !word) return {};
  if (ids->rank() != 2 || word->rank() != 2)
    q.fail("input_ids [B, S] and word_embedding [V, H] expected: ", q.input_desc(0), ", ",
           q.input_desc(2));
  const Shape y{(*ids)[0], (*ids)[1], (*word)[1]};
  OutShapes out = {y, Shape{(*ids)[0]}, y};
  out.resize(q.num_outputs());
  return out;
}

// A [..., K] -> [..., N]
OutShapes matmul_nbits(const ShapeQuery& q) {
  const Shape* a = shape_of(q, 0);
  if (!a) return {};
  const int64_t k = q.attr_int("K"), n = q.attr_int("N");
  if (a->rank() == 0 || (*a)[a->rank() - 1] != k) q.fail(q.input_desc(0), " must end in K = ", k);
  if (n < 0) q.fail("N ", n, " is negative");
  std::vector<int64_t> out = a->dims();
  out.back() = n;
  return {Shape(out)};
}

// output_shape as the fusion recorded it; a -1 (the batch, when the fusion
// left it open) is the kernel's.
OutShapes multi_head_attention(const ShapeQuery& q) {
  const std::vector<int64_t> s = q.attr_ints("output_shape");
  if (s.empty()) return {};
  for (int64_t d : s)
    if (d < 0) return {};
  return {Shape(s)};
}

std::vector<AttrDef> with_activation(std::vector<AttrDef> a) {
  a.push_back(string_attr("activation", ""));
  a.push_back(optional_attr("activation_params", AttrType::kFloats));
  return a;
}

OutShapes conv(const ShapeQuery& q) { return conv_of(q, 0, 1); }
OutShapes matmul(const ShapeQuery& q) { return matmul_of(q, 0, 1); }
OutShapes skip_layer_norm(const ShapeQuery& q) { return broadcast_pair(q, 0, 1); }
OutShapes dequantize_add(const ShapeQuery& q) { return broadcast_pair(q, 0, 3); }

void add_microsoft(std::vector<OpSchema>& t) {
  const std::string ms = "com.microsoft";
  t.push_back(
      {ms,
       "Attention",
       1,
       {int_attr("do_rotary", 0), float_attr("mask_filter_value", -10000.0f),
        required_attr("num_heads", AttrType::kInt), int_attr("past_present_share_buffer", 0),
        optional_attr("qkv_hidden_sizes", AttrType::kInts), int_attr("rotary_embedding_dim", 0),
        optional_attr("scale", AttrType::kFloat), int_attr("unidirectional", 0)},
       {{"T", {0, 1, 2, 4, 5}, {0, 1}, halfs()}, {"M", {3, 6}, {}, {DataType::kInt32}}},
       nullptr,
       ms_attention});
  t.push_back(
      {ms,
       "GroupQueryAttention",
       1,
       {int_attr("do_rotary", 0), required_attr("kv_num_heads", AttrType::kInt),
        int_attr("local_window_size", -1), required_attr("num_heads", AttrType::kInt),
        int_attr("qk_output", 0), int_attr("rotary_interleaved", 0),
        optional_attr("scale", AttrType::kFloat), int_attr("smooth_softmax", 0),
        float_attr("softcap", 0.0f)},
       {{"T", {0, 1, 2, 3, 4, 7, 8}, {0, 1, 2}, halfs()}, {"M", {5, 6}, {}, {DataType::kInt32}}},
       nullptr,
       group_query_attention});
  t.push_back(
      {ms,
       "RotaryEmbedding",
       1,
       {int_attr("interleaved", 0), int_attr("is_packed_batching", 0), int_attr("num_heads", 0),
        int_attr("rotary_embedding_dim", 0), float_attr("scale", 1.0f)},
       {{"T", {0, 2, 3}, {0}, halfs()}, {"M", {1}, {}, int64_type()}},
       nullptr,
       same_shape_as_input0});
  t.push_back({ms,
               "EmbedLayerNormalization",
               1,
               {float_attr("epsilon", 1e-12f), int_attr("mask_index_type", 1)},
               {{"T1", {0, 1, 7, 8}, {}, {DataType::kInt32}},
                {"T", {2, 3, 4, 5, 6}, {0, 2}, {DataType::kFloat, DataType::kFloat16}},
                {"M", {}, {1}, {DataType::kInt32}}},
               nullptr,
               embed_layer_norm});
  t.push_back({ms,
               "MatMulNBits",
               1,
               {required_attr("K", AttrType::kInt), required_attr("N", AttrType::kInt),
                int_attr("accuracy_level", 0), int_attr("bits", 4),
                required_attr("block_size", AttrType::kInt)},
               {{"T1", {0, 2, 5}, {0}, halfs()},
                {"T2", {1}, {}, {DataType::kUInt8}},
                {"T3",
                 {3},
                 {},
                 {DataType::kUInt8, DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}},
                {"T4", {4}, {}, {DataType::kInt32}}},
               nullptr,
               matmul_nbits});
  // Gathered like Gather along gather_axis, but uint8 data packs 8 / bits
  // values a byte, which the rule (seeing no element types) cannot unpack.
  t.push_back({ms,
               "GatherBlockQuantized",
               1,
               {int_attr("bits", 4), int_attr("block_size", 128), int_attr("gather_axis", 0),
                int_attr("quantize_axis", 1)},
               {{"T1", {0, 3}, {}, {DataType::kUInt8, DataType::kInt4, DataType::kUInt4}},
                {"Tind", {1}, {}, index_types()},
                {"T2", {2}, {0}, halfs()}},
               nullptr,
               unknown_shapes});
}

void add_tessera(std::vector<OpSchema>& t) {
  const std::string ts = "com.tessera";
  const TypeParam fl = same_type(float_types());
  auto add = [&](const char* op, std::vector<AttrDef> attrs, std::vector<TypeParam> types,
                 ShapeRule rule) {
    t.push_back({ts, op, 1, std::move(attrs), std::move(types), nullptr, rule});
  };
  // Conv [+ Z] [+ activation]; Gemm + activation; MatMul + bias [+ activation].
  add("FusedConv", with_activation(conv_attrs()), {{"T", {0, 1, 2, 3}, {0}, float_types()}}, conv);
  add("FusedGemm",
      with_activation({float_attr("alpha", 1.0f), float_attr("beta", 1.0f), int_attr("transA", 0),
                       int_attr("transB", 0)}),
      {{"T", {0, 1, 2}, {0}, float_types()}}, gemm_shapes);
  add("MatMulBias", with_activation({}), {{"T", {0, 1, 2}, {0}, float_types()}}, matmul);
  // Standard Gelu and LayerNormalization, below the opsets that define them.
  add("Gelu", {string_attr("approximate", "none")}, {fl}, same_shape_as_input0);
  add("BiasGelu", {}, {{"T", {0, 1}, {0}, float_types()}}, same_shape_as_input0);
  add("LayerNormalization",
      {int_attr("axis", -1), float_attr("epsilon", 1e-5f), int_attr("stash_type", 1)},
      {{"T", {0, 1, 2}, {0}, float_types()}, {"U", {}, {1, 2}, float_types(), false, "stash_type"}},
      first_as_input0);
  // X + skip (+ bias), normalized over the last axis.
  add("SkipLayerNormalization", {float_attr("epsilon", 1e-5f)},
      {{"T", {0, 1, 2, 3, 4}, {0}, float_types()}}, skip_layer_norm);
  add("MultiHeadAttention",
      {optional_attr("batch", AttrType::kInt), required_attr("head_size", AttrType::kInt),
       float_attr("masked_value", 0.0f), required_attr("num_heads", AttrType::kInt),
       optional_attr("output_shape", AttrType::kInts), int_attr("packed_qkv", 0),
       required_attr("scale", AttrType::kFloat), int_attr("seq_first", 0),
       required_attr("seq_len", AttrType::kInt)},
      {{"T", {0, 1, 2}, {0}, float_types()}, {"M", {4}, {}, bool_type()}}, multi_head_attention);
  // MatMulInteger (A, B, their zero points) times a float scale (+ bias).
  add("MatMulIntegerToFloat", {},
      {{"T1", {0, 2}, {}, int8_types()},
       {"T2", {1, 3}, {}, int8_types()},
       {"T", {4, 5}, {0}, float_types()}},
      matmul);
  // DequantizeLinear(A) + B [-> Relu] [-> QuantizeLinear]: C and Q shaped
  // like A and B broadcast.
  // C is float; Q has Y_zero_point's (input 7) type.
  add("DequantizeAdd", {int_attr("relu", 0)},
      {{"T1", {0, 2}, {}, int8_types()},
       {"C", {}, {0}, float_type()},
       {"T2", {7}, {1}, int8_types()}},
      dequantize_add);
  // An 8-bit tensor mapped through a 256-entry table (input 1).
  add("QuantizedLookup", {}, {{"T1", {0}, {}, int8_types()}, {"T2", {1}, {0}, int8_types()}},
      same_shape_as_input0);
  // The channel-blocked layout: blocks of the CPU's vector width, chosen at
  // start-up, so no shape of theirs is known before the kernel runs.
  const TypeParam f32{"T", {0}, {0}, float_type()};
  add("ReorderToNchwc", {int_attr("channels_last", 0)}, {f32}, unknown_shapes);
  add("ReorderFromNchwc", {optional_attr("channels", AttrType::kInt), int_attr("channels_last", 0)},
      {f32}, unknown_shapes);
  std::vector<AttrDef> nconv = with_activation(conv_attrs());
  nconv.push_back(int_attr("input_layout", 1));
  nconv.push_back(string_attr("algorithm", "direct"));
  add("NchwcConv", nconv, {f32}, unknown_shapes);
  add("NchwcExpandDepthwise", with_activation(conv_attrs()), {f32}, unknown_shapes);
  std::vector<AttrDef> pool = {string_attr("auto_pad", "NOTSET"),
                               ints_attr("kernel_shape"),
                               ints_attr("pads"),
                               ints_attr("strides"),
                               ints_attr("dilations"),
                               int_attr("ceil_mode", 0)};
  add("NchwcMaxPool", pool, {f32}, unknown_shapes);
  pool.push_back(int_attr("count_include_pad", 0));
  add("NchwcAveragePool", pool, {f32}, unknown_shapes);
  add("NchwcGlobalAveragePool", {}, {f32}, unknown_shapes);
}

}  // namespace

void add_contrib_schemas(std::vector<OpSchema>& t) {
  add_microsoft(t);
  add_tessera(t);
}

}  // namespace tessera::ops
