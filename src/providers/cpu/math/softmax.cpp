// Softmax, LogSoftmax and Hardmax. Before opset 13 the input is coerced to
// 2-D at `axis` (default 1) and the op runs over the flattened trailing dims;
// from 13 it runs along the single dimension `axis` (default -1). Softmax
// subtracts the maximum first, so large inputs do not overflow.
#include <cmath>
#include <vector>

#include "linalg/vec_math.hpp"
#include "providers/cpu/math/elementwise.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class Kind { kSoftmax, kLogSoftmax, kHardmax };

template <Kind kKind>
class SoftmaxKernel final : public ep::OpKernel {
 public:
  explicit SoftmaxKernel(const ep::KernelInfo& info)
      : opset_(info.opset()), axis_(info.attr_int("axis", info.opset() < 13 ? 1 : -1)) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape& s = x.shape();
    const int64_t rank = int64_t(s.rank());
    int64_t axis = axis_;
    if (rank == 0) {
      if (axis != 0 && axis != -1) ctx.fail_node("axis ", axis_, " is out of range for a scalar");
      axis = 0;
    } else {
      if (axis < -rank || axis >= rank)
        ctx.fail_node("axis ", axis_, " is out of range for input ", x.description());
      if (axis < 0) axis += rank;
    }
    int64_t outer, len, inner;
    if (rank == 0) {
      outer = len = inner = 1;
    } else if (opset_ < 13) {
      outer = s.size_to(size_t(axis));
      len = s.size_from(size_t(axis));
      inner = 1;
    } else {
      outer = s.size_to(size_t(axis));
      len = s[size_t(axis)];
      inner = s.size_from(size_t(axis) + 1);
    }
    if constexpr (kKind == Kind::kSoftmax) {
      // Float rows along the last axis: the vectorised row loop, in place on the output.
      if (x.dtype() == DataType::kFloat && inner == 1) {
        Tensor& out = ctx.output(0, s, x.dtype());
        const float* in = x.data<float>();
        float* po = out.mutable_data<float>();
        ctx.thread_pool().parallel_for(outer, 12.0 * double(len), [&](int64_t b, int64_t e) {
          for (int64_t o = b; o < e; ++o) linalg::vec_softmax_row(in + o * len, po + o * len, len);
        });
        return;
      }
    }
    visit_type(FloatTypes{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.output(0, s, x.dtype());
      if (x.num_elements() == 0) return;
      const T* in = x.data<T>();
      T* po = out.mutable_data<T>();
      parallel_chunks(ctx.thread_pool(), outer, 20.0 * double(len * inner),
                      [&](int64_t b, int64_t e) {
                        std::vector<Compute<T>> buf(static_cast<size_t>(len * inner));
                        std::vector<Compute<T>> red(static_cast<size_t>(inner));
                        for (int64_t o = b; o < e; ++o) {
                          const int64_t base = o * len * inner;
                          for (int64_t i = 0; i < len * inner; ++i) buf[size_t(i)] = load(in[base + i]);
                          run(buf.data(), red.data(), len, inner);
                          for (int64_t i = 0; i < len * inner; ++i) po[base + i] = store<T>(buf[size_t(i)]);
                        }
                      });
    });
  }

 private:
  // One [len, inner] block in place; `red` holds one value per inner column.
  template <typename C>
  static void run(C* v, C* red, int64_t len, int64_t inner) {
    for (int64_t j = 0; j < inner; ++j) red[j] = v[j];
    if constexpr (kKind == Kind::kHardmax) {
      // First index of the maximum along the axis gets 1, all others 0.
      std::vector<int64_t> arg(size_t(inner), 0);
      for (int64_t k = 1; k < len; ++k)
        for (int64_t j = 0; j < inner; ++j)
          if (v[k * inner + j] > red[j]) {
            red[j] = v[k * inner + j];
            arg[size_t(j)] = k;
          }
      for (int64_t k = 0; k < len; ++k)
        for (int64_t j = 0; j < inner; ++j) v[k * inner + j] = arg[size_t(j)] == k ? C(1) : C(0);
      return;
    } else {
      for (int64_t k = 1; k < len; ++k)
        for (int64_t j = 0; j < inner; ++j) red[j] = std::max(red[j], v[k * inner + j]);
      std::vector<C> sum(size_t(inner), C(0));
      for (int64_t k = 0; k < len; ++k)
        for (int64_t j = 0; j < inner; ++j) {
          C d = v[k * inner + j] - red[j];
          C ex = std::exp(d);
          sum[size_t(j)] += ex;
          v[k * inner + j] = kKind == Kind::kSoftmax ? ex : d;
        }
      if constexpr (kKind == Kind::kSoftmax) {
        for (int64_t j = 0; j < inner; ++j) sum[size_t(j)] = C(1) / sum[size_t(j)];
        for (int64_t k = 0; k < len; ++k)
          for (int64_t j = 0; j < inner; ++j) v[k * inner + j] *= sum[size_t(j)];
      } else {
        for (int64_t j = 0; j < inner; ++j) sum[size_t(j)] = std::log(sum[size_t(j)]);
        for (int64_t k = 0; k < len; ++k)
          for (int64_t j = 0; j < inner; ++j) v[k * inner + j] -= sum[size_t(j)];
      }
    }
  }

  int64_t opset_;
  int64_t axis_;
};

}  // namespace

void add_softmax_factories(FactoryMap& m) {
  m["Softmax"] = factory_of<SoftmaxKernel<Kind::kSoftmax>>();
  m["LogSoftmax"] = factory_of<SoftmaxKernel<Kind::kLogSoftmax>>();
  m["Hardmax"] = factory_of<SoftmaxKernel<Kind::kHardmax>>();
}

}  // namespace tessera::cpu
