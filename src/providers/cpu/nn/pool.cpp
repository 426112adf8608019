// MaxPool, AveragePool and LpPool over N-D windows, and the global pools.
// Windows are planned once per call: for each spatial dim and output index,
// the list of in-bounds input indices; a window is their cartesian product.
#include <algorithm>
#include <cmath>
#include <limits>

#include "linalg/pool2d.hpp"
#include "linalg/row_reduce.hpp"
#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

struct PoolPlan {
  size_t r = 0;
  std::vector<int64_t> in, out;
  // taps[d][o] = in-bounds input indices of output index o along dim d.
  std::vector<std::vector<std::vector<int64_t>>> taps;
  // padded[d][o] = window positions inside the explicitly padded input.
  std::vector<std::vector<int64_t>> padded;
  int64_t in_size = 1, out_size = 1;

  explicit PoolPlan(const Window& w) : r(w.rank()), in(w.in), out(w.out) {
    taps.resize(r);
    padded.resize(r);
    for (size_t d = 0; d < r; ++d) {
      taps[d].resize(size_t(out[d]));
      padded[d].resize(size_t(out[d]));
      for (int64_t o = 0; o < out[d]; ++o) {
        for (int64_t k = 0; k < w.kernel[d]; ++k) {
          const int64_t i = o * w.strides[d] - w.pads_begin[d] + k * w.dilations[d];
          if (i >= -w.pads_begin[d] && i < in[d] + w.pads_end[d]) ++padded[d][size_t(o)];
          if (i >= 0 && i < in[d]) taps[d][size_t(o)].push_back(i);
        }
      }
      in_size *= in[d];
      out_size *= out[d];
    }
  }

  // Calls f(row_major_offset, col_major_offset) for each in-bounds tap of the
  // output at flat index `oi`; returns the padded window size.
  template <typename F>
  int64_t window(int64_t oi, F&& f) const {
    int64_t o[8], pos[8];
    const std::vector<int64_t>* lists[8];
    int64_t count_padded = 1;
    for (size_t d = r; d-- > 0;) {
      o[d] = oi % out[d];
      oi /= out[d];
      lists[d] = &taps[d][size_t(o[d])];
      count_padded *= padded[d][size_t(o[d])];
      if (lists[d]->empty()) return count_padded;
      pos[d] = 0;
    }
    for (;;) {
      int64_t row = 0, col = 0, cstride = 1;
      for (size_t d = 0; d < r; ++d) row = row * in[d] + (*lists[d])[size_t(pos[d])];
      for (size_t d = 0; d < r; ++d) {
        col += (*lists[d])[size_t(pos[d])] * cstride;
        cstride *= in[d];
      }
      f(row, col);
      size_t d = r;
      while (d-- > 0) {
        if (++pos[d] < int64_t(lists[d]->size())) break;
        pos[d] = 0;
      }
      if (d == size_t(-1)) return count_padded;
    }
  }
};

enum class PoolKind { kMax, kAverage, kLp };

class PoolKernel : public ep::OpKernel {
 public:
  PoolKernel(const ep::KernelInfo& info, PoolKind kind) : kind_(kind) {
    attrs_.parse(info, true);
    if (attrs_.kernel.empty()) info.fail_node("kernel_shape is required");
    count_include_pad_ = info.attr_int("count_include_pad", 0) != 0;
    storage_order_ = info.attr_int("storage_order", 0);
    if (kind == PoolKind::kLp) {
      // LpPool-1 had a float p; later versions an int.
      const ir::Attribute* a = info.node().attr("p");
      p_ = 2.0;
      if (a) p_ = a->type == ir::AttrType::kFloat ? double(a->f) : double(a->i);
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const auto& xd = X.shape().dims();
    if (xd.size() < 3) ctx.fail_node("X must be [N, C, spatial...], got ", X.shape().to_string());
    if (xd.size() - 2 > 8)
      ctx.fail_node("at most 8 spatial dims are supported, got ", X.shape().to_string());
    std::vector<int64_t> spatial(xd.begin() + 2, xd.end());
    const Window w = resolve_window(ctx, attrs_, spatial, attrs_.kernel);
    std::vector<int64_t> yd = {xd[0], xd[1]};
    yd.insert(yd.end(), w.out.begin(), w.out.end());
    Tensor& Y = ctx.output(0, Shape(yd));
    Tensor* I = ctx.has_output(1) ? &ctx.output(1, Shape(yd), DataType::kInt64) : nullptr;
    if (Y.num_elements() == 0) return;
    const int64_t planes = xd[0] * xd[1];
    const DataType t = X.dtype();
    const bool floats = t == DataType::kFloat;
    if (!I && w.rank() <= 3 &&
        (kind_ == PoolKind::kMax
             ? (floats || (w.rank() <= 2 && (t == DataType::kUInt8 || t == DataType::kInt8)))
             : floats)) {
      run_planes(ctx, X, Y, w, planes);
      return;
    }
    const PoolPlan plan(w);
    switch (X.dtype()) {
      case DataType::kInt8:
        run_max<int8_t>(ctx, X.data<int8_t>(), Y.mutable_data<int8_t>(), I, plan, planes);
        return;
      case DataType::kUInt8:
        run_max<uint8_t>(ctx, X.data<uint8_t>(), Y.mutable_data<uint8_t>(), I, plan, planes);
        return;
      default:
        break;
    }
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx;
      const T* x = to_compute<T>(X, sx);
      ComputeOutput<T> yo(Y);
      if (kind_ == PoolKind::kMax)
        run_max<T>(ctx, x, yo.data(), I, plan, planes);
      else
        run_sum<T>(ctx, x, yo.data(), plan, planes);
      yo.finish();
    });
  }

 private:
  // The common CNN cases (ResNet's stem, DenseNet's transitions, float or
  // 8-bit, their 1-D forms as one-row planes, and 3-D pools as a max or sum
  // over depth of 2-D pooled slices): vectorised plane kernels. LpPool sums
  // |x|^p the same way.
  void run_planes(ep::KernelContext& ctx, const Tensor& X, Tensor& Y, const Window& w,
                  int64_t planes) const {
    const size_t r = w.rank();
    const size_t h = r - std::min<size_t>(r, 2), c = r - 1;  // the 2-D slice's dims
    auto two = [&](const std::vector<int64_t>& v, int64_t one) { return r >= 2 ? v[h] : one; };
    const linalg::DepthwiseGeometry g{
        two(w.in, 1),         w.in[c],         two(w.out, 1),       w.out[c],
        two(w.kernel, 1),     w.kernel[c],     two(w.strides, 1),   w.strides[c],
        two(w.pads_begin, 0), w.pads_begin[c], two(w.dilations, 1), w.dilations[c]};
    const double cost = double(w.out_size() * w.kernel_size());
    const DataType t = X.dtype();
    if (t != DataType::kFloat) {
      auto planes_of = [&]<typename T>(const T* x, T* y) {
        ctx.thread_pool().parallel_for(planes, cost, [&](int64_t p0, int64_t p1) {
          for (int64_t p = p0; p < p1; ++p)
            linalg::max_pool2d_plane(x + p * w.in_size(), g, y + p * w.out_size());
        });
      };
      if (t == DataType::kUInt8)
        planes_of(X.data<uint8_t>(), Y.mutable_data<uint8_t>());
      else
        planes_of(X.data<int8_t>(), Y.mutable_data<int8_t>());
      return;
    }
    const std::vector<float> div =
        kind_ == PoolKind::kAverage ? average_divisors(w) : std::vector<float>{};
    const float* x = X.data<float>();
    float* y = Y.mutable_data<float>();
    ctx.thread_pool().parallel_for(planes, cost, [&](int64_t p0, int64_t p1) {
      std::vector<float> powered, slices;
      for (int64_t p = p0; p < p1; ++p) {
        const float* xp = x + p * w.in_size();
        float* yp = y + p * w.out_size();
        if (kind_ == PoolKind::kLp) {
          powered.resize(size_t(w.in_size()));
          lp_powers(xp, powered.data(), w.in_size());
          xp = powered.data();
        }
        if (r == 3)
          pool_depth(xp, w, g, yp, slices);
        else if (kind_ == PoolKind::kMax)
          linalg::max_pool2d_plane(xp, g, yp);
        else
          linalg::sum_pool2d_plane(xp, g, yp);
        if (kind_ == PoolKind::kAverage)
          for (size_t i = 0; i < div.size(); ++i) yp[i] = div[i] > 0 ? yp[i] / div[i] : 0.f;
        else if (kind_ == PoolKind::kLp)
          lp_roots(yp, w.out_size());
      }
    });
  }

  // A 3-D plane: each input depth slice pooled in 2-D once (into `slices`),
  // then each output slice the max or sum of the slices its depth taps read.
  void pool_depth(const float* x, const Window& w, const linalg::DepthwiseGeometry& g, float* y,
                  std::vector<float>& slices) const {
    const int64_t D = w.in[0], in_slice = g.H * g.W, out_slice = g.OH * g.OW;
    const bool max = kind_ == PoolKind::kMax;
    slices.resize(size_t(D * out_slice));
    std::vector<bool> used(size_t(D), false);
    for (int64_t od = 0; od < w.out[0]; ++od)
      for (int64_t k = 0; k < w.kernel[0]; ++k) {
        const int64_t d = od * w.strides[0] - w.pads_begin[0] + k * w.dilations[0];
        if (d >= 0 && d < D) used[size_t(d)] = true;
      }
    for (int64_t d = 0; d < D; ++d) {
      if (!used[size_t(d)]) continue;
      float* s = slices.data() + d * out_slice;
      if (max)
        linalg::max_pool2d_plane(x + d * in_slice, g, s);
      else
        linalg::sum_pool2d_plane(x + d * in_slice, g, s);
    }
    for (int64_t od = 0; od < w.out[0]; ++od) {
      float* yo = y + od * out_slice;
      std::fill(yo, yo + out_slice, max ? std::numeric_limits<float>::lowest() : 0.f);
      for (int64_t k = 0; k < w.kernel[0]; ++k) {
        const int64_t d = od * w.strides[0] - w.pads_begin[0] + k * w.dilations[0];
        if (d < 0 || d >= D) continue;
        const float* s = slices.data() + d * out_slice;
        if (max)
          for (int64_t i = 0; i < out_slice; ++i) yo[i] = s[i] > yo[i] ? s[i] : yo[i];
        else
          for (int64_t i = 0; i < out_slice; ++i) yo[i] += s[i];
      }
    }
  }

  // LpPool's terms |x|^p and its result sum^(1/p), as the window walker
  // computes them (x * x and sqrt for p = 2).
  void lp_powers(const float* x, float* out, int64_t n) const {
    if (p_ == 2.0)
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] * x[i];
    else if (p_ == 1.0)
      for (int64_t i = 0; i < n; ++i) out[i] = std::abs(x[i]);
    else
      for (int64_t i = 0; i < n; ++i) out[i] = float(std::pow(std::abs(x[i]), p_));
  }
  void lp_roots(float* y, int64_t n) const {
    if (p_ == 2.0)
      for (int64_t i = 0; i < n; ++i) y[i] = std::sqrt(y[i]);
    else if (p_ != 1.0)
      for (int64_t i = 0; i < n; ++i) y[i] = float(std::pow(y[i], 1.0 / p_));
  }

  // Each output's divisor (the window's taps inside the input, or inside
  // the explicitly padded input with count_include_pad), a product of one
  // count per dim.
  std::vector<float> average_divisors(const Window& w) const {
    std::vector<int64_t> div{1};
    for (size_t d = 0; d < w.rank(); ++d) {
      std::vector<int64_t> next;
      for (int64_t c : div)
        for (int64_t o = 0; o < w.out[d]; ++o) {
          int64_t n = 0;
          for (int64_t k = 0; k < w.kernel[d]; ++k) {
            const int64_t i = o * w.strides[d] - w.pads_begin[d] + k * w.dilations[d];
            n += count_include_pad_ ? (i >= -w.pads_begin[d] && i < w.in[d] + w.pads_end[d])
                                    : (i >= 0 && i < w.in[d]);
          }
          next.push_back(c * n);
        }
      div = std::move(next);
    }
    return std::vector<float>(div.begin(), div.end());
  }

  template <typename T>
  void run_max(ep::KernelContext& ctx, const T* x, T* y, Tensor* I, const PoolPlan& plan,
               int64_t planes) const {
    int64_t* idx = I ? I->mutable_data<int64_t>() : nullptr;
    const bool col_major = storage_order_ != 0;
    ctx.thread_pool().parallel_for(planes, double(plan.out_size) * 9, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const T* xp = x + p * plan.in_size;
        for (int64_t oi = 0; oi < plan.out_size; ++oi) {
          T best = std::numeric_limits<T>::lowest();
          int64_t best_i = -1, best_c = -1;
          plan.window(oi, [&](int64_t row, int64_t col) {
            if (best_i < 0 || xp[row] > best) {
              best = xp[row];
              best_i = row;
              best_c = col;
            }
          });
          y[p * plan.out_size + oi] = best;
          if (idx)
            idx[p * plan.out_size + oi] =
                p * plan.in_size + (best_i < 0 ? 0 : (col_major ? best_c : best_i));
        }
      }
    });
  }

  template <typename T>
  void run_sum(ep::KernelContext& ctx, const T* x, T* y, const PoolPlan& plan,
               int64_t planes) const {
    ctx.thread_pool().parallel_for(planes, double(plan.out_size) * 9, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const T* xp = x + p * plan.in_size;
        for (int64_t oi = 0; oi < plan.out_size; ++oi) {
          T sum = 0;
          int64_t valid = 0;
          const int64_t padded = plan.window(oi, [&](int64_t row, int64_t) {
            const T v = xp[row];
            if (kind_ == PoolKind::kLp)
              sum += p_ == 2.0 ? v * v : (p_ == 1.0 ? std::abs(v) : T(std::pow(std::abs(v), p_)));
            else
              sum += v;
            ++valid;
          });
          T out;
          if (kind_ == PoolKind::kLp) {
            out = p_ == 2.0 ? std::sqrt(sum) : (p_ == 1.0 ? sum : T(std::pow(sum, 1.0 / p_)));
          } else {
            const int64_t div = count_include_pad_ ? padded : valid;
            out = div > 0 ? sum / T(div) : T(0);
          }
          y[p * plan.out_size + oi] = out;
        }
      }
    });
  }

  PoolKind kind_;
  WindowAttrs attrs_;
  bool count_include_pad_ = false;
  int64_t storage_order_ = 0;
  double p_ = 2.0;
};

class GlobalPoolKernel : public ep::OpKernel {
 public:
  explicit GlobalPoolKernel(const ep::KernelInfo& info) {
    const std::string& op = info.node().op_type;
    kind_ = op == "GlobalMaxPool"  ? PoolKind::kMax
            : op == "GlobalLpPool" ? PoolKind::kLp
                                   : PoolKind::kAverage;
    if (kind_ == PoolKind::kLp) {
      const ir::Attribute* a = info.node().attr("p");
      if (a) p_ = a->type == ir::AttrType::kFloat ? double(a->f) : double(a->i);
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const auto& xd = X.shape().dims();
    if (xd.size() < 2) ctx.fail_node("X must be [N, C, ...], got ", X.shape().to_string());
    std::vector<int64_t> yd(xd.size(), 1);
    yd[0] = xd[0];
    yd[1] = xd[1];
    Tensor& Y = ctx.output(0, Shape(yd));
    const int64_t planes = xd[0] * xd[1];
    const int64_t n = X.shape().size_from(2);
    if (planes == 0) return;
    if (n == 0 && kind_ == PoolKind::kMax)
      ctx.fail_node("cannot take the max over empty spatial dims of ", X.shape().to_string());
    if (X.dtype() == DataType::kFloat && kind_ != PoolKind::kLp) {
      // Vector lanes over each plane: the sum's rounding order differs from
      // the loop below; the max is any NaN, else the largest value.
      const float* x = X.data<float>();
      float* y = Y.mutable_data<float>();
      ctx.thread_pool().parallel_for(planes, double(n), [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
          if (kind_ == PoolKind::kAverage) {
            y[p] = n ? linalg::sum_row(x + p * n, n) / float(n) : 0.f;
            continue;
          }
          float acc[8];
          std::fill(acc, acc + 8, -std::numeric_limits<float>::infinity());
          linalg::max_lanes(x + p * n, n, acc);
          for (int q = 1; q < 8; ++q)
            if (acc[q] > acc[0] || acc[q] != acc[q]) acc[0] = acc[q];
          y[p] = acc[0];
        }
      });
      return;
    }
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx;
      const T* x = to_compute<T>(X, sx);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      ctx.thread_pool().parallel_for(planes, double(n), [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
          const T* xp = x + p * n;
          T acc;
          if (kind_ == PoolKind::kMax) {
            acc = xp[0];
            for (int64_t i = 1; i < n; ++i)
              if (xp[i] > acc || xp[i] != xp[i]) acc = xp[i];
          } else if (kind_ == PoolKind::kAverage) {
            acc = 0;
            for (int64_t i = 0; i < n; ++i) acc += xp[i];
            acc = n ? acc / T(n) : T(0);
          } else {
            acc = 0;
            for (int64_t i = 0; i < n; ++i) acc += T(std::pow(std::abs(xp[i]), p_));
            acc = T(std::pow(acc, 1.0 / p_));
          }
          y[p] = acc;
        }
      });
      yo.finish();
    });
  }

 private:
  PoolKind kind_;
  double p_ = 2.0;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_max_pool(const ep::KernelInfo& info) {
  return std::make_unique<PoolKernel>(info, PoolKind::kMax);
}
std::unique_ptr<ep::OpKernel> make_average_pool(const ep::KernelInfo& info) {
  return std::make_unique<PoolKernel>(info, PoolKind::kAverage);
}
std::unique_ptr<ep::OpKernel> make_lp_pool(const ep::KernelInfo& info) {
  return std::make_unique<PoolKernel>(info, PoolKind::kLp);
}
std::unique_ptr<ep::OpKernel> make_global_pool(const ep::KernelInfo& info) {
  return std::make_unique<GlobalPoolKernel>(info);
}

}  // namespace tessera::cpu::nn
