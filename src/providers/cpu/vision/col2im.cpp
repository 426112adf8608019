// Col2Im (opset 18): sums column blocks back into an N-D image (the inverse
// layout of im2col), with strides, dilations and pads.
#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/vision/vision_kernels.hpp"

namespace tessera::cpu {

namespace {

class Col2ImKernel : public ep::OpKernel {
 public:
  explicit Col2ImKernel(const ep::KernelInfo& info)
      : dil_(info.attr_ints("dilations")),
        pads_(info.attr_ints("pads")),
        strides_(info.attr_ints("strides")) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    auto img = ctx.required_input(1).to_int64_vector();
    auto blk = ctx.required_input(2).to_int64_vector();
    const size_t r = img.size();
    if (r == 0 || blk.size() != r)
      ctx.fail_node("image_shape ", Shape(img).to_string(), " and block_shape ",
                    Shape(blk).to_string(), " must be non-empty and of equal length");
    auto dil = dil_.empty() ? std::vector<int64_t>(r, 1) : dil_;
    auto str = strides_.empty() ? std::vector<int64_t>(r, 1) : strides_;
    auto pads = pads_.empty() ? std::vector<int64_t>(2 * r, 0) : pads_;
    if (dil.size() != r || str.size() != r || pads.size() != 2 * r)
      ctx.fail_node("dilations/strides/pads must have ", r, " / ", r, " / ", 2 * r, " entries");
    int64_t kprod = 1, L = 1;
    std::vector<int64_t> nblocks(r);
    // The sizes come from the model: every step is checked, so a huge one is
    // an error rather than a wrapped count.
    bool overflow = false;
    auto mul = [&](int64_t a, int64_t b) {
      int64_t v = 0;
      overflow |= __builtin_mul_overflow(a, b, &v);
      return v;
    };
    auto add = [&](int64_t a, int64_t b) {
      int64_t v = 0;
      overflow |= __builtin_add_overflow(a, b, &v);
      return v;
    };
    for (size_t d = 0; d < r; ++d) {
      if (blk[d] < 1 || dil[d] < 1 || str[d] < 1 || img[d] < 0)
        ctx.fail_node("block_shape, dilations and strides must be >= 1");
      kprod = mul(kprod, blk[d]);
      const int64_t ek = add(mul(blk[d] - 1, dil[d]), 1);
      nblocks[d] = add(add(img[d], pads[d]), add(pads[d + r], -ek)) / str[d] + 1;
      if (nblocks[d] < 0) nblocks[d] = 0;
      L = mul(L, nblocks[d]);
      if (overflow)
        ctx.fail_node("image_shape ", Shape(img).to_string(), ", block_shape ",
                      Shape(blk).to_string(), ", dilations, pads and strides overflow int64");
    }
    if (x.rank() != 3 || x.shape()[1] % kprod != 0 || x.shape()[2] != L)
      ctx.fail_node("input ", x.shape().to_string(), " must be [N, C*", kprod, ", ", L,
                    "] for image_shape ", Shape(img).to_string(), " and block_shape ",
                    Shape(blk).to_string());
    const int64_t N = x.shape()[0], C = x.shape()[1] / kprod;
    std::vector<int64_t> od = {N, C};
    od.insert(od.end(), img.begin(), img.end());
    Shape out_shape(od);
    const int64_t isz = Shape(img).num_elements();
    auto xd = read_as<double>(x);
    std::vector<double> out(size_t(out_shape.num_elements()), 0.0);
    std::vector<int64_t> kidx(r), bidx(r);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t k = 0; k < kprod; ++k) {
          for (int64_t rem = k, d = int64_t(r) - 1; d >= 0; --d) {
            kidx[size_t(d)] = rem % blk[size_t(d)];
            rem /= blk[size_t(d)];
          }
          const double* col = xd.data() + ((n * C + c) * kprod + k) * L;
          for (int64_t l = 0; l < L; ++l) {
            int64_t off = 0;
            bool inside = true;
            for (int64_t rem = l, d = int64_t(r) - 1; d >= 0; --d) {
              bidx[size_t(d)] = rem % nblocks[size_t(d)];
              rem /= nblocks[size_t(d)];
            }
            for (size_t d = 0; d < r && inside; ++d) {
              int64_t p = bidx[d] * str[d] - pads[d] + kidx[d] * dil[d];
              inside = p >= 0 && p < img[d];
              off = off * img[d] + p;
            }
            if (inside) out[size_t((n * C + c) * isz + off)] += col[l];
          }
        }
    Tensor& y = ctx.output(0, out_shape, x.dtype());
    write_from(y, out.data());
  }

 private:
  std::vector<int64_t> dil_, pads_, strides_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_col2im(const ep::KernelInfo& info) {
  return std::make_unique<Col2ImKernel>(info);
}

}  // namespace tessera::cpu
