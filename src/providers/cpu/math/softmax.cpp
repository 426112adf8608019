// Softmax, LogSoftmax and Hardmax. Before opset 13 the input is coerced to
// 2-D at `axis` (default 1) and the op runs over the flattened trailing dims;
// from 13 it runs along the single dimension `axis` (default -1). Softmax
// subtracts the maximum first, so large inputs do not overflow.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "linalg/vec_math.hpp"
#include "providers/cpu/math/elementwise.hpp"
#include "providers/cpu/math/half_blocks.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class Kind { kSoftmax, kLogSoftmax, kHardmax };

// Rows shorter than this are done a block of rows at a time: the row loops
// pay a setup, horizontal reductions and a masked tail per row, which on
// rows of a few values costs more than the values themselves.
constexpr int64_t kShortRow = 32;
constexpr int64_t kBlockValues = 4096;

// Softmax or log-softmax of `rows` float rows of `len` < kShortRow values:
// per row the maximum is subtracted (scalar: the rows are short), then one
// vector exp over the whole block, then per row the sum, and one vector log
// over the block's sums for log-softmax. NaN, +inf and all -inf rows give
// NaNs, as vec_softmax_row does.
void short_rows(bool log_form, const float* in, float* out, int64_t rows, int64_t len) {
  const int64_t block_rows = std::max<int64_t>(1, kBlockValues / len);
  float ex[kBlockValues];
  float sums[kBlockValues];
  for (int64_t r0 = 0; r0 < rows; r0 += block_rows) {
    const int64_t nr = std::min(block_rows, rows - r0);
    const float* x = in + r0 * len;
    float* y = out + r0 * len;
    for (int64_t r = 0; r < nr; ++r) {
      const float* xr = x + r * len;
      float m = xr[0];
      for (int64_t j = 1; j < len; ++j) m = xr[j] > m ? xr[j] : m;
      float* yr = y + r * len;
      for (int64_t j = 0; j < len; ++j) yr[j] = xr[j] - m;
    }
    if (!log_form) {
      linalg::vec_exp(y, y, nr * len);
      for (int64_t r = 0; r < nr; ++r) {
        float* yr = y + r * len;
        float sum = 0;
        for (int64_t j = 0; j < len; ++j) sum += yr[j];
        const float inv = 1.0f / sum;
        for (int64_t j = 0; j < len; ++j) yr[j] *= inv;
      }
    } else {
      linalg::vec_exp(y, ex, nr * len);
      for (int64_t r = 0; r < nr; ++r) {
        float sum = 0;
        for (int64_t j = 0; j < len; ++j) sum += ex[r * len + j];
        sums[r] = sum;
      }
      linalg::vec_log(sums, sums, nr);
      for (int64_t r = 0; r < nr; ++r) {
        float* yr = y + r * len;
        for (int64_t j = 0; j < len; ++j) yr[j] -= sums[r];
      }
    }
  }
}

template <Kind kKind>
class SoftmaxKernel final : public ep::OpKernel {
 public:
  explicit SoftmaxKernel(const ep::KernelInfo& info)
      : opset_(info.opset()),
        axis_(info.attr_int("axis", info.opset() < 13 ? 1 : -1)),
        over_(info, {0}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }

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
    if constexpr (kKind != Kind::kHardmax) {
      // Float rows along the last axis: the vectorised row loops.
      if (x.dtype() == DataType::kFloat && inner == 1 && len > 0) {
        constexpr bool kLog = kKind == Kind::kLogSoftmax;
        Tensor& out = output_over(ctx, s, x.dtype(), {0});
        const float* in = x.data<float>();
        float* po = out.mutable_data<float>();
        ctx.thread_pool().parallel_for(outer, 12.0 * double(len), [&](int64_t b, int64_t e) {
          if (len < kShortRow) return short_rows(kLog, in + b * len, po + b * len, e - b, len);
          for (int64_t o = b; o < e; ++o) {
            if constexpr (kLog) {
              linalg::vec_log_softmax_row(in + o * len, po + o * len, len);
            } else {
              linalg::vec_softmax_row(in + o * len, po + o * len, len);
            }
          }
        });
        return;
      }
    }
    visit_type(FloatTypes{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& out = output_over(ctx, s, x.dtype(), {0});
      if (x.num_elements() == 0) return;
      const T* in = x.data<T>();
      T* po = out.mutable_data<T>();
      parallel_chunks(ctx.thread_pool(), outer, 20.0 * double(len * inner),
                      [&](int64_t b, int64_t e) {
                        std::vector<Compute<T>> buf(static_cast<size_t>(len * inner));
                        std::vector<Compute<T>> red(static_cast<size_t>(inner));
                        for (int64_t o = b; o < e; ++o) {
                          const int64_t base = o * len * inner;
                          if constexpr (is_half_v<T>) {  // the vector conversions
                            widen_halves(x.dtype(), in, base, buf.data(), len * inner);
                          } else {
                            for (int64_t i = 0; i < len * inner; ++i)
                              buf[size_t(i)] = load(in[base + i]);
                          }
                          if constexpr (is_half_v<T> && kKind == Kind::kSoftmax) {
                            if (inner == 1)  // the float rows' loop
                              linalg::vec_softmax_row(buf.data(), buf.data(), len);
                            else
                              run(buf.data(), red.data(), len, inner);
                          } else if constexpr (is_half_v<T> && kKind == Kind::kLogSoftmax) {
                            if (inner == 1)
                              linalg::vec_log_softmax_row(buf.data(), buf.data(), len);
                            else
                              run(buf.data(), red.data(), len, inner);
                          } else {
                            run(buf.data(), red.data(), len, inner);
                          }
                          if constexpr (is_half_v<T>) {
                            narrow_floats(x.dtype(), buf.data(), po, base, len * inner);
                          } else {
                            for (int64_t i = 0; i < len * inner; ++i)
                              po[base + i] = store<T>(buf[size_t(i)]);
                          }
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
      if constexpr (std::is_same_v<C, float>) {
        // The exponentials of the whole block in one vector loop, the sums
        // per column after (a column's values are `inner` apart).
        const int64_t n = len * inner;
        for (int64_t k = 0; k < len; ++k)
          for (int64_t j = 0; j < inner; ++j) v[k * inner + j] -= red[j];
        std::vector<float> ex;
        float* e = v;
        if constexpr (kKind == Kind::kLogSoftmax) {
          ex.resize(size_t(n));
          e = ex.data();
        }
        linalg::vec_exp(v, e, n);
        for (int64_t k = 0; k < len; ++k)
          for (int64_t j = 0; j < inner; ++j) sum[size_t(j)] += e[k * inner + j];
      } else {
        for (int64_t k = 0; k < len; ++k)
          for (int64_t j = 0; j < inner; ++j) {
            C d = v[k * inner + j] - red[j];
            C ex = std::exp(d);
            sum[size_t(j)] += ex;
            v[k * inner + j] = kKind == Kind::kSoftmax ? ex : d;
          }
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
  OverInputs over_;
};

}  // namespace

void add_softmax_factories(FactoryMap& m) {
  m["Softmax"] = factory_of<SoftmaxKernel<Kind::kSoftmax>>();
  m["LogSoftmax"] = factory_of<SoftmaxKernel<Kind::kLogSoftmax>>();
  m["Hardmax"] = factory_of<SoftmaxKernel<Kind::kHardmax>>();
}

}  // namespace tessera::cpu
