// com.tessera MultiHeadAttention: the optimizer's fusion of the attention
// block torch exports (see src/optimizer/attention_fusion.cpp):
//   Q, K, V [.., S*H*D as B x S x H x D] -> per (batch, head):
//   P = softmax(where(keep_bh, scale * Q_bh K_bh^T, masked_value) + mask_bh);
//   Y_bh = P V_bh
// written straight into Y laid out [B, S, H, D], reshaped to output_shape.
// Q, K and V are read in place through row strides of H*D, so none of the
// head-splitting transposes is materialised; each (batch, head) pair is one
// task on the intra-op pool. A task takes its query rows in blocks whose
// scores (rows x S) fit in about 256 KB, so each block's scores are written,
// normalised and multiplied by V while in L2: a whole S x S matrix (4 MB at
// S = 1024, a 32x32 feature map's self-attention) would go to memory and
// back three times.
//
// Attributes: num_heads H, head_size D, seq_len S, batch (B, or -1 for
// "whatever is left", as the Reshape it replaces), scale, output_shape (the
// final Reshape's shape: positive sizes and at most one -1), masked_value
// (what a false `keep` element puts in the scores: GPT-style causal masks).
// packed_qkv = 1: input 0 holds Q, K and V side by side, [.., S*3*H*D] as B
// x S x (Q | K | V, H*D each), inputs 1 and 2 are omitted, and the heads
// are read from it in place (row stride 3*H*D).
// seq_first = 1: Q, K, V (or QKV) and Y are laid out sequence first, [S, B,
// ...] (torchvision's nn.MultiheadAttention, ViT): batch b's row i is row i
// * B + b.
// Inputs: Q, K, V, optional additive float mask, optional bool keep mask,
// both broadcast to the scores [B, H, S, S].
#include <algorithm>
#include <vector>

#include "linalg/gemm.hpp"
#include "linalg/vec_math.hpp"
#include "ops/shape_rules.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

// The scores of one block of query rows: 64 Ki floats (256 KB) stay in L2
// between the two products and the softmax.
constexpr int64_t kScoreBlockFloats = 64 * 1024;

// An additive mask broadcast to [B, H, S, S]: the element stride along each
// of those axes (0 where the mask has size 1 there).
template <typename T>
struct MaskView {
  const T* data = nullptr;
  int64_t stride[4] = {0, 0, 0, 0};
  const T* row(int64_t b, int64_t h, int64_t i) const {
    return data + b * stride[0] + h * stride[1] + i * stride[2];
  }
};

class MultiHeadAttentionKernel final : public ep::OpKernel {
 public:
  explicit MultiHeadAttentionKernel(const ep::KernelInfo& info)
      : heads_(info.attr_int("num_heads")),
        head_size_(info.attr_int("head_size")),
        seq_(info.attr_int("seq_len")),
        batch_(info.attr_int("batch", -1)),
        scale_(info.attr_float("scale")),
        masked_value_(info.attr_float("masked_value", 0.0f)),
        packed_(info.attr_int("packed_qkv", 0) != 0),
        seq_first_(info.attr_int("seq_first", 0) != 0),
        out_shape_(info.attr_ints("output_shape")) {
    if (heads_ <= 0 || head_size_ <= 0 || seq_ <= 0 || batch_ == 0 || batch_ < -1)
      info.fail_node(
          "num_heads, head_size and seq_len must be positive and batch positive or -1, got ",
          heads_, ", ", head_size_, ", ", seq_, ", ", batch_);
    int minus_ones = 0;
    for (int64_t d : out_shape_) {
      if (d == -1)
        ++minus_ones;
      else if (d <= 0)
        info.fail_node("output_shape entries must be positive or -1");
    }
    if (minus_ones > 1) info.fail_node("output_shape may have at most one -1");
  }

  void compute(ep::KernelContext& ctx) const override {
    if (packed_ && (ctx.input(1) || ctx.input(2)))
      ctx.fail_node(
          "with packed_qkv, inputs 1 and 2 (K, V) must be omitted: input 0 holds all three");
    const int parts = packed_ ? 1 : 3;
    const Tensor* qkv[3] = {&ctx.required_input(0), nullptr, nullptr};
    for (int i = 1; i < parts; ++i) qkv[i] = &ctx.required_input(size_t(i));
    const int64_t HD = heads_ * head_size_, per_batch = seq_ * HD;
    // Elements per batch in each input, and between rows of a head there.
    const int64_t in_per_batch = packed_ ? 3 * per_batch : per_batch;
    const int64_t ld_in = packed_ ? 3 * HD : HD;
    const char* names[3] = {packed_ ? "QKV" : "Q", "K", "V"};
    int64_t B = -1;
    for (int i = 0; i < parts; ++i) {
      const Tensor& t = *qkv[i];
      if (t.dtype() != DataType::kFloat)
        ctx.fail_node(names[i], " must be float, got ", t.description());
      const int64_t n = t.num_elements();
      const int64_t b = batch_ > 0 ? batch_ : (n % in_per_batch == 0 ? n / in_per_batch : -1);
      if (b < 0 || n != b * in_per_batch || (batch_ < 0 && n == 0))
        ctx.fail_node(names[i], " ", t.shape().to_string(), " cannot be reshaped to [",
                      seq_first_ ? str_cat(seq_, ", ", batch_) : str_cat(batch_, ", ", seq_), ", ",
                      packed_ ? "3 x " : "", heads_, ", ", head_size_, "]");
      if (B >= 0 && b != B)
        ctx.fail_node("Q, K and V have different batch sizes: ", qkv[0]->shape().to_string(), ", ",
                      t.shape().to_string());
      B = b;
    }
    const Shape out_shape = output_shape(B * per_batch);
    const MaskView<float> mask = mask_view<float>(ctx, 3, "mask", DataType::kFloat, B);
    const MaskView<bool> keep = mask_view<bool>(ctx, 4, "keep mask", DataType::kBool, B);
    Tensor& y = ctx.output(0, out_shape, DataType::kFloat);
    if (B == 0) return;
    const float* q = qkv[0]->data<float>();
    const float* k = packed_ ? q + HD : qkv[1]->data<float>();
    const float* v = packed_ ? q + 2 * HD : qkv[2]->data<float>();
    float* out = y.mutable_data<float>();
    const int64_t S = seq_, D = head_size_;
    // Row 0 of batch b, and the step between a head's rows, in the inputs and
    // in Y: [B, S, ...] keeps a batch's rows together, [S, B, ...] interleaves them.
    const int64_t in_batch = seq_first_ ? ld_in : in_per_batch;
    const int64_t out_batch = seq_first_ ? HD : per_batch;
    const int64_t ld_q = seq_first_ ? B * ld_in : ld_in, ld = seq_first_ ? B * HD : HD;
    const double cost = double(S * S * (4 * D + 20));
    const int64_t rows_per_block = std::min(S, std::max<int64_t>(16, kScoreBlockFloats / S));
    ctx.thread_pool().parallel_for(B * heads_, cost, [&](int64_t t0, int64_t t1) {
      // One score buffer per thread, kept between runs: steady state allocates nothing.
      thread_local std::vector<float> scores;
      if (scores.size() < size_t(rows_per_block * S)) scores.resize(size_t(rows_per_block * S));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t b = t / heads_, h = t % heads_;
        // With several row blocks, K^T and V are packed once for all of them.
        linalg::PackedB kt, vp;
        if (rows_per_block < S) {
          kt = linalg::PackedB(true, D, S, k + b * in_batch + h * D, ld_q);
          vp = linalg::PackedB(false, S, D, v + b * in_batch + h * D, ld_q);
        }
        for (int64_t i0 = 0; i0 < S; i0 += rows_per_block)
          attend_rows(b, h, i0, std::min(rows_per_block, S - i0), q, k, v, kt, vp, out,
                      scores.data(), mask, keep, in_batch, out_batch, ld_q, ld);
      }
    });
  }

 private:
  // Query rows [i0, i0 + rows) of head h of batch b: their scores against
  // every key in `sc` (rows x S), masked, softmax per row, times V into Y.
  // `kt` and `vp` are this head's K^T and V packed, or empty (K and V are
  // then read from `k` and `v`).
  void attend_rows(int64_t b, int64_t h, int64_t i0, int64_t rows, const float* q, const float* k,
                   const float* v, const linalg::PackedB& kt, const linalg::PackedB& vp, float* out,
                   float* sc, const MaskView<float>& mask, const MaskView<bool>& keep,
                   int64_t in_batch, int64_t out_batch, int64_t ld_q, int64_t ld) const {
    const int64_t S = seq_, D = head_size_;
    const int64_t off = b * out_batch + h * D;  // row 0 of this head in Y (rows ld apart)
    const int64_t in = b * in_batch + h * D;    // and in Q, K, V (rows ld_q apart)
    if (kt.empty())
      linalg::sgemm(false, true, rows, S, D, scale_, q + in + i0 * ld_q, ld_q, k + in, ld_q, 0.0f,
                    sc, S);
    else
      linalg::sgemm_packed_b(false, rows, scale_, q + in + i0 * ld_q, ld_q, kt, 0.0f, sc, S);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      float* row = sc + r * S;
      if (keep.data) {
        const bool* kp = keep.row(b, h, i);
        const int64_t step = keep.stride[3];
        for (int64_t j = 0; j < S; ++j)
          if (!kp[j * step]) row[j] = masked_value_;
      }
      if (mask.data) {
        const float* m = mask.row(b, h, i);
        if (mask.stride[3] == 1) {
          linalg::vec_binary(linalg::BinaryOp::kAdd, row, m, row, S);
        } else {
          linalg::vec_binary_scalar(linalg::BinaryOp::kAdd, row, m[0], false, row, S);
        }
      }
      linalg::vec_softmax_row(row, row, S);
    }
    float* y = out + off + i0 * ld;
    if (vp.empty())
      linalg::sgemm(false, false, rows, D, S, 1.0f, sc, S, v + in, ld_q, 0.0f, y, ld);
    else
      linalg::sgemm_packed_b(false, rows, 1.0f, sc, S, vp, 0.0f, y, ld);
  }

  // output_shape with its -1 resolved against `total` elements, as Reshape does.
  Shape output_shape(int64_t total) const {
    return ops::reshape_shape(Shape{total}, out_shape_, /*allowzero=*/true, "the attention output",
                              "output_shape");
  }

  // Input `index` (omitted: a null view) as a view broadcast to [B, H, S, S].
  template <typename T>
  MaskView<T> mask_view(const ep::KernelContext& ctx, size_t index, const char* what,
                        DataType dtype, int64_t B) const {
    MaskView<T> m;
    const Tensor* t = ctx.input(index);
    if (!t) return m;
    if (t->dtype() != dtype)
      ctx.fail_node(what, " must be ", data_type_name(dtype), ", got ", t->description());
    const int64_t full[4] = {B, heads_, seq_, seq_};
    const Shape& s = t->shape();
    bool ok = s.rank() <= 4;
    int64_t stride = 1;
    for (int a = 3; a >= 0 && ok; --a) {
      const int r = int(s.rank()) - 4 + a;  // the mask axis aligned with scores axis a
      const int64_t d = r >= 0 ? s[size_t(r)] : 1;
      ok = d == 1 || d == full[a];
      m.stride[a] = d == 1 ? 0 : stride;
      stride *= d;
    }
    if (!ok)
      ctx.fail_node(what, " ", s.to_string(), " does not broadcast to the scores [", B, ", ",
                    heads_, ", ", seq_, ", ", seq_, "]");
    m.data = t->data<T>();
    return m;
  }

  int64_t heads_, head_size_, seq_, batch_;
  float scale_, masked_value_;
  bool packed_, seq_first_;
  std::vector<int64_t> out_shape_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_fused_multi_head_attention(const ep::KernelInfo& info) {
  return std::make_unique<MultiHeadAttentionKernel>(info);
}

}  // namespace tessera::cpu
