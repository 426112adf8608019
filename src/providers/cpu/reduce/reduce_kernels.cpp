// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare. Axes come from
// the attribute in older opsets and from optional input 1 in newer ones
// (ReduceSum from 13, the others from 18). An empty reduction yields the
// op's identity (0, 1, -inf for Max/LogSum/LogSumExp, +inf for Min); NaN
// propagates through Max and Min.
#include "providers/cpu/reduce/reduce_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "linalg/row_reduce.hpp"
#include "providers/cpu/math/math_kernels.hpp"
#include "providers/cpu/math/type_dispatch.hpp"
#include "providers/cpu/reduce/reduce_plan.hpp"

namespace tessera::cpu {

namespace {

// Converts an accumulator result to the output element type.
template <typename T, typename V>
inline T to_out(V v) {
  if constexpr (std::is_integral_v<T> && std::is_floating_point_v<V>) return float_to_int<T>(v);
  else return store<T>(v);
}

template <typename C>
constexpr C lowest() {
  if constexpr (std::numeric_limits<C>::has_infinity) return -std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::lowest();
}
template <typename C>
constexpr C highest() {
  if constexpr (std::numeric_limits<C>::has_infinity) return std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::max();
}

// Each op: Acc type, init(), add(acc, x), merge(acc, other), finish(acc, count).
// C is the compute type of the element; integers that need a real-valued
// result (L2, LogSum, LogSumExp) accumulate in double.
template <typename C>
using RealAcc = std::conditional_t<std::is_integral_v<C>, double, C>;

template <typename C, bool kSquare, bool kAbs>
struct SumLike {
  using Acc = C;
  static Acc init() { return C(0); }
  static void add(Acc& a, C x) {
    if constexpr (kSquare) a = wrap_add(a, wrap_mul(x, x));
    else if constexpr (kAbs && std::is_signed_v<C>) a = wrap_add(a, x < 0 ? wrap_neg(x) : x);
    else a = wrap_add(a, x);
  }
  static void merge(Acc& a, Acc b) { a = wrap_add(a, b); }
  static Acc finish(Acc a, int64_t) { return a; }
};

template <typename C>
struct MeanOp {
  // Integers average in double and truncate, as the reference does; a
  // wrapped integer sum would be meaningless here.
  using Acc = RealAcc<C>;
  static Acc init() { return Acc(0); }
  static void add(Acc& a, C x) { a += Acc(x); }
  static void merge(Acc& a, Acc b) { a += b; }
  static Acc finish(Acc a, int64_t n) { return a / Acc(n); }  // 0/0: NaN for an empty reduction
};

template <typename C>
struct ProdOp {
  using Acc = C;
  static Acc init() { return C(1); }
  static void add(Acc& a, C x) { a = wrap_mul(a, x); }
  static void merge(Acc& a, Acc b) { a = wrap_mul(a, b); }
  static Acc finish(Acc a, int64_t) { return a; }
};

template <typename C, bool kMax>
struct MinMaxOp {
  using Acc = C;
  static Acc init() {
    if constexpr (std::is_same_v<C, bool>) return !kMax;
    else return kMax ? lowest<C>() : highest<C>();
  }
  static void add(Acc& a, C x) {
    bool take = kMax ? (x > a) : (x < a);
    if constexpr (std::is_floating_point_v<C>) take = take || std::isnan(x);
    a = take ? x : a;
  }
  static void merge(Acc& a, Acc b) { add(a, b); }
  static Acc finish(Acc a, int64_t) { return a; }
};

template <typename C, bool kL2, bool kLog>
struct RealSumOp {  // ReduceL2 (sqrt of sum of squares), ReduceLogSum (log of sum)
  using Acc = RealAcc<C>;
  static Acc init() { return Acc(0); }
  static void add(Acc& a, C x) { a += kL2 ? Acc(x) * Acc(x) : Acc(x); }
  static void merge(Acc& a, Acc b) { a += b; }
  static Acc finish(Acc a, int64_t) { return kL2 ? std::sqrt(a) : std::log(a); }
};

template <typename C>
struct LogSumExpOp {
  // Running maximum m and sum s of exp(x - m), so nothing overflows.
  using R = RealAcc<C>;
  struct Acc {
    R m, s;
  };
  static Acc init() { return {-std::numeric_limits<R>::infinity(), R(0)}; }
  static void add(Acc& a, C xc) {
    R x = R(xc);
    if (x > a.m) {
      a.s = a.s * std::exp(a.m - x) + R(1);
      a.m = x;
    } else {
      a.s += (x == a.m) ? R(1) : std::exp(x - a.m);
    }
  }
  static void merge(Acc& a, Acc b) {
    if (b.s == 0) return;
    if (a.s == 0 || b.m > a.m) std::swap(a, b);
    if (b.s != 0) a.s += b.s * (b.m == a.m ? R(1) : std::exp(b.m - a.m));
  }
  static R finish(Acc a, int64_t) { return a.s == 0 ? a.m : a.m + std::log(a.s); }
};

// Float max/min over contiguous runs: vector lanes with the same lane
// assignment and merge order as the loop below, so results are identical.
template <typename T, typename Op>
constexpr bool kVectorMinMax = std::is_same_v<T, float> &&
                               (std::is_same_v<Op, MinMaxOp<float, true>> ||
                                std::is_same_v<Op, MinMaxOp<float, false>>);

template <typename T, typename Op>
void run_reduce(ThreadPool& pool, const ReducePlan& p, const T* in, T* out) {
  using Acc = typename Op::Acc;
  const int64_t k = p.k, l = p.l, nb = int64_t(p.red_offsets.size());
  const int64_t* ro = p.red_offsets.data();
  if constexpr (kVectorMinMax<T, Op>) {
    // Only the innermost run reduced (one block per group): the groups are
    // consecutive rows of l, done a chunk of rows per call.
    if (k == 1 && nb == 1 && ro[0] == 0 && p.kept_sizes.size() <= 1 &&
        (p.kept_strides.empty() || p.kept_strides[0] == l)) {
      constexpr bool kMax = std::is_same_v<Op, MinMaxOp<float, true>>;
      parallel_chunks(pool, p.groups, double(l), [&](int64_t g0, int64_t g1) {
        linalg::extreme_rows(kMax, in + g0 * l, g1 - g0, l, out + g0);
      });
      return;
    }
  }
  parallel_chunks(pool, p.groups, double(std::max<int64_t>(p.count, 1) * k), [&](int64_t g0,
                                                                                int64_t g1) {
    // Not std::vector: Acc may be bool.
    const int64_t n_acc = k > 1 ? k : 8;
    std::unique_ptr<Acc[]> acc(new Acc[size_t(n_acc)]);
    for (int64_t g = g0; g < g1; ++g) {
      const T* base = in + p.group_base(g);
      if (k > 1) {  // K contiguous outputs: accumulate whole rows
        for (int64_t j = 0; j < k; ++j) acc[size_t(j)] = Op::init();
        for (int64_t b = 0; b < nb; ++b) {
          const T* src = base + ro[b];
          for (int64_t j = 0; j < k; ++j) Op::add(acc[size_t(j)], load(src[j]));
        }
        for (int64_t j = 0; j < k; ++j)
          out[g * k + j] = to_out<T>(Op::finish(acc[size_t(j)], p.count));
      } else {  // one output: reduce L contiguous inputs per block, in 8 lanes
        for (int64_t q = 0; q < 8; ++q) acc[size_t(q)] = Op::init();
        for (int64_t b = 0; b < nb; ++b) {
          const T* src = base + ro[b];
          if constexpr (kVectorMinMax<T, Op>) {
            if constexpr (std::is_same_v<Op, MinMaxOp<float, true>>)
              linalg::max_lanes(src, l, acc.get());
            else
              linalg::min_lanes(src, l, acc.get());
            continue;
          }
          int64_t j = 0;
          for (; j + 8 <= l; j += 8)
            for (int q = 0; q < 8; ++q) Op::add(acc[size_t(q)], load(src[j + q]));
          for (; j < l; ++j) Op::add(acc[0], load(src[j]));
        }
        for (int q = 1; q < 8; ++q) Op::merge(acc[0], acc[size_t(q)]);
        out[g] = to_out<T>(Op::finish(acc[0], p.count));
      }
    }
  });
}

enum class R { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

template <R kOp>
class ReduceKernel final : public ep::OpKernel {
 public:
  explicit ReduceKernel(const ep::KernelInfo& info)
      : axes_input_(info.opset() >= (kOp == R::kSum ? 13 : 18)),
        keepdims_(info.attr_int("keepdims", 1) != 0),
        noop_(info.attr_int("noop_with_empty_axes", 0) != 0) {
    if (!axes_input_) axes_ = info.attr_ints("axes");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<int64_t> axes = axes_;
    if (axes_input_) {
      const Tensor* a = ctx.input(1);
      if (a) {
        if (a->dtype() != DataType::kInt64 || a->rank() > 1)
          ctx.fail_node("axes must be a 1-D int64 tensor, got ", a->description());
        axes = a->to_int64_vector();
      }
    }
    if (axes.empty() && noop_) {
      ctx.set_output(0, Value(x));
      return;
    }
    std::vector<bool> reduced = reduced_dims(ctx, x, axes);
    const ReducePlan plan = make_reduce_plan(x.shape(), reduced, keepdims_);
    using Types = std::conditional_t<kOp == R::kMax || kOp == R::kMin, NumericBoolTypes,
                                     NumericTypes>;
    visit_type(Types{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C [[maybe_unused]] = Compute<T>;
      Tensor& out = ctx.output(0, plan.out_shape, x.dtype());
      if (plan.groups == 0) return;
      const T* in = x.data<T>();
      T* po = out.mutable_data<T>();
      ThreadPool& pool = ctx.thread_pool();
      if constexpr (std::is_same_v<T, bool>) {
        if constexpr (kOp == R::kMax || kOp == R::kMin)
          run_reduce<T, MinMaxOp<C, kOp == R::kMax>>(pool, plan, in, po);
      } else if constexpr (kOp == R::kSum) {
        run_reduce<T, SumLike<C, false, false>>(pool, plan, in, po);
      } else if constexpr (kOp == R::kSumSquare) {
        run_reduce<T, SumLike<C, true, false>>(pool, plan, in, po);
      } else if constexpr (kOp == R::kL1) {
        run_reduce<T, SumLike<C, false, true>>(pool, plan, in, po);
      } else if constexpr (kOp == R::kMean) {
        run_reduce<T, MeanOp<C>>(pool, plan, in, po);
      } else if constexpr (kOp == R::kProd) {
        run_reduce<T, ProdOp<C>>(pool, plan, in, po);
      } else if constexpr (kOp == R::kMax || kOp == R::kMin) {
        run_reduce<T, MinMaxOp<C, kOp == R::kMax>>(pool, plan, in, po);
      } else if constexpr (kOp == R::kL2) {
        run_reduce<T, RealSumOp<C, true, false>>(pool, plan, in, po);
      } else if constexpr (kOp == R::kLogSum) {
        run_reduce<T, RealSumOp<C, false, true>>(pool, plan, in, po);
      } else {
        run_reduce<T, LogSumExpOp<C>>(pool, plan, in, po);
      }
    });
  }

 private:
  bool axes_input_;
  bool keepdims_;
  bool noop_;
  std::vector<int64_t> axes_;
};

}  // namespace

std::vector<bool> reduced_dims(const ep::KernelContext& ctx, const Tensor& x,
                               const std::vector<int64_t>& axes) {
  const int64_t rank = int64_t(x.rank());
  std::vector<bool> reduced(size_t(rank), axes.empty());
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      ctx.fail_node("axis ", a, " is out of range for input ", x.description());
    int64_t n = a < 0 ? a + rank : a;
    if (reduced[size_t(n)] && !axes.empty())
      ctx.fail_node("axis ", a, " is listed more than once");
    reduced[size_t(n)] = true;
  }
  return reduced;
}

void add_reduce_factories(FactoryMap& m) {
  m["ReduceSum"] = factory_of<ReduceKernel<R::kSum>>();
  m["ReduceMean"] = factory_of<ReduceKernel<R::kMean>>();
  m["ReduceMax"] = factory_of<ReduceKernel<R::kMax>>();
  m["ReduceMin"] = factory_of<ReduceKernel<R::kMin>>();
  m["ReduceProd"] = factory_of<ReduceKernel<R::kProd>>();
  m["ReduceL1"] = factory_of<ReduceKernel<R::kL1>>();
  m["ReduceL2"] = factory_of<ReduceKernel<R::kL2>>();
  m["ReduceLogSum"] = factory_of<ReduceKernel<R::kLogSum>>();
  m["ReduceLogSumExp"] = factory_of<ReduceKernel<R::kLogSumExp>>();
  m["ReduceSumSquare"] = factory_of<ReduceKernel<R::kSumSquare>>();
}

}  // namespace tessera::cpu
