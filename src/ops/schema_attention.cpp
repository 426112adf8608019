// Attention ops of the standard domains: Attention, RotaryEmbedding,
// LinearAttention and ai.onnx.preview's FlexAttention. Key/value cache
// outputs whose length follows from the cache inputs are left to the
// kernels; the attention output is given.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

// `attr`'s value, which must be positive and divide dim `d` of input i.
int64_t heads(const ShapeQuery& q, const char* attr, size_t i, size_t d) {
  const int64_t h = q.attr_int(attr);
  const Shape& s = *q.shape(i);
  if (h <= 0 || s[d] % h != 0)
    q.fail(attr, " ", h, " does not divide dim ", d, " of ", q.input_desc(i));
  return h;
}

// Q [B, Hq, L, E] with V [B, Hkv, S, Ev] -> [B, Hq, L, Ev]; 3-D Q [B, L, Hq * E]
// with V [B, S, Hkv * Ev] -> [B, L, Hq * Ev] (q_num_heads and kv_num_heads given).
OutShapes attention(const ShapeQuery& q) {
  const Shape* qs = shape_of(q, 0);
  const Shape* v = shape_of(q, 2);
  if (!qs || !v) return {};
  if ((qs->rank() != 3 && qs->rank() != 4) || v->rank() != qs->rank() || (*v)[0] != (*qs)[0])
    q.fail("Q and V must both be 3-D or 4-D with one batch: ", q.input_desc(0), ", ",
           q.input_desc(2));
  if (qs->rank() == 4) return {Shape{(*qs)[0], (*qs)[1], (*qs)[2], (*v)[3]}};
  if (!q.has_attr("q_num_heads") || !q.has_attr("kv_num_heads"))
    q.fail("3-D inputs need q_num_heads and kv_num_heads");
  const int64_t hq = heads(q, "q_num_heads", 0, 2), hkv = heads(q, "kv_num_heads", 2, 2);
  return {Shape{(*qs)[0], (*qs)[1], hq * ((*v)[2] / hkv)}};
}

// query [B, T, Hq * dk], value [B, T, Hkv * dv] -> output [B, T, Hq * dv],
// present_state [B, Hkv, dk, dv].
OutShapes linear_attention(const ShapeQuery& q) {
  const Shape* qs = shape_of(q, 0);
  const Shape* v = shape_of(q, 2);
  if (!qs || !v) return {};
  if (qs->rank() != 3 || v->rank() != 3 || (*v)[0] != (*qs)[0] || (*v)[1] != (*qs)[1])
    q.fail("query and value must be [B, T, heads * dim]: ", q.input_desc(0), ", ", q.input_desc(2));
  const int64_t hq = heads(q, "q_num_heads", 0, 2), hkv = heads(q, "kv_num_heads", 2, 2);
  const int64_t dk = (*qs)[2] / hq, dv = (*v)[2] / hkv;
  return {Shape{(*qs)[0], (*qs)[1], hq * dv}, Shape{(*qs)[0], hkv, dk, dv}};
}

// Q [B, Hq, L, E], V [B, Hkv, S, Ev] -> [B, Hq, L, Ev]
OutShapes flex_attention(const ShapeQuery& q) {
  const Shape* qs = shape_of(q, 0);
  const Shape* v = shape_of(q, 2);
  if (!qs || !v) return {};
  if (qs->rank() != 4 || v->rank() != 4)
    q.fail("Q and V must be 4-D: ", q.input_desc(0), ", ", q.input_desc(2));
  return {Shape{(*qs)[0], (*qs)[1], (*qs)[2], (*v)[3]}};
}

}  // namespace

void add_attention_schemas(std::vector<OpSchema>& t) {
  std::vector<AttrDef> a = {int_attr("is_causal", 0),
                            optional_attr("kv_num_heads", AttrType::kInt),
                            optional_attr("q_num_heads", AttrType::kInt),
                            int_attr("qk_matmul_output_mode", 0),
                            optional_attr("scale", AttrType::kFloat),
                            float_attr("softcap", 0.0f),
                            optional_attr("softmax_precision", AttrType::kInt)};
  std::vector<DataType> mask = numeric_types();
  mask.push_back(DataType::kBool);
  // Y, present_key and qk_matmul_output are T1, present_value T2. Opset 24
  // adds nonpad_kv_seqlen, 25 the windows.
  std::vector<TypeParam> types = {{"T1", {0, 1, 4}, {0, 1, 3}, float_types()},
                                  {"T2", {2, 5}, {2}, float_types()},
                                  {"U", {3}, {}, mask}};
  t.push_back({"", "Attention", 23, a, types, nullptr, attention});
  types.push_back({"nonpad_kv_seqlen", {6}, {}, int64_type()});
  t.push_back({"", "Attention", 24, a, types, nullptr, attention});
  a.push_back(int_attr("left_window_size", -1));
  a.push_back(int_attr("right_window_size", -1));
  t.push_back({"", "Attention", 25, a, types, nullptr, attention});

  const std::vector<DataType> halfs = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16};
  t.push_back({"",
               "RotaryEmbedding",
               23,
               {int_attr("interleaved", 0), optional_attr("num_heads", AttrType::kInt),
                int_attr("rotary_embedding_dim", 0)},
               {{"T", {0, 1, 2}, {0}, halfs}, {"M", {3}, {}, int64_type()}},
               type_of_input0,
               same_shape_as_input0});
  // present_state has past_state's type S; without past_state, the query's.
  t.push_back({"",
               "LinearAttention",
               27,
               {int_attr("chunk_size", 64), required_attr("kv_num_heads", AttrType::kInt),
                required_attr("q_num_heads", AttrType::kInt), float_attr("scale", 0.0f),
                string_attr("update_rule", "gated_delta")},
               {{"T", {0, 1, 2, 4, 5}, {0}, halfs}, {"S", {3}, {1}, halfs, false, "", 0}},
               nullptr,
               linear_attention});
  t.push_back(
      {"ai.onnx.preview",
       "FlexAttention",
       1,
       {optional_attr("prob_mod", AttrType::kGraph), optional_attr("scale", AttrType::kFloat),
        optional_attr("score_mod", AttrType::kGraph),
        optional_attr("softmax_precision", AttrType::kInt)},
       {{"T1", {0, 1, 2}, {0}, float_types()}},
       type_of_input0,
       flex_attention});
}

}  // namespace tessera::ops
