// Variadic ops with multidirectional broadcasting (Sum, Mean, Max, Min) and
// the three-way select Where. Max and Min propagate NaN.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "providers/cpu/math/binary_kernel.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class Fold { kSum, kMean, kMax, kMin };

template <Fold kFold, typename C>
inline C fold(C acc, C x) {
  if constexpr (kFold == Fold::kSum || kFold == Fold::kMean) {
    return wrap_add(acc, x);
  } else if constexpr (kFold == Fold::kMax) {
    if constexpr (std::is_floating_point_v<C>)
      return (x > acc || std::isnan(x)) ? x : acc;
    else
      return x > acc ? x : acc;
  } else {
    if constexpr (std::is_floating_point_v<C>)
      return (x < acc || std::isnan(x)) ? x : acc;
    else
      return x < acc ? x : acc;
  }
}

template <Fold kFold>
class VariadicKernel final : public ep::OpKernel {
 public:
  explicit VariadicKernel(const ep::KernelInfo& info) : shape_(info), over_(info, {0, 1, 2, 3}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }

  void compute(ep::KernelContext& ctx) const override {
    std::vector<const Tensor*> ins;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor* t = ctx.input(i);
      if (!t) continue;
      if (!ins.empty()) check_same_type(ctx, *ins[0], *t);
      ins.push_back(t);
      shapes.push_back(t->shape());
    }
    if (ins.empty()) ctx.fail_node("needs at least one input");
    const Shape so = shape_.output(ctx, ins);
    using Types =
        std::conditional_t<kFold == Fold::kSum || kFold == Fold::kMean, FloatTypes, NumericTypes>;
    visit_type(Types{}, ins[0]->dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = Compute<T>;
      // Each block folds every input into acc before writing the output.
      Tensor& out = output_over(ctx, so, ins[0]->dtype(), {0, 1, 2, 3});
      T* po = out.mutable_data<T>();
      std::vector<const T*> src;
      for (const Tensor* t : ins) src.push_back(t->data<T>());
      const size_t n_in = src.size();
      ops::BroadcastIndexer bi(shapes, so);
      for_each_block(ctx.thread_pool(), bi, double(n_in),
                     [&](int64_t o, const int64_t* off, int64_t count) {
                       C acc[4096];
                       const T* p0 = src[0] + off[0];
                       if (bi.inner_stride(0)) {
                         for (int64_t i = 0; i < count; ++i) acc[i] = load(p0[i]);
                       } else {
                         for (int64_t i = 0; i < count; ++i) acc[i] = load(p0[0]);
                       }
                       for (size_t k = 1; k < n_in; ++k) {
                         const T* p = src[k] + off[k];
                         if (bi.inner_stride(k)) {
                           for (int64_t i = 0; i < count; ++i)
                             acc[i] = fold<kFold, C>(acc[i], load(p[i]));
                         } else {
                           const C v = load(p[0]);
                           for (int64_t i = 0; i < count; ++i) acc[i] = fold<kFold, C>(acc[i], v);
                         }
                       }
                       if constexpr (kFold == Fold::kMean) {
                         const C inv_n = C(n_in);
                         for (int64_t i = 0; i < count; ++i) po[o + i] = store<T>(acc[i] / inv_n);
                       } else {
                         for (int64_t i = 0; i < count; ++i) po[o + i] = store<T>(acc[i]);
                       }
                     });
    });
  }

 private:
  ep::OpShape shape_;
  OverInputs over_;
};

// out[i] = c[i] ? x[i] : y[i] for kC/kX/kY true, the first element
// repeated where false. Fixed-width types are selected through a mask built
// from the condition byte, with both sides loaded: no branch to mispredict on
// a random mask, and the loop vectorizes. Other types (strings) branch.
template <typename T, bool kC, bool kX, bool kY>
void select_block(const bool* c, const T* x, const T* y, T* out, int64_t n) {
  constexpr size_t kSize = sizeof(T);
  if constexpr (std::is_trivially_copyable_v<T> &&
                (kSize == 1 || kSize == 2 || kSize == 4 || kSize == 8)) {
    using U =
        std::conditional_t<kSize == 1, uint8_t,
                           std::conditional_t<kSize == 2, uint16_t,
                                              std::conditional_t<kSize == 4, uint32_t, uint64_t>>>;
    const auto* cb = reinterpret_cast<const uint8_t*>(c);
    U xs = 0, ys = 0;
    if constexpr (!kX) std::memcpy(&xs, static_cast<const void*>(x), kSize);
    if constexpr (!kY) std::memcpy(&ys, static_cast<const void*>(y), kSize);
    const U m0 = kC ? U(0) : U(U(0) - U(cb[0] != 0));
    for (int64_t i = 0; i < n; ++i) {
      U xv = xs, yv = ys;
      if constexpr (kX) std::memcpy(&xv, static_cast<const void*>(x + i), kSize);
      if constexpr (kY) std::memcpy(&yv, static_cast<const void*>(y + i), kSize);
      const U m = kC ? U(U(0) - U(cb[i] != 0)) : m0;
      const U r = U((xv & m) | (yv & U(~m)));
      std::memcpy(static_cast<void*>(out + i), &r, kSize);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = c[kC ? i : 0] ? x[kX ? i : 0] : y[kY ? i : 0];
  }
}

template <typename T, bool kC>
void select_block(bool vx, bool vy, const bool* c, const T* x, const T* y, T* out, int64_t n) {
  if (vx && vy) return select_block<T, kC, true, true>(c, x, y, out, n);
  if (vx) return select_block<T, kC, true, false>(c, x, y, out, n);
  if (vy) return select_block<T, kC, false, true>(c, x, y, out, n);
  select_block<T, kC, false, false>(c, x, y, out, n);
}

class WhereKernel final : public ep::OpKernel {
 public:
  explicit WhereKernel(const ep::KernelInfo& info) : shape_(info), over_(info, {1, 2, 0}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& c = ctx.required_input(0);
    const Tensor& x = ctx.required_input(1);
    const Tensor& y = ctx.required_input(2);
    if (c.dtype() != DataType::kBool)
      ctx.fail_node("condition must be bool, got ", c.description());
    check_same_type(ctx, x, y);
    const std::vector<Shape> shapes = {c.shape(), x.shape(), y.shape()};
    const Shape so = shape_.output(ctx, {&c, &x, &y});
    visit_type(AllTypes{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& out = output_over(ctx, so, x.dtype(), {1, 2, 0});
      T* po = out.mutable_data<T>();
      const bool* pc = c.data<bool>();
      const T* px = x.data<T>();
      const T* py = y.data<T>();
      ops::BroadcastIndexer bi(shapes, so);
      const bool vc = bi.inner_stride(0) != 0, vx = bi.inner_stride(1) != 0,
                 vy = bi.inner_stride(2) != 0;
      for_each_block(ctx.thread_pool(), bi, 1.0, [&](int64_t o, const int64_t* off, int64_t count) {
        const bool* cc = pc + off[0];
        const T* xx = px + off[1];
        const T* yy = py + off[2];
        if (vc) {
          select_block<T, true>(vx, vy, cc, xx, yy, po + o, count);
        } else {
          select_block<T, false>(vx, vy, cc, xx, yy, po + o, count);
        }
      });
    });
  }

 private:
  ep::OpShape shape_;
  OverInputs over_;
};

}  // namespace

void add_variadic_factories(FactoryMap& m) {
  m["Sum"] = factory_of<VariadicKernel<Fold::kSum>>();
  m["Mean"] = factory_of<VariadicKernel<Fold::kMean>>();
  m["Max"] = factory_of<VariadicKernel<Fold::kMax>>();
  m["Min"] = factory_of<VariadicKernel<Fold::kMin>>();
  m["Where"] = factory_of<WhereKernel>();
}

}  // namespace tessera::cpu
