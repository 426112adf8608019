// com.microsoft Attention (ONNX Runtime's fused BERT/GPT-2 self-attention,
// written by its transformer optimizer): the input projection with merged
// Q/K/V weights, then per (batch, head) softmax(scale * Q K^T + masks) V.
//
//   input [B, S, Hin] x weights [Hin, Hq + Hk + Hv] (+ bias) -> QKV [B*S, .]
//   Y [B, S, Hv], head h in columns h*dv .. (h+1)*dv
//
// Masks are additive, as ONNX Runtime applies them: mask_filter_value
// (-10000 by default) is added to the scores of masked keys, so a row with
// every key masked still averages its values instead of dividing by zero.
// mask_index may be a raw 0/1 mask [B, T] or [B, S, T], a 4-D [B, 1, M, M]
// (its [.., :S, :T] corner), right-padding lengths [B], or end / start
// positions [2B]. Not supported (a clear error): past / present state,
// past_present_share_buffer, do_rotary, the [3B + 2] index form.
#include <cmath>
#include <vector>

#include "core/host_heap.hpp"
#include "linalg/gemm.hpp"
#include "linalg/vec_math.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

// The key range each query row may attend to without the mask's penalty,
// for the index forms, or the raw mask's row.
struct MaskRows {
  enum Kind { kNone, kLengths, kEndStart, kRaw2D, kRaw3D, kRaw4D } kind = kNone;
  const int32_t* data = nullptr;
  int64_t B = 0, S = 0, T = 0, M = 0;

  // Adds `filter` to row[j] for every key j that (b, i) may not attend to.
  void apply(int64_t b, int64_t i, float filter, float* row) const {
    switch (kind) {
      case kNone:
        return;
      case kLengths:
      case kEndStart: {
        int64_t end = data[b], start = kind == kEndStart ? data[B + b] : 0;
        for (int64_t j = 0; j < T; ++j)
          if (j < start || j >= end) row[j] += filter;
        return;
      }
      case kRaw2D:
      case kRaw3D:
      case kRaw4D: {
        const int32_t* m = kind == kRaw2D   ? data + b * T
                           : kind == kRaw3D ? data + (b * S + i) * T
                                            : data + (b * M + i) * M;
        for (int64_t j = 0; j < T; ++j)
          if (m[j] == 0) row[j] += filter;
        return;
      }
    }
  }
};

class MsAttentionKernel final : public ep::OpKernel {
 public:
  explicit MsAttentionKernel(const ep::KernelInfo& info)
      : heads_(info.attr_int("num_heads")),
        sizes_(info.attr_ints("qkv_hidden_sizes")),
        scale_(info.attr_float("scale", 0.0f)),
        filter_(info.attr_float("mask_filter_value", -10000.0f)),
        causal_(info.attr_int("unidirectional", 0) != 0) {
    if (heads_ <= 0) info.fail_node("num_heads must be positive, got ", heads_);
    if (info.attr_int("do_rotary", 0) != 0) info.fail_node("do_rotary = 1 is not supported");
    if (info.attr_int("past_present_share_buffer", 0) != 0)
      info.fail_node("past_present_share_buffer = 1 (a key/value cache) is not supported");
    if (!sizes_.empty() && (sizes_.size() != 3 || sizes_[0] <= 0 || sizes_[0] != sizes_[1] ||
                            sizes_[2] <= 0 || sizes_[0] % heads_ || sizes_[2] % heads_))
      info.fail_node(
          "qkv_hidden_sizes must be [H, H, Hv] with H and Hv positive multiples of "
          "num_heads (",
          heads_, ")");
    if (info.has_input(4) || info.has_input(6) || info.has_output(1))
      info.fail_node("past / present state (a key/value cache) is not supported");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    const Tensor* bias = ctx.input(2);
    for (const Tensor* t : {&x, &w, bias})
      if (t && t->dtype() != DataType::kFloat)
        ctx.fail_node("input, weights and bias must be float, got ", t->description());
    if (x.rank() != 3) ctx.fail_node("input ", x.description(), " must be [batch, seq, hidden]");
    const int64_t B = x.shape()[0], S = x.shape()[1], Hin = x.shape()[2];
    if (w.rank() != 2 || w.shape()[0] != Hin)
      ctx.fail_node("weights ", w.description(), " must be [", Hin, ", Hq + Hk + Hv]");
    const int64_t cols = w.shape()[1];
    const int64_t Hq = sizes_.empty() ? cols / 3 : sizes_[0];
    const int64_t Hv = sizes_.empty() ? cols / 3 : sizes_[2];
    if (2 * Hq + Hv != cols || Hq % heads_ || Hv % heads_ || Hq == 0)
      ctx.fail_node("weights ", w.description(), " do not split into Q, K, V of ",
                    sizes_.empty() ? "three equal parts" : "qkv_hidden_sizes",
                    " that are multiples of num_heads (", heads_, ")");
    if (bias && (bias->rank() != 1 || bias->num_elements() != cols))
      ctx.fail_node("bias ", bias->description(), " must be [", cols, "]");
    const int64_t dq = Hq / heads_, dv = Hv / heads_, T = S;
    const MaskRows mask = mask_rows(ctx, B, S, T);
    const Tensor* ab = ctx.input(5);
    int64_t ab_stride[2] = {0, 0};  // along batch and head; rows are [S, T]
    if (ab) {
      if (ab->dtype() != DataType::kFloat || ab->rank() != 4 ||
          (ab->shape()[0] != 1 && ab->shape()[0] != B) ||
          (ab->shape()[1] != 1 && ab->shape()[1] != heads_) || ab->shape()[2] != S ||
          ab->shape()[3] != T)
        ctx.fail_node("attention_bias ", ab->description(), " must be float [", B, " or 1, ",
                      heads_, " or 1, ", S, ", ", T, "]");
      ab_stride[0] = ab->shape()[0] == 1 ? 0 : ab->shape()[1] * S * T;
      ab_stride[1] = ab->shape()[1] == 1 ? 0 : S * T;
    }
    Tensor& y = ctx.output(0, Shape{B, S, Hv}, DataType::kFloat);
    if (B == 0 || S == 0) return;

    // The projection, with its bias, for every token at once.
    // (From the host heap: at BERT sizes a fresh malloc block would fault
    // in new pages every run.)
    HostVector<float> qkv(size_t(B * S * cols));
    linalg::sgemm(false, false, B * S, cols, Hin, 1.0f, x.data<float>(), Hin, w.data<float>(), cols,
                  0.0f, qkv.data(), cols, &ctx.thread_pool());
    if (bias)
      for (int64_t r = 0; r < B * S; ++r)
        linalg::vec_binary(linalg::BinaryOp::kAdd, qkv.data() + r * cols, bias->data<float>(),
                           qkv.data() + r * cols, cols);

    const float scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(float(dq));
    const float* ab_data = ab ? ab->data<float>() : nullptr;
    float* out = y.mutable_data<float>();
    const double cost = double(S * T * (2 * dq + 2 * dv + 20));
    ctx.thread_pool().parallel_for(B * heads_, cost, [&](int64_t t0, int64_t t1) {
      // One score buffer per thread, kept between runs.
      thread_local std::vector<float> scores;
      if (scores.size() < size_t(S * T)) scores.resize(size_t(S * T));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t b = t / heads_, h = t % heads_;
        const float* q = qkv.data() + b * S * cols + h * dq;
        const float* k = q + Hq;
        const float* v = qkv.data() + b * S * cols + 2 * Hq + h * dv;
        float* sc = scores.data();
        linalg::sgemm(false, true, S, T, dq, scale, q, cols, k, cols, 0.0f, sc, T);
        for (int64_t i = 0; i < S; ++i) {
          float* row = sc + i * T;
          mask.apply(b, i, filter_, row);
          if (causal_)
            for (int64_t j = i + 1; j < T; ++j) row[j] += filter_;
          if (ab_data)
            linalg::vec_binary(linalg::BinaryOp::kAdd, row,
                               ab_data + b * ab_stride[0] + h * ab_stride[1] + i * T, row, T);
          linalg::vec_softmax_row(row, row, T);
        }
        linalg::sgemm(false, false, S, dv, T, 1.0f, sc, T, v, cols, 0.0f, out + b * S * Hv + h * dv,
                      Hv);
      }
    });
  }

 private:
  MaskRows mask_rows(const ep::KernelContext& ctx, int64_t B, int64_t S, int64_t T) const {
    MaskRows m;
    m.B = B, m.S = S, m.T = T;
    const Tensor* t = ctx.input(3);
    if (!t) return m;
    if (t->dtype() != DataType::kInt32)
      ctx.fail_node("mask_index ", t->description(), " must be int32");
    const Shape& s = t->shape();
    m.data = t->data<int32_t>();
    if (s.rank() == 1 && s[0] == B) {
      m.kind = MaskRows::kLengths;
    } else if (s.rank() == 1 && s[0] == 2 * B) {
      m.kind = MaskRows::kEndStart;
    } else if (s.rank() == 2 && s[0] == B && s[1] == T) {
      m.kind = MaskRows::kRaw2D;
    } else if (s.rank() == 3 && s[0] == B && s[1] == S && s[2] == T) {
      m.kind = MaskRows::kRaw3D;
    } else if (s.rank() == 4 && s[0] == B && s[1] == 1 && s[2] == s[3] && s[2] >= T) {
      m.kind = MaskRows::kRaw4D;
      m.M = s[2];
    } else {
      ctx.fail_node("mask_index ", t->description(), " is none of the supported forms: [", B,
                    "] lengths, [", 2 * B, "] end / start, [", B, ", ", T, "], [", B, ", ", S, ", ",
                    T, "] or [", B, ", 1, M, M] with M >= ", T);
    }
    return m;
  }

  int64_t heads_;
  std::vector<int64_t> sizes_;
  float scale_, filter_;
  bool causal_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_ms_attention(const ep::KernelInfo& info) {
  return std::make_unique<MsAttentionKernel>(info);
}

}  // namespace tessera::cpu
