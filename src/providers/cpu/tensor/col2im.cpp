// Col2Im: scatter-adds column blocks back into an N-D image (the inverse of
// im2col); sums are formed in double and converted once.
#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
namespace types = ep::types;

class Col2ImKernel : public OpKernel {
 public:
  explicit Col2ImKernel(const KernelInfo& info)
      : dil_(info.attr_ints("dilations")), pads_(info.attr_ints("pads")),
        strides_(info.attr_ints("strides")) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<int64_t> img = read_ints(ctx.required_input(1));
    std::vector<int64_t> blk = read_ints(ctx.required_input(2));
    size_t n = img.size();
    if (x.rank() != 3 || n == 0 || blk.size() != n)
      ctx.fail_node("input ", x.description(), ", image_shape ", Shape(img).to_string(),
                    " and block_shape ", Shape(blk).to_string(), " do not fit together");
    std::vector<int64_t> dil = dil_.empty() ? std::vector<int64_t>(n, 1) : dil_;
    std::vector<int64_t> st = strides_.empty() ? std::vector<int64_t>(n, 1) : strides_;
    std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * n, 0) : pads_;
    if (dil.size() != n || st.size() != n || pads.size() != 2 * n)
      ctx.fail_node("dilations, strides and pads must have ", n, " (pads: ", 2 * n, ") entries");
    int64_t bprod = 1, L = 1;
    std::vector<int64_t> nblk(n);
    for (size_t i = 0; i < n; ++i) {
      if (blk[i] <= 0 || dil[i] <= 0 || st[i] <= 0 || img[i] < 0)
        ctx.fail_node("block, dilation and stride sizes must be positive");
      bprod *= blk[i];
      int64_t span = dil[i] * (blk[i] - 1) + 1;
      nblk[i] = (img[i] + pads[i] + pads[i + n] - span) / st[i] + 1;
      if (nblk[i] < 0) nblk[i] = 0;
      L *= nblk[i];
    }
    int64_t N = x.shape()[0];
    if (x.shape()[1] % bprod != 0 || x.shape()[2] != L)
      ctx.fail_node("input of shape ", x.shape().to_string(), " does not match block product ",
                    bprod, " and ", L, " blocks");
    int64_t C = x.shape()[1] / bprod;
    std::vector<int64_t> odims{N, C};
    odims.insert(odims.end(), img.begin(), img.end());
    Shape os(odims);
    Tensor& y = ctx.output(0, os, x.dtype());
    int64_t isz = Shape(img).num_elements();
    std::vector<double> acc(size_t(N * C * isz), 0.0);
    std::vector<int64_t> kpos(n), lpos(n);
    for (int64_t nc = 0; nc < N * C; ++nc)
      for (int64_t kb = 0; kb < bprod; ++kb) {
        int64_t rem = kb;
        for (size_t i = n; i-- > 0;) { kpos[i] = rem % blk[i]; rem /= blk[i]; }
        for (int64_t l = 0; l < L; ++l) {
          int64_t rl = l, off = 0;
          bool inside = true;
          for (size_t i = n; i-- > 0;) { lpos[i] = rl % nblk[i]; rl /= nblk[i]; }
          for (size_t i = 0; i < n && inside; ++i) {
            int64_t c = lpos[i] * st[i] - pads[i] + kpos[i] * dil[i];
            inside = c >= 0 && c < img[i];
            off = off * img[i] + c;
          }
          if (inside)
            acc[size_t(nc * isz + off)] += x.element_as_double((nc * bprod + kb) * L + l);
        }
      }
    dispatch_numeric(x.dtype(), "Col2Im", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* d = y.mutable_data<T>();
      for (size_t i = 0; i < acc.size(); ++i) d[i] = T(Acc<T>(acc[i]));
    });
  }

 private:
  std::vector<int64_t> dil_, pads_, strides_;
};

}  // namespace

void register_col2im_kernels(ep::KernelRegistry& r) {
  r.add<Col2ImKernel>({"", "Col2Im", 18, ep::kOpsetMax, {{"T", {0}, types::kNumeric}}});
}

}  // namespace tessera::cpu
