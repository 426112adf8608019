// ConvTranspose: per (image, group), col = W_g^T * X_g by GEMM, then col2im
// scatters the columns into the output, summing overlaps.
#include "ops/conv_transpose.hpp"

#include <algorithm>
#include <memory>
#include <type_traits>

#include "ep/op_shape.hpp"
#include "linalg/gemm.hpp"
#include "linalg/im2col.hpp"
#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

void gemm_tn(int64_t M, int64_t N, int64_t K, const float* A, const float* B, float* C,
             ThreadPool* pool) {
  linalg::sgemm(true, false, M, N, K, 1.f, A, M, B, N, 0.f, C, N, pool);
}
void gemm_tn(int64_t M, int64_t N, int64_t K, const double* A, const double* B, double* C,
             ThreadPool* pool) {
  linalg::dgemm(true, false, M, N, K, 1.0, A, M, B, N, 0.0, C, N, pool);
}

class ConvTransposeKernel : public ep::OpKernel {
 public:
  explicit ConvTransposeKernel(const ep::KernelInfo& info)
      : shape_(info), group_(info.attr_int("group", 1)) {
    // Constant float filters: each group's W^T packed once for the GEMM (a
    // per-call packing was an eighth of a decoder layer's time).
    const Tensor* w = info.constant_input(1);
    if (!w || w->dtype() == DataType::kDouble || w->rank() < 3 || group_ <= 0 ||
        w->shape()[0] % group_ != 0)
      return;
    packed_ = info.prepacked<std::vector<linalg::PackedA>>(
        1, "cpu.conv_transpose.packed_a", {group_}, [&] {
          std::vector<float> store;
          const float* p = to_compute<float>(*w, store);
          const int64_t Cg = w->shape()[0] / group_, Mk = w->num_elements() / w->shape()[0];
          std::vector<linalg::PackedA> packed;
          for (int64_t gi = 0; gi < group_; ++gi)
            packed.emplace_back(/*trans=*/true, Mk, Cg, p + gi * Cg * Mk, Mk);
          return packed;
        });
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& W = ctx.required_input(1);
    const Tensor* B = ctx.input(2);
    // The output size and the pads it implies (the schema's rule, which
    // also checks X, W and B against each other).
    const auto geo = ops::conv_transpose_geometry(
        ops::TensorShapeQuery(ctx.node(), shape_.opset(), shape_.schema(), {&X, &W, B}));
    const auto& xd = X.shape().dims();
    const int64_t N = xd[0], C = xd[1], M = geo->y[1];
    std::vector<int64_t> in(xd.begin() + 2, xd.end());
    const std::vector<int64_t>& kernel = geo->window.kernel;
    const std::vector<int64_t>& strides = geo->window.strides;
    const std::vector<int64_t>& dil = geo->window.dilations;
    const std::vector<int64_t>& out = geo->dims.out;
    const std::vector<int64_t>& pb = geo->dims.pads_begin;
    Tensor& Y = ctx.output(0, geo->y);
    if (Y.num_elements() == 0) return;
    // col2im's "image" is the output and its window grid is the input.
    linalg::ConvGeometry g{out, in, kernel, strides, pb, dil};
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx, sw, sb;
      const T* x = to_compute<T>(X, sx);
      const T* w = to_compute<T>(W, sw);
      const T* b = B ? to_compute<T>(*B, sb) : nullptr;
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      ThreadPool* pool = &ctx.thread_pool();
      const int64_t Cg = C / group_, Mg = M / group_;
      const int64_t isz = g.out_size(), osz = g.in_size(), ksz = g.kernel_size();
      std::fill(y, y + Y.num_elements(), T(0));
      std::vector<T> col(size_t(Mg * ksz * isz));
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t gi = 0; gi < group_; ++gi) {
          const T* xg = x + (n * C + gi * Cg) * isz;
          if constexpr (std::is_same_v<T, float>) {
            const linalg::PackedA* pa = packed_ ? &(*packed_)[size_t(gi)] : nullptr;
            if (pa && pa->rows() == Mg * ksz && pa->depth() == Cg)
              linalg::sgemm_packed(*pa, false, isz, xg, isz, col.data(), isz, pool);
            else
              gemm_tn(Mg * ksz, isz, Cg, w + gi * Cg * Mg * ksz, xg, col.data(), pool);
          } else {
            gemm_tn(Mg * ksz, isz, Cg, w + gi * Cg * Mg * ksz, xg, col.data(), pool);
          }
          linalg::col2im<T>(col.data(), Mg, g, y + (n * M + gi * Mg) * osz, pool);
        }
      }
      if (b)
        for (int64_t nm = 0; nm < N * M; ++nm)
          for (int64_t i = 0; i < osz; ++i) y[nm * osz + i] += b[nm % M];
      yo.finish();
    });
  }

 private:
  ep::OpShape shape_;
  int64_t group_;
  std::shared_ptr<const std::vector<linalg::PackedA>> packed_;  // per group, or null
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_conv_transpose(const ep::KernelInfo& info) {
  return std::make_unique<ConvTransposeKernel>(info);
}

}  // namespace tessera::cpu::nn
