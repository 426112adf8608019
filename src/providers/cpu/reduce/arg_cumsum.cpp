// ArgMax / ArgMin (int64 indices along one axis; ties go to the first index,
// or the last with select_last_index; NaN counts as the extreme) and CumSum
// and CumProd (inclusive or exclusive, forward or reversed, along an axis
// given as input).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "linalg/row_reduce.hpp"
#include "providers/cpu/math/type_dispatch.hpp"
#include "providers/cpu/reduce/reduce_kernels.hpp"

namespace tessera::cpu {

namespace {

struct AxisSplit {
  int64_t outer = 1, len = 1, inner = 1;
};

AxisSplit split_at(const Shape& s, int64_t axis) {
  AxisSplit a;
  a.outer = s.size_to(size_t(axis));
  a.len = s[size_t(axis)];
  a.inner = s.size_from(size_t(axis) + 1);
  return a;
}

int64_t checked_axis(const ep::KernelContext& ctx, int64_t axis, const Tensor& x) {
  const int64_t rank = int64_t(x.rank());
  if (axis < -rank || axis >= rank)
    ctx.fail_node("axis ", axis, " is out of range for input ", x.description());
  return axis < 0 ? axis + rank : axis;
}

// Float ArgMax/ArgMin with the generic loop's answers. Along a contiguous
// axis: the extreme (NaN when any is) in vector lanes, then its first or
// last position. Along a strided axis: the same update as the generic loop,
// in vector lanes (linalg::arg_update) over tiles of columns.
template <bool kMax>
void arg_float(ThreadPool& pool, const float* in, int64_t* po, const AxisSplit& sp, bool last) {
  if (sp.inner == 1) {
    parallel_chunks(pool, sp.outer, double(sp.len), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        const float* row = in + o * sp.len;
        float acc[8];
        std::fill(acc, acc + 8, kMax ? -INFINITY : INFINITY);
        (kMax ? linalg::max_lanes : linalg::min_lanes)(row, sp.len, acc);
        float m = acc[0];
        for (int q = 1; q < 8; ++q)
          if ((kMax ? acc[q] > m : acc[q] < m) || acc[q] != acc[q]) m = acc[q];
        po[o] = linalg::find_value(row, sp.len, m, last);
      }
    });
    return;
  }
  // Columns in tiles of kTile (best values and int32 positions stay in L1),
  // tiles spread across threads even when there is one outer block.
  constexpr int64_t kTile = 512;
  const int64_t tiles = (sp.inner + kTile - 1) / kTile;
  parallel_chunks(pool, sp.outer * tiles, double(sp.len * std::min(sp.inner, kTile)),
                  [&](int64_t t0, int64_t t1) {
                    float b[kTile];
                    int32_t at[kTile];
                    for (int64_t t = t0; t < t1; ++t) {
                      const int64_t o = t / tiles, j0 = (t % tiles) * kTile;
                      const int64_t nj = std::min(kTile, sp.inner - j0);
                      const float* base = in + o * sp.len * sp.inner + j0;
                      std::copy(base, base + nj, b);
                      std::fill(at, at + nj, 0);
                      for (int64_t k = 1; k < sp.len; ++k)
                        linalg::arg_update(kMax, base + k * sp.inner, int32_t(k), last, b, at, nj);
                      int64_t* res = po + o * sp.inner + j0;
                      for (int64_t j = 0; j < nj; ++j) res[j] = at[j];
                    }
                  });
}

template <bool kMax>
class ArgKernel final : public ep::OpKernel {
 public:
  explicit ArgKernel(const ep::KernelInfo& info)
      : axis_(info.attr_int("axis", 0)),
        keepdims_(info.attr_int("keepdims", 1) != 0),
        last_(info.attr_int("select_last_index", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const int64_t axis = checked_axis(ctx, axis_, x);
    const AxisSplit sp = split_at(x.shape(), axis);
    std::vector<int64_t> od;
    for (size_t i = 0; i < x.rank(); ++i) {
      if (int64_t(i) != axis)
        od.push_back(x.shape()[i]);
      else if (keepdims_)
        od.push_back(1);
    }
    Tensor& out = ctx.output(0, Shape(od), DataType::kInt64);
    if (out.num_elements() == 0) return;
    if (sp.len == 0)
      ctx.fail_node("cannot take Arg", kMax ? "Max" : "Min", " over an empty axis of ",
                    x.description());
    const bool last = last_;
    // (The strided float loop keeps positions in int32.)
    if (x.dtype() == DataType::kFloat && (sp.inner == 1 || sp.len <= INT32_MAX)) {
      arg_float<kMax>(ctx.thread_pool(), x.data<float>(), out.mutable_data<int64_t>(), sp, last);
      return;
    }
    visit_type(NumericTypes{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = Compute<T>;
      const T* in = x.data<T>();
      int64_t* po = out.mutable_data<int64_t>();
      parallel_chunks(ctx.thread_pool(), sp.outer, double(sp.len * sp.inner),
                      [&](int64_t o0, int64_t o1) {
                        std::vector<C> best(size_t(sp.inner));
                        for (int64_t o = o0; o < o1; ++o) {
                          const T* base = in + o * sp.len * sp.inner;
                          int64_t* res = po + o * sp.inner;
                          for (int64_t j = 0; j < sp.inner; ++j) {
                            best[size_t(j)] = load(base[j]);
                            res[j] = 0;
                          }
                          for (int64_t k = 1; k < sp.len; ++k) {
                            const T* row = base + k * sp.inner;
                            for (int64_t j = 0; j < sp.inner; ++j) {
                              C v = load(row[j]);
                              C& b = best[size_t(j)];
                              bool better = kMax ? (v > b) : (v < b);
                              bool tie = v == b;
                              if constexpr (std::is_floating_point_v<C>) {
                                if (std::isnan(b)) {
                                  better = false;
                                  tie = std::isnan(v);
                                } else if (std::isnan(v)) {
                                  better = true;
                                }
                              }
                              if (better || (last && tie)) {
                                b = v;
                                res[j] = k;
                              }
                            }
                          }
                        }
                      });
    });
  }

 private:
  int64_t axis_;
  bool keepdims_;
  bool last_;
};

template <bool kProd>
class CumKernel final : public ep::OpKernel {
 public:
  explicit CumKernel(const ep::KernelInfo& info)
      : exclusive_(info.attr_int("exclusive", 0) != 0),
        reverse_(info.attr_int("reverse", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& at = ctx.required_input(1);
    if (at.num_elements() != 1 ||
        (at.dtype() != DataType::kInt32 && at.dtype() != DataType::kInt64))
      ctx.fail_node("axis must be an int32 or int64 scalar, got ", at.description());
    if (x.rank() == 0) ctx.fail_node("input must have rank >= 1, got ", x.description());
    const int64_t axis = checked_axis(ctx, at.element_as_int64(0), x);
    const AxisSplit sp = split_at(x.shape(), axis);
    visit_type(NumericTypes{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = Compute<T>;
      Tensor& out = ctx.output(0, x.shape(), x.dtype());
      if (x.num_elements() == 0) return;
      const T* in = x.data<T>();
      T* po = out.mutable_data<T>();
      const bool excl = exclusive_, rev = reverse_;
      parallel_chunks(ctx.thread_pool(), sp.outer, double(sp.len * sp.inner),
                      [&](int64_t o0, int64_t o1) {
                        std::vector<C> acc(size_t(sp.inner));
                        for (int64_t o = o0; o < o1; ++o) {
                          std::fill(acc.begin(), acc.end(), kProd ? C(1) : C(0));
                          for (int64_t step = 0; step < sp.len; ++step) {
                            const int64_t k = rev ? sp.len - 1 - step : step;
                            const int64_t off = (o * sp.len + k) * sp.inner;
                            for (int64_t j = 0; j < sp.inner; ++j) {
                              C v = load(in[off + j]);
                              C& a = acc[size_t(j)];
                              if (excl) po[off + j] = store<T>(a);
                              a = kProd ? wrap_mul(a, v) : wrap_add(a, v);
                              if (!excl) po[off + j] = store<T>(a);
                            }
                          }
                        }
                      });
    });
  }

 private:
  bool exclusive_;
  bool reverse_;
};

}  // namespace

void add_arg_minmax_factories(FactoryMap& m) {
  m["ArgMax"] = factory_of<ArgKernel<true>>();
  m["ArgMin"] = factory_of<ArgKernel<false>>();
}

void add_cumsum_factories(FactoryMap& m) {
  m["CumSum"] = factory_of<CumKernel<false>>();
  m["CumProd"] = factory_of<CumKernel<true>>();
}

}  // namespace tessera::cpu
