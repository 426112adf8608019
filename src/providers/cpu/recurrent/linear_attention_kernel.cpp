// LinearAttention (opset 27): the sequential recurrence over a (d_k, d_v) state
// per batch and KV head, computed in float. Query head h reads the state of
// KV head h / (q_num_heads / kv_num_heads) (grouped-query attention).
#include <cmath>

#include "providers/cpu/recurrent/float_io.hpp"
#include "providers/cpu/recurrent/recurrent_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class Rule { kLinear, kGated, kDelta, kGatedDelta };

class LinearAttentionKernel : public ep::OpKernel {
 public:
  explicit LinearAttentionKernel(const ep::KernelInfo& info) {
    hq_ = info.attr_int("q_num_heads");
    hkv_ = info.attr_int("kv_num_heads");
    if (hq_ <= 0 || hkv_ <= 0 || hq_ % hkv_ != 0)
      info.fail_node("q_num_heads (", hq_, ") must be a positive multiple of kv_num_heads (", hkv_, ")");
    scale_ = info.attr_float("scale", 0.f);
    std::string rule = info.attr_string("update_rule", "gated_delta");
    if (rule == "linear") rule_ = Rule::kLinear;
    else if (rule == "gated") rule_ = Rule::kGated;
    else if (rule == "delta") rule_ = Rule::kDelta;
    else if (rule == "gated_delta") rule_ = Rule::kGatedDelta;
    else info.fail_node("update_rule must be linear, gated, delta or gated_delta, got '", rule, "'");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& q = ctx.required_input(0);
    const Tensor& k = ctx.required_input(1);
    const Tensor& v = ctx.required_input(2);
    const Tensor* past = ctx.input(3);
    const Tensor* decay = ctx.input(4);
    const Tensor* beta = ctx.input(5);
    const bool gated = rule_ == Rule::kGated || rule_ == Rule::kGatedDelta;
    const bool delta = rule_ == Rule::kDelta || rule_ == Rule::kGatedDelta;
    if (gated && !decay) ctx.fail_node("the '", rule_name(), "' update rule needs the decay input");
    if (delta && !beta) ctx.fail_node("the '", rule_name(), "' update rule needs the beta input");
    for (const Tensor* t : {&q, &k, &v})
      if (t->rank() != 3) ctx.fail_node("query, key and value must be 3-D, got ", t->shape().to_string());
    const int64_t B = q.shape()[0], T = q.shape()[1];
    if (q.shape()[2] % hq_ != 0) ctx.fail_node("query's last dim ", q.shape()[2], " is not divisible by q_num_heads ", hq_);
    const int64_t dk = q.shape()[2] / hq_;
    if (k.shape() != Shape{B, T, hkv_ * dk})
      ctx.fail_node("key has shape ", k.shape().to_string(), ", expected ", Shape{B, T, hkv_ * dk}.to_string());
    if (v.shape()[0] != B || v.shape()[1] != T || v.shape()[2] % hkv_ != 0)
      ctx.fail_node("value has shape ", v.shape().to_string(), ", expected (", B, ", ", T, ", kv_num_heads * d_v)");
    const int64_t dv = v.shape()[2] / hkv_;
    const Shape state_shape{B, hkv_, dk, dv};
    if (past && past->shape() != state_shape)
      ctx.fail_node("past_state has shape ", past->shape().to_string(), ", expected ", state_shape.to_string());
    int64_t decay_w = 0, beta_w = 0;  // per-token widths: decay is H_kv*d_k or H_kv; beta H_kv or 1
    if (gated) {
      decay_w = decay->shape().rank() == 3 ? decay->shape()[2] : -1;
      if (decay->rank() != 3 || decay->shape()[0] != B || decay->shape()[1] != T ||
          (decay_w != hkv_ * dk && decay_w != hkv_))
        ctx.fail_node("decay has shape ", decay->shape().to_string(), ", expected (", B, ", ", T, ", ",
                      hkv_ * dk, " or ", hkv_, ")");
    }
    if (delta) {
      beta_w = beta->shape().rank() == 3 ? beta->shape()[2] : -1;
      if (beta->rank() != 3 || beta->shape()[0] != B || beta->shape()[1] != T ||
          (beta_w != hkv_ && beta_w != 1))
        ctx.fail_node("beta has shape ", beta->shape().to_string(), ", expected (", B, ", ", T, ", ", hkv_, " or 1)");
    }
    for (const Tensor* t : {&k, &v, decay, beta})
      if (t && t->dtype() != q.dtype()) ctx.fail_node("query, key, value, decay and beta must share one type");

    std::vector<float> qv = load_float<float>(q), kv = load_float<float>(k), vv = load_float<float>(v);
    std::vector<float> gv = gated ? load_float<float>(*decay) : std::vector<float>();
    std::vector<float> bv = delta ? load_float<float>(*beta) : std::vector<float>();
    std::vector<float> state = past ? load_float<float>(*past)
                                    : std::vector<float>(size_t(B * hkv_ * dk * dv), 0.f);
    std::vector<float> out(static_cast<size_t>(B * T * hq_ * dv));
    const float scale = scale_ != 0.f ? scale_ : 1.f / std::sqrt(float(dk));
    const int64_t group = hq_ / hkv_;

    ctx.thread_pool().parallel_for(B * hkv_, double(T * dk * dv * (2 + group)), [&](int64_t r0, int64_t r1) {
      std::vector<float> retrieved(static_cast<size_t>(dv));
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / hkv_, h = r % hkv_;
        float* S = state.data() + r * dk * dv;
        for (int64_t t = 0; t < T; ++t) {
          const int64_t tok = b * T + t;
          const float* kt = kv.data() + (tok * hkv_ + h) * dk;
          const float* vt = vv.data() + (tok * hkv_ + h) * dv;
          if (gated) {
            const float* g = gv.data() + tok * decay_w;
            for (int64_t i = 0; i < dk; ++i) {
              float e = std::exp(decay_w == hkv_ ? g[h] : g[h * dk + i]);
              for (int64_t j = 0; j < dv; ++j) S[i * dv + j] *= e;
            }
          }
          if (delta) {
            const float bt = bv[size_t(tok * beta_w + (beta_w == 1 ? 0 : h))];
            for (int64_t j = 0; j < dv; ++j) retrieved[size_t(j)] = 0.f;
            for (int64_t i = 0; i < dk; ++i)
              for (int64_t j = 0; j < dv; ++j) retrieved[size_t(j)] += S[i * dv + j] * kt[i];
            for (int64_t j = 0; j < dv; ++j) retrieved[size_t(j)] = bt * (vt[j] - retrieved[size_t(j)]);
            for (int64_t i = 0; i < dk; ++i)
              for (int64_t j = 0; j < dv; ++j) S[i * dv + j] += kt[i] * retrieved[size_t(j)];
          } else {
            for (int64_t i = 0; i < dk; ++i)
              for (int64_t j = 0; j < dv; ++j) S[i * dv + j] += kt[i] * vt[j];
          }
          for (int64_t qh = h * group; qh < (h + 1) * group; ++qh) {
            const float* qt = qv.data() + (tok * hq_ + qh) * dk;
            float* o = out.data() + (tok * hq_ + qh) * dv;
            for (int64_t j = 0; j < dv; ++j) o[j] = 0.f;
            for (int64_t i = 0; i < dk; ++i)
              for (int64_t j = 0; j < dv; ++j) o[j] += qt[i] * S[i * dv + j];
            for (int64_t j = 0; j < dv; ++j) o[j] *= scale;
          }
        }
      }
    });
    store_float(out, ctx.output(0, Shape{B, T, hq_ * dv}));
    if (ctx.has_output(1)) {
      // present_state has type S: past_state's type, or T when it is absent.
      DataType st = past ? past->dtype() : q.dtype();
      store_float(state, ctx.output(1, state_shape, st));
    }
  }

 private:
  const char* rule_name() const {
    switch (rule_) {
      case Rule::kLinear: return "linear";
      case Rule::kGated: return "gated";
      case Rule::kDelta: return "delta";
      case Rule::kGatedDelta: return "gated_delta";
    }
    return "?";
  }

  int64_t hq_ = 1, hkv_ = 1;
  float scale_ = 0.f;
  Rule rule_ = Rule::kGatedDelta;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_linear_attention_kernel(const ep::KernelInfo& info) {
  return std::make_unique<LinearAttentionKernel>(info);
}

}  // namespace tessera::cpu
