// com.microsoft GroupQueryAttention (the attention of ONNX Runtime's
// language-model files): grouped-query self-attention with a key/value cache.
//
//   query [B, S, Nq*D] (or packed Q|K|V [B, S, (Nq + 2 Nkv)*D]), key, value
//   [B, S, Nkv*D]; past_key / past_value [B, Nkv, P, D]; seqlens_k [B]
//   (each entry's total length - 1); total_sequence_length (scalar).
//
// The step is the first prompt when S == total_sequence_length: the past is
// ignored and entry b's tokens are its first seqlens_k[b] + 1 (right
// padding). Otherwise entry b's S new tokens follow past_b = seqlens_k[b] +
// 1 - S cached ones. present_key / present_value [B, Nkv, max(P, total), D]
// hold the past's first past_b rows, the new (rotated) keys and values at
// rows past_b .. past_b + S, and zeros after them (ONNX Runtime's layout; a
// past buffer longer than the total is the preallocated, shared form).
// Query i of entry b sits at position p = past_b + i and attends to the keys
// j <= p, j < seqlens_k[b] + 1, and with local_window_size W > 0 only
// j > p - W. Scores are scale * q.k (1/sqrt(D) by default), then softcap *
// tanh(score / softcap) when softcap > 0, then + attention_bias; the softmax
// may add a per-head sink exp(head_sink[h]) to its denominator
// (smooth_softmax: a sink of 0). With do_rotary, Q and the new K are rotated
// at their positions by cos_cache / sin_cache [max_position, R/2] (the first
// R features of each head; halves, or interleaved pairs).
//
// Not supported (a clear error naming the node): quantized caches
// (k_quant_type / v_quant_type / kv_cache_bit_width, k_scale, v_scale),
// position_ids, q/k normalization weights, sliding_window_cache, causal = 0
// and the qk output.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/host_heap.hpp"
#include "linalg/gemm.hpp"
#include "linalg/vec_math.hpp"
#include "providers/cpu/transformer/rotary.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

enum Input {
  kQuery,
  kKey,
  kValue,
  kPastKey,
  kPastValue,
  kSeqlensK,
  kTotalLength,
  kCos,
  kSin,
  kPositionIds,
  kAttentionBias,
  kHeadSink,
  kKScale,
  kVScale,
  kQNorm,
  kKNorm
};

class GroupQueryAttentionKernel final : public ep::OpKernel {
 public:
  explicit GroupQueryAttentionKernel(const ep::KernelInfo& info)
      : nq_(info.attr_int("num_heads")),
        nkv_(info.attr_int("kv_num_heads")),
        scale_(info.attr_float("scale", 0.0f)),
        softcap_(info.attr_float("softcap", 0.0f)),
        window_(info.attr_int("local_window_size", -1)),
        rotary_(info.attr_int("do_rotary", 0) != 0),
        interleaved_(info.attr_int("rotary_interleaved", 0) != 0),
        smooth_(info.attr_int("smooth_softmax", 0) != 0) {
    if (nq_ <= 0 || nkv_ <= 0 || nq_ % nkv_ != 0)
      info.fail_node("num_heads (", nq_, ") must be a positive multiple of kv_num_heads (", nkv_,
                     ")");
    if (softcap_ < 0) info.fail_node("softcap must be >= 0, got ", softcap_);
    for (const char* a : {"k_quant_type", "v_quant_type"})
      if (info.attr_string(a, "NONE") != "NONE")
        info.fail_node(a, " = ", info.attr_string(a, ""),
                       ": quantized key/value caches are not supported");
    if (info.has_attr("kv_cache_bit_width"))
      info.fail_node("kv_cache_bit_width: quantized key/value caches are not supported");
    if (info.attr_int("sliding_window_cache", 0) != 0)
      info.fail_node("sliding_window_cache = 1 (a window-sized cache) is not supported");
    if (info.attr_int("causal", 1) != 1)
      info.fail_node("causal = ", info.attr_int("causal", 1),
                     " is not supported (only causal attention)");
    if (info.attr_int("qk_output", 0) != 0 || info.has_output(3))
      info.fail_node("the qk output (qk_output, output 3) is not supported");
    if (info.has_input(kPositionIds))
      info.fail_node("position_ids is not supported: positions follow seqlens_k");
    if (info.has_input(kKScale) || info.has_input(kVScale))
      info.fail_node("k_scale / v_scale (a quantized cache) are not supported");
    if (info.has_input(kQNorm) || info.has_input(kKNorm))
      info.fail_node("q_norm_weight / k_norm_weight are not supported");
    if (info.has_input(kKey) != info.has_input(kValue))
      info.fail_node("key and value must be given together (or both omitted for packed QKV)");
    if (info.has_input(kPastKey) != info.has_input(kPastValue))
      info.fail_node("past_key and past_value must be given together");
    if (rotary_ && !(info.has_input(kCos) && info.has_input(kSin)))
      info.fail_node("do_rotary = 1 needs cos_cache and sin_cache");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& query = ctx.required_input(kQuery);
    const Tensor* key = ctx.input(kKey);
    const Tensor* value = ctx.input(kValue);
    const Tensor* past_k = ctx.input(kPastKey);
    const Tensor* past_v = ctx.input(kPastValue);
    for (const Tensor* t : {&query, key, value, past_k, past_v})
      if (t && t->dtype() != DataType::kFloat)
        ctx.fail_node("query, key, value and the past must be float, got ", t->description());
    if (query.rank() != 3) ctx.fail_node("query ", query.description(), " must be [B, S, hidden]");
    const int64_t B = query.shape()[0], S = query.shape()[1], X = query.shape()[2];
    const bool packed = key == nullptr;
    const int64_t D = packed ? X / (nq_ + 2 * nkv_) : X / nq_;
    if (D == 0 || (packed ? X != (nq_ + 2 * nkv_) * D : X != nq_ * D))
      ctx.fail_node("query ", query.description(), " width is not ",
                    packed ? "(num_heads + 2 kv_num_heads)" : "num_heads", " x head_size");
    if (!packed)
      for (const Tensor* t : {key, value})
        if (t->rank() != 3 || t->shape()[0] != B || t->shape()[1] != S || t->shape()[2] != nkv_ * D)
          ctx.fail_node("key / value ", t->description(), " must be [", B, ", ", S, ", ", nkv_ * D,
                        "]");
    int64_t P = 0;
    if (past_k) {
      P = past_k->rank() == 4 ? past_k->shape()[2] : -1;
      if (P < 0 || past_k->shape() != Shape{B, nkv_, P, D} || past_v->shape() != past_k->shape())
        ctx.fail_node("past_key / past_value ", past_k->description(), ", ", past_v->description(),
                      " must both be [", B, ", ", nkv_, ", past, ", D, "]");
    }
    const Tensor& seqlens = ctx.required_input(kSeqlensK);
    const Tensor& total_t = ctx.required_input(kTotalLength);
    if (seqlens.dtype() != DataType::kInt32 || seqlens.num_elements() != B)
      ctx.fail_node("seqlens_k ", seqlens.description(), " must be int32 [", B, "]");
    if (total_t.dtype() != DataType::kInt32 || total_t.num_elements() != 1)
      ctx.fail_node("total_sequence_length ", total_t.description(), " must be an int32 scalar");
    const int64_t total = total_t.data<int32_t>()[0];
    const bool first = S == total;
    // (The present is max(past, total) rows long: a total beyond what the
    // past and the new tokens can hold would size it from a bad scalar.)
    if (total < S || total > P + S)
      ctx.fail_node("total_sequence_length ", total, " must be between the ", S,
                    " new tokens and the past's ", P, " rows plus them");
    const int64_t rows = std::max(P, total);
    // Each entry's cached count and total length, checked against the buffers.
    std::vector<int64_t> past_of(static_cast<size_t>(B)), total_of(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) {
      const int64_t tot = int64_t(seqlens.data<int32_t>()[b]) + 1;
      const int64_t pb = first ? 0 : tot - S;
      if (tot < 1 || tot > total || pb < 0 || pb > P || (first && tot > S))
        ctx.fail_node("seqlens_k[", b, "] = ", tot - 1, " does not fit ", S,
                      " new tokens, total_sequence_length ", total, " and a past of ", P);
      past_of[size_t(b)] = pb, total_of[size_t(b)] = tot;
    }
    const Tensor* cos_t = rotary_ ? ctx.input(kCos) : nullptr;
    const Tensor* sin_t = rotary_ ? ctx.input(kSin) : nullptr;
    int64_t half = 0;
    if (rotary_) {
      half = cos_t->rank() == 2 ? cos_t->shape()[1] : -1;
      if (cos_t->dtype() != DataType::kFloat || half <= 0 || 2 * half > D ||
          sin_t->shape() != cos_t->shape() || sin_t->dtype() != DataType::kFloat)
        ctx.fail_node("cos_cache / sin_cache ", cos_t->description(), ", ", sin_t->description(),
                      " must both be float [max_position, R / 2] with R <= head size ", D);
      if (total > cos_t->shape()[0])
        ctx.fail_node("positions up to ", total - 1, " are past the rotary cache ",
                      cos_t->description());
    }
    const Tensor* bias = ctx.input(kAttentionBias);
    int64_t bias_stride[2] = {0, 0};  // along batch and head; rows are [S, total]
    if (bias) {
      const Shape& s = bias->shape();
      if (bias->dtype() != DataType::kFloat || bias->rank() != 4 || (s[0] != 1 && s[0] != B) ||
          (s[1] != 1 && s[1] != nq_) || s[2] != S || s[3] != total)
        ctx.fail_node("attention_bias ", bias->description(), " must be float [", B, " or 1, ", nq_,
                      " or 1, ", S, ", ", total, "]");
      bias_stride[0] = s[0] == 1 ? 0 : s[1] * S * total;
      bias_stride[1] = s[1] == 1 ? 0 : S * total;
    }
    const Tensor* sink_t = ctx.input(kHeadSink);
    if (sink_t && (sink_t->dtype() != DataType::kFloat || sink_t->num_elements() != nq_))
      ctx.fail_node("head_sink ", sink_t->description(), " must be float [", nq_, "]");

    Tensor& y = ctx.output(0, Shape{B, S, nq_ * D}, DataType::kFloat);
    const Shape cache_shape{B, nkv_, rows, D};
    // The caches: the outputs when asked for, scratch otherwise.
    HostVector<float> scratch_k, scratch_v;
    float* pk = cache(ctx, 1, cache_shape, scratch_k);
    float* pv = cache(ctx, 2, cache_shape, scratch_v);
    if (B == 0 || S == 0) return;

    // Q (rotated when asked) as [B, S, Nq, D]; the new K and V into the caches.
    const float* qsrc = query.data<float>();
    const int64_t qld = X;  // row stride of the query tensor
    HostVector<float> qrot;
    if (rotary_) qrot.resize(size_t(B * S * nq_ * D));
    const float* kd = packed ? qsrc + nq_ * D : key->data<float>();
    const float* vd = packed ? qsrc + (nq_ + nkv_) * D : value->data<float>();
    const int64_t kvld = packed ? X : nkv_ * D;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t pb = past_of[size_t(b)];
      for (int64_t g = 0; g < nkv_; ++g) {
        const int64_t base = ((b * nkv_ + g) * rows) * D;
        for (auto [dst, src] : {std::pair{pk, past_k}, std::pair{pv, past_v}}) {
          if (src && pb > 0 && src->data<float>() + (b * nkv_ + g) * P * D != dst + base)
            std::memmove(dst + base, src->data<float>() + (b * nkv_ + g) * P * D,
                         size_t(pb * D) * sizeof(float));
          std::fill(dst + base + (pb + S) * D, dst + base + rows * D, 0.0f);
        }
        for (int64_t i = 0; i < S; ++i) {
          const int64_t r = (b * S + i) * kvld + g * D;
          std::memcpy(pk + base + (pb + i) * D, kd + r, size_t(D) * sizeof(float));
          std::memcpy(pv + base + (pb + i) * D, vd + r, size_t(D) * sizeof(float));
          if (rotary_)
            rotate_head(pk + base + (pb + i) * D, half, cos_t->data<float>() + (pb + i) * half,
                        sin_t->data<float>() + (pb + i) * half, interleaved_);
        }
      }
      if (rotary_)
        for (int64_t i = 0; i < S; ++i) {
          float* q = qrot.data() + (b * S + i) * nq_ * D;
          std::memcpy(q, qsrc + (b * S + i) * qld, size_t(nq_ * D) * sizeof(float));
          for (int64_t h = 0; h < nq_; ++h)
            rotate_head(q + h * D, half, cos_t->data<float>() + (pb + i) * half,
                        sin_t->data<float>() + (pb + i) * half, interleaved_);
        }
    }
    const float* qd = rotary_ ? qrot.data() : qsrc;
    const int64_t ldq = rotary_ ? nq_ * D : qld;

    const float scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(float(D));
    const float* bias_d = bias ? bias->data<float>() : nullptr;
    const float* sinks = sink_t ? sink_t->data<float>() : nullptr;
    const int64_t group = nq_ / nkv_;
    float* out = y.mutable_data<float>();
    const double cost = double(S * total * (4 * D + 20));
    ctx.thread_pool().parallel_for(B * nq_, cost, [&](int64_t t0, int64_t t1) {
      thread_local std::vector<float> scores;
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t b = t / nq_, h = t % nq_, g = h / group;
        const int64_t pb = past_of[size_t(b)], T = total_of[size_t(b)];
        const float* kc = pk + ((b * nkv_ + g) * rows) * D;
        const float* vc = pv + ((b * nkv_ + g) * rows) * D;
        // Query rows in chunks: a chunk's products stop at the last key any
        // of its rows may see (and start at the first, with a window), so a
        // long prompt computes about half of the square.
        for (int64_t i0 = 0; i0 < S; i0 += kChunkRows) {
          const int64_t i1 = std::min(S, i0 + kChunkRows), rows_c = i1 - i0;
          const int64_t k0 = window_ > 0 ? std::max<int64_t>(0, pb + i0 - window_ + 1) : 0;
          const int64_t k1 = std::min(T, pb + i1);
          float* o = out + (b * S + i0) * nq_ * D + h * D;
          if (k1 <= k0) {  // no key for any row: zeros, as an empty softmax gives
            for (int64_t i = 0; i < rows_c; ++i)
              std::fill(o + i * nq_ * D, o + i * nq_ * D + D, 0.f);
            continue;
          }
          const int64_t Tc = k1 - k0;
          if (scores.size() < size_t(rows_c * Tc)) scores.resize(size_t(rows_c * Tc));
          float* sc = scores.data();
          linalg::sgemm(false, true, rows_c, Tc, D, scale, qd + (b * S + i0) * ldq + h * D, ldq,
                        kc + k0 * D, D, 0.0f, sc, Tc);
          for (int64_t i = i0; i < i1; ++i)
            softmax_row(
                sc + (i - i0) * Tc, Tc, pb + i, k0, T,
                bias_d ? bias_d + b * bias_stride[0] + h * bias_stride[1] + i * total : nullptr,
                sinks ? sinks[h] : 0.0f, sinks || smooth_);
          linalg::sgemm(false, false, rows_c, D, Tc, 1.0f, sc, Tc, vc + k0 * D, D, 0.0f, o,
                        nq_ * D);
        }
      }
    });
  }

 private:
  static constexpr int64_t kChunkRows = 64;

  // Row `row` [Tc] holds the scores of keys k0 .. k0 + Tc for the query at
  // position p: softcap, bias (`bias` is its row over all keys), then the
  // softmax over the keys it may see (with the sink in the denominator);
  // the others become 0.
  void softmax_row(float* row, int64_t Tc, int64_t p, int64_t k0, int64_t T, const float* bias,
                   float sink, bool has_sink) const {
    const int64_t hi = std::min(p + 1, T) - k0;
    const int64_t lo = std::max<int64_t>(0, (window_ > 0 ? p - window_ + 1 : 0) - k0);
    if (softcap_ > 0)
      for (int64_t j = lo; j < hi; ++j) row[j] = softcap_ * std::tanh(row[j] / softcap_);
    if (bias)
      for (int64_t j = lo; j < hi; ++j) row[j] += bias[k0 + j];
    float m = has_sink ? sink : -std::numeric_limits<float>::infinity();
    for (int64_t j = lo; j < hi; ++j) m = std::max(m, row[j]);
    double den = has_sink ? std::exp(double(sink - m)) : 0.0;
    if (hi > lo) {
      for (int64_t j = lo; j < hi; ++j) row[j] -= m;
      linalg::vec_exp(row + lo, row + lo, hi - lo);
      for (int64_t j = lo; j < hi; ++j) den += row[j];
    }
    const float inv = den > 0 ? float(1.0 / den) : 0.0f;
    for (int64_t j = 0; j < Tc; ++j) row[j] = (j >= lo && j < hi) ? row[j] * inv : 0.0f;
  }

  static float* cache(ep::KernelContext& ctx, size_t i, const Shape& shape,
                      HostVector<float>& scratch) {
    if (ctx.has_output(i)) return ctx.output(i, shape, DataType::kFloat).mutable_data<float>();
    scratch.resize(size_t(shape.num_elements()));
    return scratch.data();
  }

  int64_t nq_, nkv_;
  float scale_, softcap_;
  int64_t window_;
  bool rotary_, interleaved_, smooth_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_ms_group_query_attention(const ep::KernelInfo& info) {
  return std::make_unique<GroupQueryAttentionKernel>(info);
}

}  // namespace tessera::cpu
