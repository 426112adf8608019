// Det: determinants of square matrices [*, M, M] -> [*], by LU decomposition
// with partial pivoting, computed in double.
#include <cmath>
#include <utility>
#include <vector>

#include "providers/cpu/math/elementwise.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

namespace {

double lu_det(std::vector<double>& a, int64_t m) {
  double det = 1;
  for (int64_t c = 0; c < m; ++c) {
    int64_t p = c;
    for (int64_t r = c + 1; r < m; ++r)
      if (std::fabs(a[size_t(r * m + c)]) > std::fabs(a[size_t(p * m + c)])) p = r;
    double piv = a[size_t(p * m + c)];
    if (piv == 0) return 0;
    if (p != c) {
      for (int64_t k = 0; k < m; ++k) std::swap(a[size_t(p * m + k)], a[size_t(c * m + k)]);
      det = -det;
    }
    det *= piv;
    for (int64_t r = c + 1; r < m; ++r) {
      double f = a[size_t(r * m + c)] / piv;
      if (f == 0) continue;
      for (int64_t k = c; k < m; ++k) a[size_t(r * m + k)] -= f * a[size_t(c * m + k)];
    }
  }
  return det;
}

class DetKernel final : public ep::OpKernel {
 public:
  explicit DetKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape& s = x.shape();
    if (s.rank() < 2 || s[s.rank() - 1] != s[s.rank() - 2])
      ctx.fail_node("input must be [*, M, M], got ", x.description());
    const int64_t m = s[s.rank() - 1];
    std::vector<int64_t> od(s.dims().begin(), s.dims().end() - 2);
    const Shape os(od);
    const int64_t batch = os.num_elements();
    visit_type(FloatTypes{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.output(0, os, x.dtype());
      const T* in = x.data<T>();
      T* po = out.mutable_data<T>();
      parallel_chunks(ctx.thread_pool(), batch, double(m * m * m), [&](int64_t b, int64_t e) {
        std::vector<double> a(size_t(m * m));
        for (int64_t i = b; i < e; ++i) {
          for (int64_t k = 0; k < m * m; ++k) a[size_t(k)] = double(load(in[i * m * m + k]));
          po[i] = store<T>(static_cast<Compute<T>>(lu_det(a, m)));
        }
      });
    });
  }
};

}  // namespace

void add_det_factories(FactoryMap& m) { m["Det"] = factory_of<DetKernel>(); }

}  // namespace tessera::cpu
