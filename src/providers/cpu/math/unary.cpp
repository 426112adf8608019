// Element-wise unary ops: arithmetic (Abs, Neg, Sign, ...), transcendental
// functions, activations with their attributes, Clip, IsNaN/IsInf, Not and
// BitwiseNot. float16/bfloat16 compute in float; integers never overflow
// into undefined behaviour (Abs/Neg of the minimum value wrap to itself).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/float8.hpp"
#include "linalg/vec_math.hpp"
#include "ops/schema.hpp"
#include "providers/cpu/math/elementwise.hpp"
#include "providers/cpu/math/half_blocks.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

namespace {

// An op is a functor on the compute type: `C operator()(C) const`, with the
// element types it serves in `Types` and a rough cost per element.
template <typename Op>
class UnaryKernel final : public ep::OpKernel {
 public:
  explicit UnaryKernel(const ep::KernelInfo& info) : op_(info), over_(info, {0}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    visit_type(typename Op::Types{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& out = output_over(ctx, x.shape(), x.dtype(), {0});
      // The op by value in the closure, so unary_map's copy holds its
      // attributes (see there).
      const Op op = op_;
      if constexpr (is_half_v<T>) {
        // Blocks widened and rounded back in vectors; the op runs on floats.
        const DataType t = x.dtype();
        const void* px = x.raw_data();
        void* py = out.mutable_raw_data();
        parallel_chunks(ctx.thread_pool(), x.num_elements(), Op::kCost, [&](int64_t s, int64_t e) {
          half_blocks(t, px, py, s, e, [op](const float* in, float* o, int64_t n) {
            for (int64_t i = 0; i < n; ++i) o[i] = float(op(in[i]));
          });
        });
      } else {
        unary_map(ctx.thread_pool(), x.data<T>(), out.mutable_data<T>(), x.num_elements(),
                  Op::kCost, [op](T v) { return store<T>(op(load(v))); });
      }
    });
  }

 private:
  Op op_;
  OverInputs over_;
};

// A stateless op from a generic lambda.
template <auto kFn, typename TypesT = FloatTypes, int kCostI = 12>
struct FnOp {
  using Types = TypesT;
  static constexpr double kCost = kCostI;
  explicit FnOp(const ep::KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    return C(kFn(x));
  }
};

template <typename C>
inline C sigmoid(C x) {
  // Both branches keep exp's argument non-positive, so nothing overflows.
  if (x >= 0) return C(1) / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return e / (C(1) + e);
}

template <typename C>
inline C softplus(C x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

constexpr auto kAbs = [](auto x) {
  using C = decltype(x);
  if constexpr (std::is_floating_point_v<C>)
    return std::fabs(x);
  else if constexpr (std::is_signed_v<C>)
    return x < 0 ? wrap_neg(x) : x;
  else
    return x;
};
constexpr auto kSign = [](auto x) {
  using C = decltype(x);
  if constexpr (std::is_floating_point_v<C>)
    return std::isnan(x) ? x : C((x > 0) - (x < 0));
  else if constexpr (std::is_signed_v<C>)
    return C((x > 0) - (x < 0));
  else
    return C(x > 0);
};
constexpr auto kRelu = [](auto x) {
  using C = decltype(x);
  if constexpr (std::is_unsigned_v<C>)
    return x;
  else
    return x < C(0) ? C(0) : x;  // NaN passes through
};

struct AlphaOp {
  float alpha;
  AlphaOp(const ep::KernelInfo& info, float def) : alpha(info.attr_float("alpha", def)) {}
};

struct LeakyReluOp : AlphaOp {
  using Types = FloatTypes;
  static constexpr double kCost = 2;
  explicit LeakyReluOp(const ep::KernelInfo& info) : AlphaOp(info, 0.01f) {}
  template <typename C>
  C operator()(C x) const {
    return x < 0 ? C(alpha) * x : x;
  }
};

struct EluOp : AlphaOp {
  using Types = FloatTypes;
  static constexpr double kCost = 16;
  explicit EluOp(const ep::KernelInfo& info) : AlphaOp(info, 1.0f) {}
  template <typename C>
  C operator()(C x) const {
    return x < 0 ? C(alpha) * std::expm1(x) : x;
  }
};

struct CeluOp : AlphaOp {
  using Types = FloatTypes;
  static constexpr double kCost = 16;
  explicit CeluOp(const ep::KernelInfo& info) : AlphaOp(info, 1.0f) {
    if (alpha == 0) info.fail_node("alpha must not be 0");
  }
  template <typename C>
  C operator()(C x) const {
    return x > 0 ? x : C(alpha) * std::expm1(x / C(alpha));
  }
};

struct SeluOp {
  using Types = FloatTypes;
  static constexpr double kCost = 16;
  float alpha, gamma;
  explicit SeluOp(const ep::KernelInfo& info)
      : alpha(info.attr_float("alpha", 1.67326319217681884765625f)),
        gamma(info.attr_float("gamma", 1.05070102214813232421875f)) {}
  template <typename C>
  C operator()(C x) const {
    return x > 0 ? C(gamma) * x : C(gamma) * (C(alpha) * std::exp(x) - C(alpha));
  }
};

struct ThresholdedReluOp : AlphaOp {
  using Types = FloatTypes;
  static constexpr double kCost = 1;
  explicit ThresholdedReluOp(const ep::KernelInfo& info) : AlphaOp(info, 1.0f) {}
  template <typename C>
  C operator()(C x) const {
    return x > C(alpha) ? x : C(0);
  }
};

struct HardSigmoidOp {
  using Types = FloatTypes;
  static constexpr double kCost = 2;
  float alpha, beta;
  explicit HardSigmoidOp(const ep::KernelInfo& info)
      : alpha(info.attr_float("alpha", 0.2f)), beta(info.attr_float("beta", 0.5f)) {}
  template <typename C>
  C operator()(C x) const {
    C v = C(alpha) * x + C(beta);
    return std::max(C(0), std::min(C(1), v));
  }
};

struct SwishOp : AlphaOp {
  using Types = FloatTypes;
  static constexpr double kCost = 16;
  explicit SwishOp(const ep::KernelInfo& info) : AlphaOp(info, 1.0f) {}
  template <typename C>
  C operator()(C x) const {
    return x * sigmoid(C(alpha) * x);
  }
};

struct GeluOp {
  using Types = FloatTypes;
  static constexpr double kCost = 20;
  bool tanh_approx;
  explicit GeluOp(const ep::KernelInfo& info) {
    std::string a = info.attr_string("approximate", "none");
    if (a != "none" && a != "tanh")
      info.fail_node("approximate must be \"none\" or \"tanh\", got \"", a, "\"");
    tanh_approx = a == "tanh";
  }
  template <typename C>
  C operator()(C x) const {
    if (tanh_approx) {
      const C k = C(0.7978845608028654);  // sqrt(2 / pi)
      return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
    }
    return C(0.5) * x * (C(1) + std::erf(x * C(0.7071067811865476)));
  }
};

struct ShrinkOp {
  using Types = NumericTypes;
  static constexpr double kCost = 2;
  float lambd, bias;
  explicit ShrinkOp(const ep::KernelInfo& info)
      : lambd(info.attr_float("lambd", 0.5f)), bias(info.attr_float("bias", 0.0f)) {}
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (x < -C(lambd)) return x + C(bias);
      if (x > C(lambd)) return x - C(bias);
      return C(0);
    } else {
      double v = double(x);
      if (v < -double(lambd)) return float_to_int<C>(v + double(bias));
      if (v > double(lambd)) return float_to_int<C>(v - double(bias));
      return C(0);
    }
  }
};

// Clip: bounds are attributes before opset 11 and optional scalar inputs after.
class ClipKernel final : public ep::OpKernel {
 public:
  explicit ClipKernel(const ep::KernelInfo& info) : opset_(info.opset()), over_(info, {0}) {
    if (opset_ < 11) {  // the bounds are attributes, defaulting to -/+FLT_MAX
      const ops::OpSchema& schema = ops::schema_of(info.node(), opset_);
      attr_min_ = schema.attr_float(info.node(), "min");
      attr_max_ = schema.attr_float(info.node(), "max");
    }
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor* tmin = opset_ >= 11 ? ctx.input(1) : nullptr;
    const Tensor* tmax = opset_ >= 11 ? ctx.input(2) : nullptr;
    for (const Tensor* b : {tmin, tmax}) {
      if (!b) continue;
      if (b->dtype() != x.dtype() || b->num_elements() != 1)
        ctx.fail_node("min and max must be scalars of the input's type ", data_type_name(x.dtype()),
                      ", got ", b->description());
    }
    visit_type(NumericTypes{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = Compute<T>;
      C lo, hi;
      if (opset_ < 11) {
        lo = C(attr_min_);
        hi = C(attr_max_);
      } else {
        lo = tmin ? load(tmin->data<T>()[0]) : std::numeric_limits<C>::lowest();
        hi = tmax ? load(tmax->data<T>()[0]) : std::numeric_limits<C>::max();
        if constexpr (std::is_floating_point_v<C>) {
          if (!tmin) lo = -std::numeric_limits<C>::infinity();
          if (!tmax) hi = std::numeric_limits<C>::infinity();
        }
      }
      Tensor& out = output_over(ctx, x.shape(), x.dtype(), {0});
      // min > max sets everything to max, as the spec says.
      unary_map(ctx.thread_pool(), x.data<T>(), out.mutable_data<T>(), x.num_elements(), 2.0,
                [lo, hi](T v) {
                  C r = load(v);
                  r = r < lo ? lo : r;
                  r = r > hi ? hi : r;
                  return store<T>(r);
                });
    });
  }

  bool writes_over_input(size_t i) const override { return over_(i); }

 private:
  int64_t opset_;
  float attr_min_ = 0, attr_max_ = 0;
  OverInputs over_;
};

// IsNaN / IsInf: bool outputs; also on the float8 types (opset 20).
template <bool kIsInf>
class FloatPredicateKernel final : public ep::OpKernel {
 public:
  explicit FloatPredicateKernel(const ep::KernelInfo& info)
      : neg_(info.attr_int("detect_negative", 1) != 0),
        pos_(info.attr_int("detect_positive", 1) != 0) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor& out = ctx.output(0, x.shape(), DataType::kBool);
    bool* po = out.mutable_data<bool>();
    const int64_t n = x.num_elements();
    const bool neg = neg_, pos = pos_;
    auto pred = [neg, pos](double v) {
      if constexpr (kIsInf)
        return std::isinf(v) && (v > 0 ? pos : neg);
      else
        return std::isnan(v);
    };
    const DataType dt = x.dtype();
    if (dt == DataType::kFloat8E4M3FN || dt == DataType::kFloat8E4M3FNUZ ||
        dt == DataType::kFloat8E5M2 || dt == DataType::kFloat8E5M2FNUZ) {
      const auto* raw = static_cast<const uint8_t*>(x.raw_data());
      for (int64_t i = 0; i < n; ++i) po[i] = pred(double(float8_to_float(dt, raw[i])));
      return;
    }
    visit_type(FloatTypes{}, dt, ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      unary_map(ctx.thread_pool(), x.data<T>(), po, n, 1.0,
                [&pred](T v) { return pred(double(load(v))); });
    });
  }

 private:
  bool neg_, pos_;
};

class NotKernel final : public ep::OpKernel {
 public:
  explicit NotKernel(const ep::KernelInfo& info) : over_(info, {0}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.dtype() != DataType::kBool) ctx.fail_node("input must be bool, got ", x.description());
    Tensor& out = output_over(ctx, x.shape(), DataType::kBool, {0});
    unary_map(ctx.thread_pool(), x.data<bool>(), out.mutable_data<bool>(), x.num_elements(), 1.0,
              [](bool v) { return !v; });
  }

 private:
  OverInputs over_;
};

// A float fast path through a vectorised loop of linalg/vec_math.hpp in front
// of the generic kernel; `kPick` chooses the loop from the attributes (Gelu's
// erf or tanh form), or null where none computes this node's function.
using VecLoop = void (*)(const float*, float*, int64_t);
template <VecLoop kLoop>
VecLoop fixed(const ep::KernelInfo&) {
  return kLoop;
}
inline void gelu_loop(const float* x, float* y, int64_t n) {
  linalg::vec_gelu(x, nullptr, 0, y, n);
}
inline VecLoop gelu_form(const ep::KernelInfo& info) {
  const std::string a = info.attr_string("approximate", "none");
  return a == "none" ? gelu_loop : a == "tanh" ? linalg::vec_gelu_tanh : nullptr;
}
// y = loop(x) over a float tensor, or a float16/bfloat16 one a float block at
// a time, in chunks across the thread pool.
template <typename Loop>
void map_float_chunks(ep::KernelContext& ctx, const Tensor& x, Loop&& loop) {
  Tensor& out = output_over(ctx, x.shape(), x.dtype(), {0});
  const DataType t = x.dtype();
  constexpr int64_t kChunk = 1024;
  const int64_t n = x.num_elements();
  ctx.thread_pool().parallel_for(
      (n + kChunk - 1) / kChunk, 20.0 * kChunk, [&](int64_t c0, int64_t c1) {
        const int64_t s = c0 * kChunk, e = std::min(n, c1 * kChunk);
        if (t == DataType::kFloat)
          loop(x.data<float>() + s, out.mutable_data<float>() + s, e - s);
        else
          half_blocks(t, x.raw_data(), out.mutable_raw_data(), s, e, loop);
      });
}

// The float loops serve float and, through half_blocks, the half types.
inline bool float_or_half(DataType t) { return t == DataType::kFloat || is_half_type(t); }

template <typename Op, VecLoop (*kPick)(const ep::KernelInfo&)>
class FloatVecUnaryKernel final : public ep::OpKernel {
 public:
  explicit FloatVecUnaryKernel(const ep::KernelInfo& info) : generic_(info), loop_(kPick(info)) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (!loop_ || !float_or_half(x.dtype())) return generic_.compute(ctx);
    map_float_chunks(ctx, x, loop_);
  }
  bool writes_over_input(size_t i) const override { return generic_.writes_over_input(i); }

 private:
  UnaryKernel<Op> generic_;
  VecLoop loop_;
};

// Sigmoid, Swish, HardSigmoid, HardSwish, Elu, Selu, Celu and LeakyRelu on float
// tensors through linalg::vec_activation, the loop the convolutions' fused
// activations run: a fused Conv -> Sigmoid gives the bytes of the unfused pair.
template <typename Op, linalg::VecActivation kKind>
class FloatActivationKernel final : public ep::OpKernel {
 public:
  explicit FloatActivationKernel(const ep::KernelInfo& info) : generic_(info) {
    using K = linalg::VecActivation;
    if (kKind == K::kSwish) p0_ = info.attr_float("alpha", 1.0f);
    if (kKind == K::kHardSigmoid)
      p0_ = info.attr_float("alpha", 0.2f), p1_ = info.attr_float("beta", 0.5f);
    if (kKind == K::kHardSwish) p0_ = 1.0f / 6.0f, p1_ = 0.5f;
    if (kKind == K::kElu || kKind == K::kCelu) p0_ = info.attr_float("alpha", 1.0f);
    if (kKind == K::kLeakyRelu) p0_ = info.attr_float("alpha", 0.01f);
    if (kKind == K::kSelu)
      p0_ = info.attr_float("alpha", 1.67326319217681884765625f),
      p1_ = info.attr_float("gamma", 1.05070102214813232421875f);
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (!float_or_half(x.dtype())) return generic_.compute(ctx);
    map_float_chunks(ctx, x, [this](const float* in, float* out, int64_t n) {
      linalg::vec_activation(kKind, p0_, p1_, in, out, n);
    });
  }
  bool writes_over_input(size_t i) const override { return generic_.writes_over_input(i); }

 private:
  UnaryKernel<Op> generic_;
  float p0_ = 0.f, p1_ = 0.f;
};

}  // namespace

void add_unary_factories(FactoryMap& m) {
  using Signed = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t>;
  m["Abs"] = factory_of<UnaryKernel<FnOp<kAbs, NumericTypes, 1>>>();
  m["Neg"] = factory_of<UnaryKernel<FnOp<[](auto x) { return wrap_neg(x); }, Signed, 1>>>();
  m["Sign"] = factory_of<UnaryKernel<FnOp<kSign, NumericTypes, 1>>>();
  m["Relu"] = factory_of<UnaryKernel<FnOp<kRelu, Signed, 1>>>();
  m["Reciprocal"] = factory_of<UnaryKernel<FnOp<[](auto x) { return 1 / x; }, FloatTypes, 2>>>();
  m["Floor"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::floor(x); }>>>();
  m["Ceil"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::ceil(x); }>>>();
  // nearbyint uses the default rounding mode: to nearest, ties to even.
  m["Round"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::nearbyint(x); }>>>();
  m["Sqrt"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::sqrt(x); }, FloatTypes, 4>>>();
  m["Exp"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return std::exp(x); }>, fixed<linalg::vec_exp>>>();
  m["Log"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return std::log(x); }>, fixed<linalg::vec_log>>>();
  m["Erf"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return std::erf(x); }>, fixed<linalg::vec_erf>>>();
  m["Sin"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return std::sin(x); }>, fixed<linalg::vec_sin>>>();
  m["Cos"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return std::cos(x); }>, fixed<linalg::vec_cos>>>();
  m["Tan"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::tan(x); }>>>();
  m["Asin"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return std::asin(x); }>, fixed<linalg::vec_asin>>>();
  m["Acos"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::acos(x); }>>>();
  m["Atan"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return std::atan(x); }>, fixed<linalg::vec_atan>>>();
  m["Sinh"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::sinh(x); }>>>();
  m["Cosh"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::cosh(x); }>>>();
  m["Asinh"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::asinh(x); }>>>();
  m["Acosh"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::acosh(x); }>>>();
  m["Atanh"] = factory_of<UnaryKernel<FnOp<[](auto x) { return std::atanh(x); }>>>();
  m["Tanh"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return std::tanh(x); }>, fixed<linalg::vec_tanh>>>();
  m["Sigmoid"] = factory_of<FloatActivationKernel<FnOp<[](auto x) { return sigmoid(x); }>,
                                                  linalg::VecActivation::kSigmoid>>();
  m["Softplus"] = factory_of<
      FloatVecUnaryKernel<FnOp<[](auto x) { return softplus(x); }>, fixed<linalg::vec_softplus>>>();
  m["Softsign"] =
      factory_of<UnaryKernel<FnOp<[](auto x) { return x / (1 + std::fabs(x)); }, FloatTypes, 3>>>();
  m["Mish"] =
      factory_of<FloatVecUnaryKernel<FnOp<[](auto x) { return x * std::tanh(softplus(x)); }>,
                                     fixed<linalg::vec_mish>>>();
  m["HardSwish"] =
      factory_of<FloatActivationKernel<FnOp<[](auto x) {
                                         using C = decltype(x);
                                         return x *
                                                std::max(C(0), std::min(C(1), x / C(6) + C(0.5)));
                                       },
                                            FloatTypes, 3>,
                                       linalg::VecActivation::kHardSwish>>();
  // Through the vector loop: the scalar `x < 0 ? alpha * x : x` compiles to a
  // branch per element (the compiler does not speculate a floating-point
  // multiplication out of a condition), mispredicted on mixed-sign data.
  m["LeakyRelu"] =
      factory_of<FloatActivationKernel<LeakyReluOp, linalg::VecActivation::kLeakyRelu>>();
  m["Elu"] = factory_of<FloatActivationKernel<EluOp, linalg::VecActivation::kElu>>();
  m["Celu"] = factory_of<FloatActivationKernel<CeluOp, linalg::VecActivation::kCelu>>();
  m["Selu"] = factory_of<FloatActivationKernel<SeluOp, linalg::VecActivation::kSelu>>();
  m["ThresholdedRelu"] = factory_of<UnaryKernel<ThresholdedReluOp>>();
  m["HardSigmoid"] =
      factory_of<FloatActivationKernel<HardSigmoidOp, linalg::VecActivation::kHardSigmoid>>();
  m["Swish"] = factory_of<FloatActivationKernel<SwishOp, linalg::VecActivation::kSwish>>();
  m["Gelu"] = factory_of<FloatVecUnaryKernel<GeluOp, gelu_form>>();
  m["Shrink"] = factory_of<UnaryKernel<ShrinkOp>>();
  m["BitwiseNot"] = factory_of<UnaryKernel<FnOp<[](auto x) { return ~x; }, IntTypes, 1>>>();
  m["Clip"] = factory_of<ClipKernel>();
  m["IsNaN"] = factory_of<FloatPredicateKernel<false>>();
  m["IsInf"] = factory_of<FloatPredicateKernel<true>>();
  m["Not"] = factory_of<NotKernel>();
}

}  // namespace tessera::cpu
