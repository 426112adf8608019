// AffineGrid (opset 20): the sampling grid of a batch of 2-D or 3-D affine
// transforms, in the normalized coordinates GridSample consumes.
#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/vision/vision_kernels.hpp"

namespace tessera::cpu {

namespace {

class AffineGridKernel : public ep::OpKernel {
 public:
  explicit AffineGridKernel(const ep::KernelInfo& info)
      : align_(info.attr_int("align_corners", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& theta = ctx.required_input(0);
    auto size = ctx.required_input(1).to_int64_vector();
    if (size.size() != 4 && size.size() != 5)
      ctx.fail_node("size must have 4 (N, C, H, W) or 5 (N, C, D, H, W) entries, got ",
                    size.size());
    const size_t r = size.size() - 2;  // spatial dims
    const int64_t N = size[0];
    if (theta.rank() != 3 || theta.shape()[0] != N || theta.shape()[1] != int64_t(r) ||
        theta.shape()[2] != int64_t(r + 1))
      ctx.fail_node("theta must be [", N, ", ", r, ", ", r + 1, "] for size ",
                    Shape(size).to_string(), ", got ", theta.shape().to_string());
    std::vector<int64_t> sp(size.begin() + 2, size.end());
    for (int64_t d : sp)
      if (d < 0) ctx.fail_node("negative size ", Shape(size).to_string());
    auto th = read_as<double>(theta);
    std::vector<int64_t> od = {N};
    od.insert(od.end(), sp.begin(), sp.end());
    od.push_back(int64_t(r));
    Shape out_shape(od);
    // The output first: a size too large to hold fails there, naming it.
    Tensor& y = ctx.output(0, out_shape, theta.dtype());
    std::vector<double> out(size_t(out_shape.num_elements()));
    const int64_t points = Shape(sp).num_elements();
    auto coord = [&](int64_t i, int64_t len) {
      if (align_) return len <= 1 ? -1.0 : -1.0 + 2.0 * double(i) / double(len - 1);
      return -1.0 + (2.0 * double(i) + 1.0) / double(len);
    };
    std::vector<double> base(r + 1);
    for (int64_t n = 0; n < N; ++n) {
      const double* t = th.data() + n * int64_t(r * (r + 1));
      for (int64_t p = 0; p < points; ++p) {
        // base = (x, y[, z], 1) with x along the innermost dimension.
        for (int64_t rem = p, d = int64_t(r) - 1; d >= 0; --d) {
          int64_t len = sp[size_t(d)];
          base[r - 1 - size_t(d)] = coord(rem % len, len);
          rem /= len;
        }
        base[r] = 1.0;
        double* o = out.data() + (n * points + p) * int64_t(r);
        for (size_t i = 0; i < r; ++i) {
          double s = 0;
          for (size_t j = 0; j <= r; ++j) s += t[i * (r + 1) + j] * base[j];
          o[i] = s;
        }
      }
    }
    write_from(y, out.data());
  }

 private:
  bool align_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_affine_grid(const ep::KernelInfo& info) {
  return std::make_unique<AffineGridKernel>(info);
}

}  // namespace tessera::cpu
