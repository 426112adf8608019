// SwiGLU (opset 28): Y = A * sigmoid(alpha * A) * B, element-wise on equal shapes.
#include <algorithm>

#include "providers/cpu/extras/extras_kernels.hpp"
#include "providers/cpu/recurrent/float_io.hpp"

namespace tessera::cpu {

namespace {

class SwiGLUKernel : public ep::OpKernel {
 public:
  explicit SwiGLUKernel(const ep::KernelInfo& info)
      : alpha_(info.attr_float("alpha", 1.f)),
        same_type_(info.input_type(0) == info.output_type(0) &&
                   info.input_type(1) == info.output_type(0)) {}
  bool writes_over_input(size_t i) const override { return i < 2 && same_type_; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    if (a.shape() != b.shape() || a.dtype() != b.dtype())
      ctx.fail_node("A and B must have one shape and type (no broadcasting), got ", a.description(),
                    " and ", b.description());
    // Each block of A and B is loaded before the output's block is stored,
    // so Y may be written over either (output_reusing falls back to a
    // fresh tensor).
    Tensor& y = ctx.can_reuse(0, 1, a.shape()) ? ctx.output_reusing(0, 1, a.shape())
                                               : ctx.output_reusing(0, 0, a.shape());
    with_compute_type(a.dtype(), [&](auto z) {
      using A = decltype(z);
      const int64_t n = a.num_elements();
      const A alpha = A(alpha_);
      ctx.thread_pool().parallel_for(n, 20.0, [&](int64_t i0, int64_t i1) {
        constexpr int64_t kBlock = 256;
        A av[kBlock], bv[kBlock];
        const size_t esz = data_type_storage_bytes(a.dtype(), 1);
        for (int64_t i = i0; i < i1; i += kBlock) {
          int64_t m = std::min(kBlock, i1 - i);
          load_float_elems<A>(a.dtype(), static_cast<const char*>(a.raw_data()) + i * esz, m, av);
          load_float_elems<A>(b.dtype(), static_cast<const char*>(b.raw_data()) + i * esz, m, bv);
          for (int64_t k = 0; k < m; ++k) av[k] = av[k] * sigmoid(alpha * av[k]) * bv[k];
          store_float_elems<A>(av, m, y.dtype(),
                               static_cast<char*>(y.mutable_raw_data()) + i * esz);
        }
      });
    });
  }

 private:
  float alpha_;
  bool same_type_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_swiglu_kernel(const ep::KernelInfo& info) {
  return std::make_unique<SwiGLUKernel>(info);
}

}  // namespace tessera::cpu
