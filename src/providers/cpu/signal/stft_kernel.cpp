// STFT: frames of the signal, each multiplied by the window and transformed.
// Output [batch, frames, bins, 2], bins = n/2 + 1 when onesided, else n.
#include "providers/cpu/element_convert.hpp"
#include "providers/cpu/signal/fft.hpp"
#include "providers/cpu/signal/signal_kernels.hpp"

namespace tessera::cpu::signal {

namespace {

int64_t scalar_of(const ep::KernelContext& ctx, const Tensor& t, const char* what) {
  if (t.num_elements() != 1) ctx.fail_node(what, " must be a scalar, got ", t.description());
  return t.element_as_int64(0);
}

class StftKernel : public ep::OpKernel {
 public:
  explicit StftKernel(const ep::KernelInfo& info) : onesided_(info.attr_int("onesided", 1) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() != 3 || (x.shape()[2] != 1 && x.shape()[2] != 2))
      ctx.fail_node("signal must be [batch, length, 1 or 2], got ", x.description());
    int64_t batch = x.shape()[0], length = x.shape()[1], comps = x.shape()[2];
    int64_t step = scalar_of(ctx, ctx.required_input(1), "frame_step");
    if (step <= 0) ctx.fail_node("frame_step must be positive, got ", step);
    const Tensor* window = ctx.input(2);
    const Tensor* frame_len = ctx.input(3);
    if (window && window->rank() != 1)
      ctx.fail_node("window must be 1-D, got ", window->description());
    if (window && window->dtype() != x.dtype())
      ctx.fail_node("window ", window->description(), " must have the signal's type ",
                    x.description());
    int64_t n = frame_len ? scalar_of(ctx, *frame_len, "frame_length")
                          : window ? window->shape()[0] : -1;
    if (n < 0) ctx.fail_node("needs a window or a frame_length");
    if (n == 0) ctx.fail_node("frame_length must be positive");
    if (window && window->shape()[0] != n)
      ctx.fail_node("window length ", window->shape()[0], " differs from frame_length ", n);
    if (onesided_ && comps == 2) ctx.fail_node("onesided output needs a real signal");
    if (length < n)
      ctx.fail_node("signal length ", length, " is shorter than the frame length ", n);
    int64_t frames = (length - n) / step + 1;
    int64_t bins = onesided_ ? n / 2 + 1 : n;
    Tensor& y = ctx.output(0, Shape{batch, frames, bins, 2}, x.dtype());
    if (y.num_elements() == 0) return;
    FftPlan plan(size_t(n), false);
    bool ok = dispatch_real(x.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* in = x.data<T>();
      const T* w = window ? window->data<T>() : nullptr;
      T* out = y.mutable_data<T>();
      ctx.thread_pool().parallel_for(batch * frames, double(n) * 20, [&](int64_t b, int64_t e) {
        std::vector<cd> buf(static_cast<size_t>(n)), scratch;
        for (int64_t job = b; job < e; ++job) {
          int64_t bi = job / frames, f = job % frames;
          for (int64_t k = 0; k < n; ++k) {
            int64_t at = (bi * length + f * step + k) * comps;
            double wk = w ? to_double(w[k]) : 1.0;
            buf[size_t(k)] =
                cd(to_double(in[at]) * wk, comps == 2 ? to_double(in[at + 1]) * wk : 0.0);
          }
          plan.run(buf.data(), scratch);
          T* o = out + job * bins * 2;
          for (int64_t k = 0; k < bins; ++k) {
            o[2 * k] = from_double<T>(buf[size_t(k)].real());
            o[2 * k + 1] = from_double<T>(buf[size_t(k)].imag());
          }
        }
      });
    });
    if (!ok) ctx.fail_node("unsupported signal type ", x.description());
  }

 private:
  bool onesided_;
};

}  // namespace

void register_stft(ep::KernelRegistry& r) {
  using ep::TypeConstraint;
  const std::vector<DataType> kIdx = {DataType::kInt32, DataType::kInt64};
  r.add<StftKernel>({"", "STFT", 17, ep::kOpsetMax,
                     {TypeConstraint{"T1", {0, 2}, ep::types::kFloats},
                      TypeConstraint{"T2", {1, 3}, kIdx}}});
}

}  // namespace tessera::cpu::signal
