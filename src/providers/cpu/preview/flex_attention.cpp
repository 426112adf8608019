// ai.onnx.preview.FlexAttention (opset 1): 4-D scaled dot-product attention
// with GQA head sharing and two optional modifier subgraphs, score_mod (after
// Q*K^T) and prob_mod (after Softmax).
//
// Computed in double, but rounded to the element type of each stage of the
// op's function body (its _expanded graphs): sqrt(scale) and the scaled Q/K
// and the Q*K^T product in T1, then scores, probabilities, V and P*V in the
// softmax precision. That keeps float16/bfloat16 results on the reference's
// rounding, and the modifiers see exactly the tensor the spec describes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/float16.hpp"
#include "providers/cpu/preview/preview_kernels.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu {

namespace {

// Rounds x to the precision of `t` (float, double, float16, bfloat16).
double round_to(DataType t, double x) {
  switch (t) {
    case DataType::kFloat:
      return double(float(x));
    case DataType::kFloat16:
      return double(float(Float16(float(x))));
    case DataType::kBFloat16:
      return double(float(BFloat16(float(x))));
    default:
      return x;
  }
}

void round_all(DataType t, std::vector<double>& v) {
  if (t == DataType::kDouble) return;
  for (double& x : v) x = round_to(t, x);
}

class FlexAttentionKernel : public ep::OpKernel {
 public:
  explicit FlexAttentionKernel(const ep::KernelInfo& info) {
    has_scale_ = info.has_attr("scale");
    scale_ = info.attr_float("scale", 0.0f);
    const DataType t1 = info.input_type(0);
    if (info.has_attr("softmax_precision")) {
      softmax_type_ = DataType(info.attr_int("softmax_precision"));
      if (softmax_type_ != DataType::kFloat && softmax_type_ != DataType::kDouble &&
          softmax_type_ != DataType::kFloat16 && softmax_type_ != DataType::kBFloat16)
        info.fail_node("softmax_precision ", info.attr_int("softmax_precision"),
                       " is not a supported float type (float, double, float16, bfloat16)");
    } else {
      softmax_type_ = t1 == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
    }
    for (const char* name : {"score_mod", "prob_mod"}) {
      if (!info.attr_graph(name)) continue;
      const ep::SubgraphRunner& g = info.subgraph(name);
      if (g.input_names().size() != 1 || g.output_names().size() != 1)
        info.fail_node(name, " must have exactly 1 input and 1 output, it has ",
                       g.input_names().size(), " inputs and ", g.output_names().size(),
                       " outputs");
      (std::string(name) == "score_mod" ? score_mod_ : prob_mod_) = &g;
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& Q = ctx.required_input(0);
    const Tensor& K = ctx.required_input(1);
    const Tensor& V = ctx.required_input(2);
    if (Q.rank() != 4 || K.rank() != 4 || V.rank() != 4)
      ctx.fail_node("Q, K and V must be 4-D, got Q ", Q.shape().to_string(), ", K ",
                    K.shape().to_string(), ", V ", V.shape().to_string());
    const int64_t B = Q.shape()[0], Hq = Q.shape()[1], L = Q.shape()[2], E = Q.shape()[3];
    const int64_t Hkv = K.shape()[1], S = K.shape()[2], Ev = V.shape()[3];
    if (K.shape()[0] != B || V.shape()[0] != B || K.shape()[3] != E || V.shape()[1] != Hkv ||
        V.shape()[2] != S)
      ctx.fail_node("inconsistent shapes: Q ", Q.shape().to_string(), " (B, Hq, L, E), K ",
                    K.shape().to_string(), " (B, Hkv, S, E), V ", V.shape().to_string(),
                    " (B, Hkv, S, Ev)");
    if (Hkv <= 0 || Hq % Hkv != 0)
      ctx.fail_node("q_num_heads ", Hq, " must be a multiple of kv_num_heads ", Hkv);
    const DataType t1 = Q.dtype();
    if (K.dtype() != t1 || V.dtype() != t1)
      ctx.fail_node("Q, K and V must share one type, got ", data_type_name(t1), ", ",
                    data_type_name(K.dtype()), ", ", data_type_name(V.dtype()));
    Tensor& Y = ctx.output(0, Shape({B, Hq, L, Ev}), t1);
    if (Y.num_elements() == 0) return;

    // Q and K are each scaled by sqrt(scale) before the product, as the
    // function body does (it keeps the float16 product in range).
    const float scale = has_scale_ ? scale_ : 1.0f / std::sqrt(float(E));
    const double ss = round_to(t1, double(std::sqrt(scale)));
    std::vector<double> q = read_as<double>(Q), k = read_as<double>(K);
    for (double& x : q) x = round_to(t1, x * ss);
    for (double& x : k) x = round_to(t1, x * ss);

    const int64_t group = Hq / Hkv;
    const DataType sp = softmax_type_;
    std::vector<double> scores(size_t(B * Hq * L * S));
    ctx.thread_pool().parallel_for(B * Hq, double(L * S * E), [&](int64_t b0, int64_t b1) {
      for (int64_t bh = b0; bh < b1; ++bh) {
        const int64_t b = bh / Hq, h = bh % Hq, hk = h / group;
        const double* qp = q.data() + bh * L * E;
        const double* kp = k.data() + (b * Hkv + hk) * S * E;
        double* out = scores.data() + bh * L * S;
        for (int64_t l = 0; l < L; ++l)
          for (int64_t s = 0; s < S; ++s) {
            double acc = 0;
            for (int64_t e = 0; e < E; ++e) acc += qp[l * E + e] * kp[s * E + e];
            out[l * S + s] = round_to(sp, round_to(t1, acc));
          }
      }
    });
    const Shape sshape({B, Hq, L, S});
    if (score_mod_) apply_mod(ctx, *score_mod_, "score_mod", sshape, scores);

    softmax_rows(ctx, scores, B * Hq * L, S);
    round_all(sp, scores);
    if (prob_mod_) apply_mod(ctx, *prob_mod_, "prob_mod", sshape, scores);

    std::vector<double> v = read_as<double>(V);
    round_all(sp, v);
    std::vector<double> y(size_t(Y.num_elements()));
    ctx.thread_pool().parallel_for(B * Hq, double(L * S * Ev), [&](int64_t b0, int64_t b1) {
      for (int64_t bh = b0; bh < b1; ++bh) {
        const int64_t b = bh / Hq, h = bh % Hq, hk = h / group;
        const double* p = scores.data() + bh * L * S;
        const double* vp = v.data() + (b * Hkv + hk) * S * Ev;
        double* out = y.data() + bh * L * Ev;
        for (int64_t l = 0; l < L; ++l)
          for (int64_t e = 0; e < Ev; ++e) {
            double acc = 0;
            for (int64_t s = 0; s < S; ++s) acc += p[l * S + s] * vp[s * Ev + e];
            out[l * Ev + e] = round_to(sp, acc);
          }
      }
    });
    write_from(Y, y.data());
  }

 private:
  // Runs a modifier subgraph on `data` (shape `shape`, in the softmax precision).
  void apply_mod(ep::KernelContext& ctx, const ep::SubgraphRunner& g, const char* name,
                 const Shape& shape, std::vector<double>& data) const {
    Tensor in(softmax_type_, shape);
    write_from(in, data.data());
    std::vector<Value> args;
    args.emplace_back(std::move(in));
    std::vector<Value> out = g.run(ctx, std::move(args));
    if (out.size() != 1 || !out[0].is_tensor())
      ctx.fail_node(name, " must return one tensor");
    const Tensor& t = out[0].tensor();
    if (t.shape() != shape)
      ctx.fail_node(name, " must keep the shape ", shape.to_string(), ", it returned ",
                    t.shape().to_string());
    if (!is_float_type(t.dtype()))
      ctx.fail_node(name, " must return a float tensor, it returned ", data_type_name(t.dtype()));
    data = read_as<double>(t);
  }

  // Softmax over each row of `cols` values. A row of -inf gives NaN, as the
  // function body's Softmax does.
  static void softmax_rows(ep::KernelContext& ctx, std::vector<double>& x, int64_t rows,
                           int64_t cols) {
    ctx.thread_pool().parallel_for(rows, double(cols * 4), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        double* row = x.data() + r * cols;
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, row[c]);
        double sum = 0;
        for (int64_t c = 0; c < cols; ++c) {
          row[c] = std::exp(row[c] - mx);
          sum += row[c];
        }
        for (int64_t c = 0; c < cols; ++c) row[c] /= sum;
      }
    });
  }

  bool has_scale_ = false;
  float scale_ = 0;
  DataType softmax_type_ = DataType::kFloat;
  const ep::SubgraphRunner* score_mod_ = nullptr;
  const ep::SubgraphRunner* prob_mod_ = nullptr;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_flex_attention(const ep::KernelInfo& info) {
  return std::make_unique<FlexAttentionKernel>(info);
}

}  // namespace tessera::cpu
