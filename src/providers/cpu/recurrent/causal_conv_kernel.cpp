// CausalConvWithState (opset 27): depthwise causal 1-D convolution over the
// concatenation [past_state (or zeros), input]; present_state is the last k-1
// positions of that concatenation.
#include "providers/cpu/recurrent/float_io.hpp"
#include "providers/cpu/recurrent/recurrent_kernels.hpp"

namespace tessera::cpu {

namespace {

class CausalConvWithStateKernel : public ep::OpKernel {
 public:
  explicit CausalConvWithStateKernel(const ep::KernelInfo& info) {
    std::string act = info.attr_string("activation", "none");
    if (act == "silu" || act == "swish") {
      silu_ = true;
    } else if (act != "none") {
      info.fail_node("activation must be 'silu', 'swish' or 'none', got '", act, "'");
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    const Tensor* bias = ctx.input(2);
    const Tensor* past = ctx.input(3);
    if (x.rank() != 3) ctx.fail_node("input must be (batch, channels, length), got ", x.shape().to_string());
    const int64_t B = x.shape()[0], C = x.shape()[1], L = x.shape()[2];
    if (w.rank() != 3 || w.shape()[0] != C || w.shape()[1] != 1 || w.shape()[2] < 1)
      ctx.fail_node("weight must be (", C, ", 1, k) with k >= 1, got ", w.shape().to_string());
    const int64_t K = w.shape()[2];
    if (bias && bias->shape() != Shape{C})
      ctx.fail_node("bias must be (", C, "), got ", bias->shape().to_string());
    if (past && past->shape() != Shape{B, C, K - 1})
      ctx.fail_node("past_state must be ", Shape{B, C, K - 1}.to_string(), ", got ",
                    past->shape().to_string());
    for (const Tensor* t : {&w, bias, past})
      if (t && t->dtype() != x.dtype())
        ctx.fail_node("all inputs must have the type of input (", data_type_name(x.dtype()),
                      "), got ", data_type_name(t->dtype()));

    std::vector<float> xv = load_float<float>(x), wv = load_float<float>(w);
    std::vector<float> bv = bias ? load_float<float>(*bias) : std::vector<float>(size_t(C), 0.f);
    std::vector<float> pv = past ? load_float<float>(*past) : std::vector<float>();
    std::vector<float> out(static_cast<size_t>(B * C * L)), state(static_cast<size_t>(B * C * (K - 1)));
    const int64_t P = K - 1 + L;  // padded length
    ctx.thread_pool().parallel_for(B * C, double(P * K), [&](int64_t r0, int64_t r1) {
      std::vector<float> padded(static_cast<size_t>(P));
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t c = r % C;
        for (int64_t j = 0; j < K - 1; ++j) padded[size_t(j)] = pv.empty() ? 0.f : pv[size_t(r * (K - 1) + j)];
        for (int64_t j = 0; j < L; ++j) padded[size_t(K - 1 + j)] = xv[size_t(r * L + j)];
        const float* wr = wv.data() + c * K;
        for (int64_t t = 0; t < L; ++t) {
          float s = bv[size_t(c)];
          for (int64_t j = 0; j < K; ++j) s += wr[j] * padded[size_t(t + j)];
          out[size_t(r * L + t)] = silu_ ? s * sigmoid(s) : s;
        }
        for (int64_t j = 0; j < K - 1; ++j) state[size_t(r * (K - 1) + j)] = padded[size_t(L + j)];
      }
    });
    store_float(out, ctx.output(0, x.shape()));
    if (ctx.has_output(1)) store_float(state, ctx.output(1, Shape{B, C, K - 1}));
  }

 private:
  bool silu_ = false;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_causal_conv_with_state_kernel(const ep::KernelInfo& info) {
  return std::make_unique<CausalConvWithStateKernel>(info);
}

}  // namespace tessera::cpu
