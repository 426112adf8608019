// Einsum (opset 12): a general loop nest over the equation's labels. Every
// term's axes get a stride per label (repeated labels add their strides, which
// reads diagonals; broadcast size-1 ellipsis dims get stride 0), so explicit
// and implicit outputs, ellipsis and traces all follow from one walk. Float
// products of two operands take einsum_as_gemm instead.
#include <algorithm>

#include "ops/einsum_labels.hpp"
#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/transformer/einsum_gemm.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

class EinsumKernel : public ep::OpKernel {
 public:
  explicit EinsumKernel(const ep::KernelInfo& info) {
    try {
      eq_ = ops::parse_einsum(info.attr_string("equation"));
    } catch (const Error& e) {
      info.fail_node(e.what());
    }
    if (eq_.terms.size() != info.num_inputs())
      info.fail_node("equation has ", eq_.terms.size(), " input terms but the node has ",
                     info.num_inputs(), " inputs");
  }

  void compute(ep::KernelContext& ctx) const override {
    const size_t nin = eq_.terms.size();
    std::vector<Shape> shapes;
    for (size_t k = 0; k < nin; ++k) shapes.push_back(ctx.required_input(k).shape());
    // The labels of every axis and their sizes: the schema's shape rule.
    ops::EinsumLabels lb;
    try {
      lb = ops::einsum_labels(eq_, shapes);
    } catch (const Error& e) {
      ctx.fail_node(e.what());
    }
    const std::vector<std::vector<int>>& axes = lb.axes;
    const std::vector<int>& out = lb.out;
    const std::vector<int64_t>& dim = lb.dim;
    const int nlabels = int(dim.size());
    std::vector<bool> in_out(size_t(nlabels), false);
    for (int l : out) in_out[size_t(l)] = true;
    std::vector<int> summed;
    for (int l = 0; l < nlabels; ++l)
      if (lb.count[size_t(l)] > 0 && !in_out[size_t(l)]) summed.push_back(l);
    if (nin == 2 && einsum_as_gemm(ctx, {&ctx.required_input(0), &axes[0]},
                                   {&ctx.required_input(1), &axes[1]}, out, dim))
      return;
    // Per input, per label stride.
    std::vector<std::vector<int64_t>> stride(nin, std::vector<int64_t>(size_t(nlabels), 0));
    std::vector<std::vector<double>> data(nin);
    for (size_t k = 0; k < nin; ++k) {
      const Tensor& t = ctx.required_input(k);
      data[k] = read_as<double>(t);
      int64_t st = 1;
      for (size_t i = axes[k].size(); i-- > 0;) {
        int l = axes[k][i];
        if (!(t.shape()[i] == 1 && dim[size_t(l)] != 1)) stride[k][size_t(l)] += st;
        st *= t.shape()[i];
      }
    }
    const Shape out_shape = lb.out_shape();
    const int64_t total = out_shape.num_elements();
    int64_t inner = 1;
    for (int l : summed) inner *= dim[size_t(l)];
    std::vector<double> result(size_t(total), 0.0);
    ctx.thread_pool().parallel_for(total, double(inner * int64_t(nin)), [&](int64_t b, int64_t e) {
      std::vector<int64_t> base(nin), idx(summed.size()), off(nin);
      for (int64_t o = b; o < e; ++o) {
        std::fill(base.begin(), base.end(), 0);
        for (int64_t rem = o, i = int64_t(out.size()) - 1; i >= 0; --i) {
          int l = out[size_t(i)];
          int64_t v = rem % dim[size_t(l)];
          rem /= dim[size_t(l)];
          for (size_t k = 0; k < nin; ++k) base[k] += v * stride[k][size_t(l)];
        }
        std::fill(idx.begin(), idx.end(), 0);
        off = base;
        double acc = 0;
        for (int64_t s = 0; s < inner; ++s) {
          double p = 1;
          for (size_t k = 0; k < nin; ++k) p *= data[k][size_t(off[k])];
          acc += p;
          // Odometer over the summed labels, updating offsets incrementally.
          for (int64_t i = int64_t(summed.size()) - 1; i >= 0; --i) {
            int l = summed[size_t(i)];
            for (size_t k = 0; k < nin; ++k) off[k] += stride[k][size_t(l)];
            if (++idx[size_t(i)] < dim[size_t(l)]) break;
            for (size_t k = 0; k < nin; ++k) off[k] -= stride[k][size_t(l)] * dim[size_t(l)];
            idx[size_t(i)] = 0;
          }
        }
        result[size_t(o)] = acc;
      }
    });
    Tensor& y = ctx.output(0, out_shape, ctx.required_input(0).dtype());
    write_from(y, result.data());
  }

 private:
  ops::EinsumEquation eq_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_einsum(const ep::KernelInfo& info) {
  return std::make_unique<EinsumKernel>(info);
}

}  // namespace tessera::cpu
