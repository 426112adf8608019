// DFT (opset 17: axis attribute; opset 20: axis input, default -2). The
// input's last dimension holds (real) or (real, imaginary); the transform
// runs along `axis` over every other index, in double precision.
#include <algorithm>

#include "providers/cpu/element_convert.hpp"
#include "providers/cpu/signal/fft.hpp"
#include "providers/cpu/signal/signal_kernels.hpp"

namespace tessera::cpu::signal {

namespace {

class DftKernel : public ep::OpKernel {
 public:
  explicit DftKernel(const ep::KernelInfo& info)
      : opset_(info.opset()),
        inverse_(info.attr_int("inverse", 0) != 0),
        onesided_(info.attr_int("onesided", 0) != 0),
        axis_attr_(info.attr_int("axis", 1)) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    int64_t r = int64_t(x.rank());
    if (r < 2) ctx.fail_node("input must have rank >= 2 (signal dims, then 1 or 2), got ", x.description());
    int64_t comps = x.shape()[size_t(r - 1)];
    if (comps != 1 && comps != 2)
      ctx.fail_node("the last dimension must be 1 (real) or 2 (complex), got ", x.description());
    int64_t axis = opset_ >= 20 ? -2 : axis_attr_;
    if (opset_ >= 20) {
      if (const Tensor* a = ctx.input(2)) {
        if (a->num_elements() != 1) ctx.fail_node("axis must be a scalar, got ", a->description());
        axis = a->element_as_int64(0);
      }
    }
    if (!((axis >= -r && axis <= -2) || (axis >= 0 && axis <= r - 2)))
      ctx.fail_node("axis ", axis, " is out of range [", -r, ", -2] U [0, ", r - 2, "] for ",
                    x.description());
    if (axis < 0) axis += r;
    int64_t dim = x.shape()[size_t(axis)];
    bool irfft = onesided_ && inverse_;
    int64_t n = irfft ? 2 * (dim - 1) : dim;
    if (const Tensor* l = ctx.input(1)) {
      if (l->num_elements() != 1) ctx.fail_node("dft_length must be a scalar, got ", l->description());
      n = l->element_as_int64(0);
    }
    if (n <= 0) ctx.fail_node("dft_length must be positive, got ", n, " for ", x.description());
    if (irfft && comps != 2) ctx.fail_node("an inverse one-sided DFT needs complex input");
    int64_t out_len = onesided_ && !inverse_ ? n / 2 + 1 : n;
    std::vector<int64_t> dims = x.shape().dims();
    dims[size_t(axis)] = out_len;
    dims.back() = irfft ? 1 : 2;
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    if (y.num_elements() == 0) return;

    int64_t outer = x.shape().size_to(size_t(axis));
    int64_t inner = Shape(std::vector<int64_t>(dims.begin() + axis + 1, dims.end() - 1)).num_elements();
    FftPlan plan(size_t(n), inverse_);
    int64_t lines = outer * inner;
    int64_t out_comps = dims.back();
    bool ok = dispatch_real(x.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* in = x.data<T>();
      T* out = y.mutable_data<T>();
      ctx.thread_pool().parallel_for(lines, double(n) * 20, [&](int64_t b, int64_t e) {
        std::vector<cd> buf(static_cast<size_t>(n)), scratch;
        for (int64_t line = b; line < e; ++line) {
          int64_t o = line / inner, i = line % inner;
          auto in_at = [&](int64_t k) { return ((o * dim + k) * inner + i) * comps; };
          std::fill(buf.begin(), buf.end(), cd(0, 0));
          if (irfft) {
            // Rebuild the full spectrum from its one-sided half by conjugate symmetry.
            int64_t have = std::min(dim, n / 2 + 1);
            for (int64_t k = 0; k < have; ++k) {
              cd v(to_double(in[in_at(k)]), to_double(in[in_at(k) + 1]));
              buf[size_t(k)] = v;
              if (k > 0 && n - k != k) buf[size_t(n - k)] = std::conj(v);
            }
          } else {
            for (int64_t k = 0; k < std::min(dim, n); ++k)
              buf[size_t(k)] = cd(to_double(in[in_at(k)]),
                                  comps == 2 ? to_double(in[in_at(k) + 1]) : 0.0);
          }
          plan.run(buf.data(), scratch);
          double scale = inverse_ ? 1.0 / double(n) : 1.0;
          for (int64_t k = 0; k < out_len; ++k) {
            int64_t at = ((o * out_len + k) * inner + i) * out_comps;
            out[at] = from_double<T>(buf[size_t(k)].real() * scale);
            if (out_comps == 2) out[at + 1] = from_double<T>(buf[size_t(k)].imag() * scale);
          }
        }
      });
    });
    if (!ok) ctx.fail_node("unsupported input type ", x.description());
  }

 private:
  int64_t opset_;
  bool inverse_, onesided_;
  int64_t axis_attr_;
};

}  // namespace

void register_dft(ep::KernelRegistry& r) {
  using ep::TypeConstraint;
  const std::vector<DataType> kIdx = {DataType::kInt32, DataType::kInt64};
  r.add<DftKernel>({"", "DFT", 17, 19,
                    {TypeConstraint{"T1", {0}, ep::types::kFloats}, TypeConstraint{"T2", {1}, kIdx}}});
  r.add<DftKernel>({"", "DFT", 20, ep::kOpsetMax,
                    {TypeConstraint{"T1", {0}, ep::types::kFloats}, TypeConstraint{"T2", {1}, kIdx},
                     TypeConstraint{"axis", {2}, {DataType::kInt64}}}});
}

}  // namespace tessera::cpu::signal
