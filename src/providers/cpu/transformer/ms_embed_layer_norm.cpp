// com.microsoft EmbedLayerNormalization (ONNX Runtime's fused BERT embedding
// layer): per token, word_embedding[input_ids] + position_embedding[position]
// (+ segment_embedding[segment_ids]), layer-normalized with gamma and beta.
// Positions are 0 .. S-1 unless position_ids ([B, S] or [1, S]) gives them.
// Output 1, mask_index, is each batch row's count of nonzero mask values (its
// length for a right-padded mask), and 0 without a mask, as ONNX Runtime
// gives it; output 2 is the sum before normalization. Every id is checked against its table's rows.
#include "linalg/vec_math.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

class MsEmbedLayerNormKernel final : public ep::OpKernel {
 public:
  explicit MsEmbedLayerNormKernel(const ep::KernelInfo& info)
      : eps_(info.attr_float("epsilon", 1e-12f)) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& ids = ctx.required_input(0);
    const Tensor* segments = ctx.input(1);
    const Tensor& word = ctx.required_input(2);
    const Tensor& pos = ctx.required_input(3);
    const Tensor* seg_table = ctx.input(4);
    const Tensor& gamma = ctx.required_input(5);
    const Tensor& beta = ctx.required_input(6);
    const Tensor* mask = ctx.input(7);
    const Tensor* pos_ids = ctx.input(8);
    if (ids.dtype() != DataType::kInt32 || ids.rank() != 2)
      ctx.fail_node("input_ids ", ids.description(), " must be int32 [batch, seq]");
    const int64_t B = ids.shape()[0], S = ids.shape()[1];
    if (word.rank() != 2 || word.dtype() != DataType::kFloat)
      ctx.fail_node("word_embedding ", word.description(), " must be float [vocab, hidden]");
    const int64_t H = word.shape()[1];
    auto check_table = [&](const Tensor* t, const char* what) {
      if (t && (t->dtype() != DataType::kFloat || t->rank() != 2 || t->shape()[1] != H))
        ctx.fail_node(what, " ", t->description(), " must be float [rows, ", H, "]");
    };
    check_table(&pos, "position_embedding");
    check_table(seg_table, "segment_embedding");
    for (const Tensor* t : {&gamma, &beta})
      if (t->dtype() != DataType::kFloat || t->num_elements() != H || t->rank() != 1)
        ctx.fail_node("gamma and beta must be float [", H, "], got ", t->description());
    if ((segments == nullptr) != (seg_table == nullptr))
      ctx.fail_node("segment_ids and segment_embedding must be given together");
    auto check_ids = [&](const Tensor* t, const char* what, bool one_row_ok) {
      if (t && (t->dtype() != DataType::kInt32 || t->rank() != 2 || t->shape()[1] != S ||
                (t->shape()[0] != B && !(one_row_ok && t->shape()[0] == 1))))
        ctx.fail_node(what, " ", t->description(), " must be int32 [", B, ", ", S, "]",
                      one_row_ok ? str_cat(" or [1, ", S, "]") : "");
    };
    check_ids(segments, "segment_ids", false);
    check_ids(mask, "mask", false);
    check_ids(pos_ids, "position_ids", true);

    Tensor& y = ctx.output(0, Shape{B, S, H}, DataType::kFloat);
    Tensor* sum_out =
        ctx.has_output(2) ? &ctx.output(2, Shape{B, S, H}, DataType::kFloat) : nullptr;
    if (ctx.has_output(1)) {
      Tensor& mi = ctx.output(1, Shape{B}, DataType::kInt32);
      int32_t* m = mi.mutable_data<int32_t>();
      for (int64_t b = 0; b < B; ++b) {
        int32_t n = 0;
        for (int64_t i = 0; mask && i < S; ++i) n += mask->data<int32_t>()[b * S + i] != 0;
        m[b] = n;
      }
    }
    auto row_of = [&](const Tensor& table, int32_t id, const char* what, int64_t b, int64_t s) {
      if (id < 0 || id >= table.shape()[0])
        ctx.fail_node(what, " [", b, ", ", s, "] = ", id, " is outside the table's ",
                      table.shape()[0], " rows");
      return table.data<float>() + int64_t(id) * H;
    };
    // One pass a token: word + position (+ segment) rows summed and
    // normalized by the vectorised layer-norm row loop (the sum kept for
    // output 2 when it is asked for).
    const float* g = gamma.data<float>();
    const float* bt = beta.data<float>();
    float* out = y.mutable_data<float>();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t r = b * S + s;
        const float* we = row_of(word, ids.data<int32_t>()[r], "input_ids", b, s);
        const int32_t p = pos_ids
                              ? pos_ids->data<int32_t>()[(pos_ids->shape()[0] == 1 ? 0 : b * S) + s]
                              : int32_t(s);
        const float* pe = row_of(pos, p, "position id", b, s);
        const float* se =
            segments ? row_of(*seg_table, segments->data<int32_t>()[r], "segment_ids", b, s)
                     : nullptr;
        linalg::vec_layer_norm_row(we, pe, se, g, bt, eps_, out + r * H,
                                   sum_out ? sum_out->mutable_data<float>() + r * H : nullptr, H);
      }
  }

 private:
  float eps_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_ms_embed_layer_norm(const ep::KernelInfo& info) {
  return std::make_unique<MsEmbedLayerNormKernel>(info);
}

}  // namespace tessera::cpu
