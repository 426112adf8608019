// Attention (opsets 23, 24, 25): scaled dot-product attention with MHA/GQA/MQA
// head sharing, 3-D or 4-D inputs, an internal KV cache (past/present) or an
// external one (nonpad_kv_seqlen), boolean or additive masks, offset-aware
// causal masking, sliding windows (opset 25), softcap, and the optional
// qk_matmul_output in its four modes. Computed in double, except the common
// float call without a cache, softcap, window or extra outputs, which goes
// through SGEMM (attention_sgemm.hpp).
#include <cmath>
#include <limits>

#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/transformer/attention_sgemm.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A [B, H, S, D] view over a 3-D [B, S, H*D] or 4-D [B, H, S, D] tensor.
struct Heads {
  std::vector<double> v;  // always stored as [B, H, S, D]
  int64_t B = 0, H = 0, S = 0, D = 0;
  double at(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return v[size_t(((b * H + h) * S + s) * D + d)];
  }
};

Heads to_heads(const ep::KernelContext& ctx, const char* what, const Tensor& t, int64_t heads) {
  Heads r;
  auto raw = read_as<double>(t);
  if (t.rank() == 4) {
    r.B = t.shape()[0], r.H = t.shape()[1], r.S = t.shape()[2], r.D = t.shape()[3];
    r.v = std::move(raw);
    return r;
  }
  if (t.rank() != 3) ctx.fail_node(what, " must be 3-D or 4-D, got ", t.shape().to_string());
  if (heads <= 0 || t.shape()[2] % heads != 0)
    ctx.fail_node(what, " ", t.shape().to_string(),
                  " is 3-D: its hidden size must be a multiple of ",
                  "the head count (q_num_heads/kv_num_heads = ", heads, ")");
  r.B = t.shape()[0], r.S = t.shape()[1], r.H = heads, r.D = t.shape()[2] / heads;
  r.v.resize(raw.size());
  for (int64_t b = 0; b < r.B; ++b)
    for (int64_t s = 0; s < r.S; ++s)
      for (int64_t h = 0; h < r.H; ++h)
        for (int64_t d = 0; d < r.D; ++d)
          r.v[size_t(((b * r.H + h) * r.S + s) * r.D + d)] =
              raw[size_t(((b * r.S + s) * r.H + h) * r.D + d)];
  return r;
}

// Concatenates past [B, H, P, D] and new along the sequence axis.
Heads concat(const ep::KernelContext& ctx, const char* what, const Tensor* past, const Heads& cur) {
  if (!past) return cur;
  if (past->rank() != 4 || past->shape()[0] != cur.B || past->shape()[1] != cur.H ||
      past->shape()[3] != cur.D)
    ctx.fail_node(what, " ", past->shape().to_string(), " must be [", cur.B, ", ", cur.H,
                  ", past_sequence_length, ", cur.D, "]");
  auto pv = read_as<double>(*past);
  Heads r = cur;
  const int64_t P = past->shape()[2];
  r.S = P + cur.S;
  r.v.assign(size_t(r.B * r.H * r.S * r.D), 0.0);
  for (int64_t bh = 0; bh < r.B * r.H; ++bh) {
    std::copy(pv.begin() + bh * P * r.D, pv.begin() + (bh + 1) * P * r.D,
              r.v.begin() + bh * r.S * r.D);
    std::copy(cur.v.begin() + bh * cur.S * cur.D, cur.v.begin() + (bh + 1) * cur.S * cur.D,
              r.v.begin() + bh * r.S * r.D + P * r.D);
  }
  return r;
}

class AttentionKernel : public ep::OpKernel {
 public:
  explicit AttentionKernel(const ep::KernelInfo& info)
      : causal_(info.attr_int("is_causal", 0) != 0),
        kv_heads_(info.attr_int("kv_num_heads", 0)),
        q_heads_(info.attr_int("q_num_heads", 0)),
        mode_(info.attr_int("qk_matmul_output_mode", 0)),
        has_scale_(info.has_attr("scale")),
        scale_(info.attr_float("scale", 0.f)),
        softcap_(info.attr_float("softcap", 0.f)),
        left_(info.opset() >= 25 ? info.attr_int("left_window_size", -1) : -1),
        right_(info.opset() >= 25 ? info.attr_int("right_window_size", -1) : -1) {
    if (mode_ < 0 || mode_ > 3) info.fail_node("qk_matmul_output_mode must be 0..3, got ", mode_);
    if (info.has_input(4) != info.has_input(5))
      info.fail_node("past_key and past_value must be given together");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& qt = ctx.required_input(0);
    const Tensor& kt = ctx.required_input(1);
    const Tensor& vt = ctx.required_input(2);
    const bool three_d = qt.rank() == 3;
    if (int(kt.rank()) != int(qt.rank()) || vt.rank() != qt.rank())
      ctx.fail_node("Q ", qt.shape().to_string(), ", K ", kt.shape().to_string(), " and V ",
                    vt.shape().to_string(), " must all be 3-D or all 4-D");
    if (AttentionDims dims; sgemm_eligible(ctx, qt, kt, vt, dims)) {
      const float scale = has_scale_ ? scale_ : float(1.0 / std::sqrt(double(dims.D)));
      Tensor& yt = ctx.output(0,
                              three_d ? Shape{dims.B, dims.Sq, dims.QH * dims.VD}
                                      : Shape{dims.B, dims.QH, dims.Sq, dims.VD},
                              DataType::kFloat);
      attention_sgemm(ctx, dims, qt, kt, vt, ctx.input(3), scale, causal_, yt);
      return;
    }
    Heads q = to_heads(ctx, "Q", qt, q_heads_);
    Heads k = to_heads(ctx, "K", kt, kv_heads_);
    Heads v = to_heads(ctx, "V", vt, kv_heads_);
    if (k.B != q.B || v.B != q.B || k.D != q.D || v.H != k.H || v.S != k.S || k.H == 0 ||
        q.H % k.H != 0)
      ctx.fail_node("incompatible Q ", qt.shape().to_string(), ", K ", kt.shape().to_string(),
                    ", V ", vt.shape().to_string(),
                    " (batch, head size, and q heads a multiple of kv heads)");
    const Tensor* past_k = ctx.input(4);
    const Tensor* past_v = ctx.input(5);
    const int64_t P = past_k ? past_k->shape()[past_k->rank() >= 3 ? 2 : 0] : 0;
    Heads K = concat(ctx, "past_key", past_k, k);
    Heads V = concat(ctx, "past_value", past_v, v);
    if (K.S != V.S) ctx.fail_node("past_key and past_value sequence lengths differ");
    const int64_t B = q.B, QH = q.H, Sq = q.S, T = K.S, D = q.D, VD = V.D, group = QH / K.H;
    std::vector<int64_t> nonpad;
    if (const Tensor* np = ctx.input(6)) {
      nonpad = np->to_int64_vector();
      if (int64_t(nonpad.size()) != B)
        ctx.fail_node("nonpad_kv_seqlen must have shape [", B, "], got ", np->shape().to_string());
    }
    // Mask, right-aligned to [B, QH, Sq, T]; a shorter last dim pads with -inf.
    const Tensor* mt = ctx.input(3);
    std::vector<double> mask;
    int64_t md[4] = {1, 1, 1, 1};
    const bool bool_mask = mt && mt->dtype() == DataType::kBool;
    if (mt) {
      if (mt->rank() > 4 || mt->rank() == 0)
        ctx.fail_node("attn_mask must have rank 1..4, got ", mt->shape().to_string());
      for (size_t i = 0; i < mt->rank(); ++i) md[4 - mt->rank() + i] = mt->shape()[i];
      const int64_t want[4] = {B, QH, Sq, T};
      for (int i = 0; i < 4; ++i) {
        bool ok = md[i] == 1 || md[i] == want[i] || (i == 3 && md[i] < T);
        if (!ok)
          ctx.fail_node("attn_mask ", mt->shape().to_string(), " does not broadcast to [", B, ", ",
                        QH, ", ", Sq, ", ", T, "]");
      }
      mask = read_as<double>(*mt);
    }
    double scale = has_scale_ ? double(scale_) : 1.0 / std::sqrt(double(D));
    std::vector<double> y(size_t(B * QH * Sq * VD), 0.0), qk(size_t(B * QH * Sq * T), 0.0);
    ctx.thread_pool().parallel_for(B * QH * Sq, double(T * (D + VD)), [&](int64_t b0, int64_t e0) {
      std::vector<double> s(static_cast<size_t>(T));
      for (int64_t row = b0; row < e0; ++row) {
        int64_t b = row / (QH * Sq), h = (row / Sq) % QH, i = row % Sq, kh = h / group;
        int64_t offset = past_k ? P : !nonpad.empty() ? nonpad[size_t(b)] - Sq : 0;
        double* qkrow = qk.data() + row * T;
        for (int64_t j = 0; j < T; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += q.at(b, h, i, d) * K.at(b, kh, j, d);
          s[size_t(j)] = dot * scale;
          if (mode_ == 0) qkrow[j] = s[size_t(j)];
          if (softcap_ > 0) s[size_t(j)] = softcap_ * std::tanh(s[size_t(j)] / softcap_);
          if (mode_ == 1) qkrow[j] = s[size_t(j)];
          double bj = 0;
          if (mt) {
            int64_t jj = md[3] == 1 ? 0 : j;
            if (jj >= md[3]) {
              bj = kNegInf;
            } else {
              int64_t mi = (((md[0] == 1 ? 0 : b) * md[1] + (md[1] == 1 ? 0 : h)) * md[2] +
                            (md[2] == 1 ? 0 : i)) *
                               md[3] +
                           jj;
              double m = mask[size_t(mi)];
              bj = bool_mask ? (m != 0 ? 0.0 : kNegInf) : m;
            }
          }
          const int64_t p = offset + i;
          if (causal_ && j > p) bj = kNegInf;
          if (left_ >= 0 && j < p - left_) bj = kNegInf;
          if (right_ >= 0 && j > p + right_) bj = kNegInf;
          if (!nonpad.empty() && j >= nonpad[size_t(b)]) bj = kNegInf;
          s[size_t(j)] += bj;
          if (mode_ == 2) qkrow[j] = s[size_t(j)];
        }
        double mx = kNegInf;
        for (double x : s) mx = std::max(mx, x);
        double* yrow = y.data() + row * VD;
        if (mx == kNegInf || std::isnan(mx)) {  // fully masked row: zeros, not NaN
          if (mode_ == 3) std::fill(qkrow, qkrow + T, 0.0);
          continue;
        }
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t j = 0; j < T; ++j) {
          double pj = s[size_t(j)] / sum;
          if (mode_ == 3) qkrow[j] = pj;
          for (int64_t d = 0; d < VD; ++d) yrow[d] += pj * V.at(b, kh, j, d);
        }
      }
    });
    if (three_d) {
      std::vector<double> y3(y.size());
      for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < QH; ++h)
          for (int64_t i = 0; i < Sq; ++i)
            for (int64_t d = 0; d < VD; ++d)
              y3[size_t(((b * Sq + i) * QH + h) * VD + d)] =
                  y[size_t(((b * QH + h) * Sq + i) * VD + d)];
      Tensor& yt = ctx.output(0, Shape{B, Sq, QH * VD}, qt.dtype());
      write_from(yt, y3.data());
    } else {
      Tensor& yt = ctx.output(0, Shape{B, QH, Sq, VD}, qt.dtype());
      write_from(yt, y.data());
    }
    if (ctx.has_output(1)) write_from(ctx.output(1, Shape{B, K.H, T, D}, kt.dtype()), K.v.data());
    if (ctx.has_output(2)) write_from(ctx.output(2, Shape{B, V.H, T, VD}, vt.dtype()), V.v.data());
    if (ctx.has_output(3)) write_from(ctx.output(3, Shape{B, QH, Sq, T}, qt.dtype()), qk.data());
  }

 private:
  // Whether this call is one attention_sgemm computes (float Q, K, V of
  // consistent shapes; no cache, sequence lengths, softcap, window or extra
  // outputs; a mask that broadcasts in full), and its shapes when it is.
  // Anything else, invalid input included, takes the double path, which names
  // what is wrong.
  bool sgemm_eligible(const ep::KernelContext& ctx, const Tensor& qt, const Tensor& kt,
                      const Tensor& vt, AttentionDims& d) const {
    if (qt.dtype() != DataType::kFloat || kt.dtype() != DataType::kFloat ||
        vt.dtype() != DataType::kFloat || softcap_ > 0 || left_ >= 0 || right_ >= 0 ||
        ctx.input(4) || ctx.input(5) || ctx.input(6) || ctx.has_output(1) || ctx.has_output(2) ||
        ctx.has_output(3))
      return false;
    d.three_d = qt.rank() == 3;
    if (d.three_d) {
      if (q_heads_ <= 0 || kv_heads_ <= 0 || qt.shape()[2] % q_heads_ != 0 ||
          kt.shape()[2] % kv_heads_ != 0 || vt.shape()[2] % kv_heads_ != 0)
        return false;
      d.B = qt.shape()[0], d.Sq = qt.shape()[1], d.QH = q_heads_, d.D = qt.shape()[2] / q_heads_;
      d.KH = kv_heads_, d.T = kt.shape()[1];
      if (kt.shape()[2] / kv_heads_ != d.D || vt.shape()[1] != d.T || kt.shape()[0] != d.B ||
          vt.shape()[0] != d.B)
        return false;
      d.VD = vt.shape()[2] / kv_heads_;
    } else {
      if (qt.rank() != 4) return false;
      d.B = qt.shape()[0], d.QH = qt.shape()[1], d.Sq = qt.shape()[2], d.D = qt.shape()[3];
      d.KH = kt.shape()[1], d.T = kt.shape()[2], d.VD = vt.shape()[3];
      if (kt.shape()[0] != d.B || vt.shape()[0] != d.B || kt.shape()[3] != d.D ||
          vt.shape()[1] != d.KH || vt.shape()[2] != d.T)
        return false;
    }
    if (d.KH <= 0 || d.QH % d.KH != 0 || d.Sq == 0 || d.T == 0 || d.D == 0 || d.VD == 0)
      return false;
    if (const Tensor* m = ctx.input(3)) {
      if ((m->dtype() != DataType::kFloat && m->dtype() != DataType::kBool) || m->rank() == 0 ||
          m->rank() > 4)
        return false;
      const int64_t full[4] = {d.B, d.QH, d.Sq, d.T};
      for (size_t i = 0; i < m->rank(); ++i) {
        const int64_t dim = m->shape()[i], want = full[4 - m->rank() + i];
        if (dim != 1 && dim != want) return false;
      }
    }
    return true;
  }

  bool causal_;
  int64_t kv_heads_, q_heads_, mode_;
  bool has_scale_;
  float scale_, softcap_;
  int64_t left_, right_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_attention(const ep::KernelInfo& info) {
  return std::make_unique<AttentionKernel>(info);
}

}  // namespace tessera::cpu
