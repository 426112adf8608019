// Arithmetic and bitwise binary ops with multidirectional broadcasting: Add,
// Sub, Mul, Div, Mod, Pow, PRelu, BitShift, BitwiseAnd/Or/Xor. Integers wrap
// on overflow (computed in unsigned arithmetic); integer division or modulo by
// zero is an error naming the node.
#include <algorithm>
#include <cmath>
#include <string>

#include "linalg/vec_math.hpp"
#include "linalg/vec_pow.hpp"
#include "providers/cpu/math/binary_kernel.hpp"
#include "providers/cpu/math/half_blocks.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

namespace {

struct AddOp {
  using Types = NumericTypes;
  explicit AddOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = T;
  template <typename T>
  T apply(T a, T b) const {
    if constexpr (is_half_v<T>)
      return T(float(a) + float(b));
    else
      return wrap_add(a, b);
  }
};

struct SubOp {
  using Types = NumericTypes;
  explicit SubOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = T;
  template <typename T>
  T apply(T a, T b) const {
    if constexpr (is_half_v<T>)
      return T(float(a) - float(b));
    else
      return wrap_sub(a, b);
  }
};

struct MulOp {
  using Types = NumericTypes;
  explicit MulOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = T;
  template <typename T>
  T apply(T a, T b) const {
    if constexpr (is_half_v<T>)
      return T(float(a) * float(b));
    else
      return wrap_mul(a, b);
  }
};

struct DivOp {
  using Types = NumericTypes;
  static constexpr bool kIntDivisor = true;
  explicit DivOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = T;
  template <typename T>
  T apply(T a, T b) const {
    if constexpr (is_half_v<T>) {
      return T(float(a) / float(b));
    } else if constexpr (std::is_floating_point_v<T>) {
      return a / b;
    } else {
      // Zero divisors were rejected before the loop; this guard only keeps the
      // loop free of traps. INT_MIN / -1 overflows: wrap like negation.
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>)
        if (b == T(-1)) return wrap_neg(a);
      return T(a / b);  // truncates toward zero, as C does
    }
  }
};

struct ModOp {
  using Types = NumericTypes;
  static constexpr bool kIntDivisor = true;
  bool fmod;
  explicit ModOp(const ep::KernelInfo& info) : fmod(info.attr_int("fmod", 0) != 0) {}
  template <typename T>
  using Out = T;
  template <typename T>
  T apply(T a, T b) const {
    if constexpr (is_float_v<T>) {
      // The spec asks for fmod=1 with floats; with fmod=0 we give numpy's
      // mod (sign of the divisor) rather than refusing the model.
      using C = Compute<T>;
      C x = load(a), y = load(b);
      C r = std::fmod(x, y);
      if (!fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
      return store<T>(r);
    } else {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
        T r = T(a % b);
        if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
        return r;
      } else {
        return T(a % b);
      }
    }
  }
};

struct BitShiftOp {
  using Types = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
  bool left;
  explicit BitShiftOp(const ep::KernelInfo& info) {
    std::string d = info.attr_string("direction");
    if (d != "LEFT" && d != "RIGHT")
      info.fail_node("direction must be \"LEFT\" or \"RIGHT\", got \"", d, "\"");
    left = d == "LEFT";
  }
  template <typename T>
  using Out = T;
  template <typename T>
  T apply(T a, T b) const {
    // Shifting by the width or more is undefined in C++; the bits are all gone.
    if (b >= T(sizeof(T) * 8)) return T(0);
    return left ? T(WrapType<T>(a) << b) : T(a >> b);
  }
};

template <int kKind>  // 0 and, 1 or, 2 xor
struct BitwiseOp {
  using Types = IntTypes;
  explicit BitwiseOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = T;
  template <typename T>
  T apply(T a, T b) const {
    if constexpr (kKind == 0)
      return T(a & b);
    else if constexpr (kKind == 1)
      return T(a | b);
    else
      return T(a ^ b);
  }
};

struct PReluOp {
  using Types = NumericTypes;
  explicit PReluOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = T;
  template <typename T>
  T apply(T x, T slope) const {
    if constexpr (std::is_unsigned_v<T>) {
      (void)slope;
      return x;
    } else if constexpr (is_half_v<T>) {
      float v = float(x);
      return v < 0 ? T(v * float(slope)) : x;
    } else {
      return x < T(0) ? wrap_mul(x, slope) : x;
    }
  }
};

// PRelu broadcasts slope to X only (unidirectional; ops::prelu_slope_shape
// lines up the per-channel slope of opsets before 7).
class PReluKernel final : public ep::OpKernel {
 public:
  explicit PReluKernel(const ep::KernelInfo& info) : op_(info), shape_(info), over_(info, {0}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& slope = ctx.required_input(1);
    check_same_type(ctx, x, slope);
    const Shape so = shape_.output(ctx, {&x, &slope});
    const Shape ss = ops::prelu_slope_shape(x.shape(), slope.shape(), shape_.opset());
    if (x.dtype() == DataType::kFloat && so == x.shape()) {
      const ops::BroadcastIndexer bi({x.shape(), ss}, so);
      if (bi.inner_stride(1) == 0) {
        float_constant_slope_runs(ctx, bi, x.data<float>(), slope.data<float>(),
                                  output_over(ctx, so, x.dtype(), {0}).mutable_data<float>());
        return;
      }
    }
    visit_type(PReluOp::Types{}, x.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& out = output_over(ctx, so, x.dtype(), {0});
      const PReluOp& op = op_;
      binary_broadcast(ctx.thread_pool(), x.data<T>(), x.shape(), slope.data<T>(), ss,
                       out.mutable_data<T>(), so, 1.0,
                       [&op](T a, T b) { return op.template apply<T>(a, b); });
    });
  }

 private:
  // A slope that is constant along each contiguous run of X (one slope, or
  // one per channel of [N, C, ...]): each run is LeakyRelu with that slope,
  // vectorised; a long run is cut into pieces so one run spreads over the
  // threads (ConvTasNet's PRelu has one slope for all of [1, 256, 1001]).
  static void float_constant_slope_runs(ep::KernelContext& ctx, const ops::BroadcastIndexer& bi,
                                        const float* x, const float* slope, float* y) {
    constexpr int64_t kPiece = 16384;
    const int64_t inner = bi.inner();
    const int64_t pieces = std::max<int64_t>(1, (inner + kPiece - 1) / kPiece);
    const int64_t piece = (inner + pieces - 1) / pieces;
    ctx.thread_pool().parallel_for(
        bi.num_rows() * pieces, double(piece), [&](int64_t i0, int64_t i1) {
          int64_t off[2];
          for (int64_t i = i0; i < i1; ++i) {
            const int64_t row = i / pieces, begin = (i % pieces) * piece;
            const int64_t len = std::min(piece, inner - begin);
            if (len <= 0) continue;
            bi.row_offsets(row, off);
            const int64_t at = row * inner + begin;
            linalg::vec_activation(linalg::VecActivation::kLeakyRelu, slope[off[1]], 0.0f, x + at,
                                   y + at, len);
          }
        });
  }

  PReluOp op_;
  ep::OpShape shape_;
  OverInputs over_;
};

// Integer power by squaring, wrapping on overflow; negative exponents give the
// integer part of 1/x^n (1, -1 or 0).
template <typename T, typename E>
T int_pow(T x, E e) {
  if constexpr (std::is_signed_v<E>) {
    if (e < 0) {
      if (x == T(1)) return T(1);
      if constexpr (std::is_signed_v<T>)
        if (x == T(-1)) return (e % 2) ? T(-1) : T(1);
      return T(0);
    }
  }
  T r = T(1);
  uint64_t n = uint64_t(e);
  while (n) {
    if (n & 1u) r = wrap_mul(r, x);
    x = wrap_mul(x, x);
    n >>= 1;
  }
  return r;
}

template <typename T, typename E>
T pow_elem(T x, E y) {
  if constexpr (is_float_v<T>) {
    using C = Compute<T>;
    return store<T>(std::pow(C(load(x)), C(load(y))));
  } else if constexpr (is_float_v<E>) {
    return float_to_int<T>(std::pow(double(x), double(load(y))));
  } else {
    return int_pow(x, y);
  }
}

// Pow's base and exponent may have different types (opset 12 on).
class PowKernel final : public ep::OpKernel {
 public:
  explicit PowKernel(const ep::KernelInfo& info)
      : legacy_(info), shape_(info), over_(info, {0, 1}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& y = ctx.required_input(1);
    const Shape so = shape_.output(ctx, {&x, &y});
    const Shape sy = legacy_.align_b(x.shape(), y.shape());
    if (x.dtype() == DataType::kFloat && y.dtype() == DataType::kFloat &&
        float_power(ctx, x, y, so))
      return;
    const ir::Node& what = ctx.node();  // described only on error
    using Bases = TypeList<float, double, Float16, BFloat16, int32_t, int64_t>;
    visit_type(Bases{}, x.dtype(), what, [&](auto tx) {
      using T = typename decltype(tx)::type;
      visit_type(NumericTypes{}, y.dtype(), what, [&](auto ty) {
        using E = typename decltype(ty)::type;
        Tensor& out = output_over(ctx, so, x.dtype(), {0, 1});
        binary_broadcast(ctx.thread_pool(), x.data<T>(), x.shape(), y.data<E>(), sy,
                         out.mutable_data<T>(), so, 8.0,
                         [](T a, E b) { return pow_elem<T, E>(a, b); });
      });
    });
  }

 private:
  // x^1, x^2, x^3, x^0.5 and x^-1 as products, a square root and a division
  // instead of powf per element (squares, norms and reciprocals in real
  // graphs). sqrt differs from pow only at -0 and -inf, handled here; 1 / x
  // is rounded once, like powf's result, and agrees with it at zeros,
  // infinities and overflow. False for other exponents.
  static bool small_power(ep::KernelContext& ctx, const Tensor& x, float e, const Shape& so) {
    if (e != 1.f && e != 2.f && e != 3.f && e != 0.5f && e != -1.f) return false;
    Tensor& out = output_over(ctx, so, DataType::kFloat, {0});
    const float* px = x.data<float>();
    float* po = out.mutable_data<float>();
    const int64_t n = out.num_elements();
    constexpr int64_t kChunk = 4096;
    ctx.thread_pool().parallel_for(
        (n + kChunk - 1) / kChunk, e == 0.5f ? 4.0 * kChunk : double(kChunk),
        [&](int64_t c0, int64_t c1) {
          const int64_t s = c0 * kChunk, end = std::min(n, c1 * kChunk);
          if (e == 1.f) {
            if (po != px) std::copy(px + s, px + end, po + s);
          } else if (e == 2.f) {
            for (int64_t i = s; i < end; ++i) po[i] = px[i] * px[i];
          } else if (e == 3.f) {
            for (int64_t i = s; i < end; ++i) po[i] = px[i] * px[i] * px[i];
          } else if (e == -1.f) {
            for (int64_t i = s; i < end; ++i) po[i] = 1.f / px[i];
          } else {
            for (int64_t i = s; i < end; ++i)
              po[i] = px[i] == -INFINITY ? INFINITY : std::sqrt(px[i]) + 0.f;
          }
        });
    return true;
  }

  // Float Pow with a scalar exponent or two tensors of one shape: the small
  // exponents above, else linalg::vec_pow. False for other broadcasts.
  static bool float_power(ep::KernelContext& ctx, const Tensor& x, const Tensor& y,
                          const Shape& so) {
    const bool scalar = y.num_elements() == 1;
    if (so != x.shape() || (!scalar && y.shape() != x.shape())) return false;
    if (scalar && small_power(ctx, x, y.data<float>()[0], so)) return true;
    Tensor& out = output_over(ctx, so, DataType::kFloat, {0, 1});
    const float* px = x.data<float>();
    const float* py = y.data<float>();
    float* po = out.mutable_data<float>();
    const int64_t n = out.num_elements();
    constexpr int64_t kChunk = 1024;
    ctx.thread_pool().parallel_for(
        (n + kChunk - 1) / kChunk, 20.0 * kChunk, [&](int64_t c0, int64_t c1) {
          const int64_t s = c0 * kChunk, len = std::min(n, c1 * kChunk) - s;
          if (scalar)
            linalg::vec_pow_scalar(px + s, py[0], po + s, len);
          else
            linalg::vec_pow(px + s, py + s, po + s, len);
        });
    return true;
  }

  LegacyBroadcast legacy_;
  ep::OpShape shape_;
  OverInputs over_;
};

// Add/Sub/Mul/Div on float tensors through the vectorised loops when the
// broadcast is one of the shapes transformers use: equal shapes, a scalar on
// either side, or one side a trailing vector ([.., N] op [N], [1, N], ...).
// Everything else (and every other type) goes to the generic kernel.
template <typename Op, linalg::BinaryOp kVec>
class FloatFastBinaryKernel final : public ep::OpKernel {
 public:
  explicit FloatFastBinaryKernel(const ep::KernelInfo& info)
      : generic_(info), legacy_(info.opset() < 7 && info.attr_int("broadcast", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor* a = ctx.input(0);
    const Tensor* b = ctx.input(1);
    if (!legacy_ && a && b && a->dtype() == b->dtype() && is_half_type(a->dtype()) &&
        half(ctx, *a, *b))
      return;
    if (legacy_ || !a || !b || a->dtype() != DataType::kFloat || b->dtype() != DataType::kFloat ||
        !fast(ctx, *a, *b))
      generic_.compute(ctx);
  }
  bool writes_over_input(size_t i) const override { return generic_.writes_over_input(i); }

 private:
  // float16 and bfloat16 of one shape, or one side a single value: the float
  // loops on blocks widened and rounded back (half_blocks). True when handled.
  bool half(ep::KernelContext& ctx, const Tensor& a, const Tensor& b) const {
    const bool same = a.shape() == b.shape();
    // Which side is the single value (the other gives the output's shape).
    const bool scalar_b = !same && b.num_elements() == 1 && a.rank() >= b.rank();
    const bool scalar_a = !same && !scalar_b && a.num_elements() == 1 && b.rank() >= a.rank();
    if (!same && !scalar_a && !scalar_b) return false;
    const Tensor& big = scalar_a ? b : a;
    const DataType t = a.dtype();
    // `other` is widened from b before the loop writes the block: the output
    // may be written over either operand of the output's size.
    Tensor& out = output_over(ctx, big.shape(), t, {0, 1});
    const int64_t n = out.num_elements();
    float scalar = 0.f;
    if (!same) widen_halves(t, (scalar_b ? b : a).raw_data(), 0, &scalar, 1);
    const void* pa = a.raw_data();
    const void* pb = b.raw_data();
    void* po = out.mutable_raw_data();
    ctx.thread_pool().parallel_for(
        (n + kHalfBlock - 1) / kHalfBlock, 2.0 * kHalfBlock, [&](int64_t c0, int64_t c1) {
          float other[kHalfBlock];
          const int64_t s0 = c0 * kHalfBlock, e0 = std::min(n, c1 * kHalfBlock);
          for (int64_t s = s0; s < e0; s += kHalfBlock) {
            const int64_t m = std::min(kHalfBlock, e0 - s);
            if (same) widen_halves(t, pb, s, other, m);
            half_blocks(t, scalar_a ? pb : pa, po, s, s + m,
                        [&](const float* in, float* o, int64_t len) {
                          if (same)
                            linalg::vec_binary(kVec, in, other, o, len);
                          else
                            linalg::vec_binary_scalar(kVec, in, scalar, scalar_a, o, len);
                        });
          }
        });
    return true;
  }

  // True when it handled the case.
  bool fast(ep::KernelContext& ctx, const Tensor& a, const Tensor& b) const {
    const int64_t na = a.num_elements(), nb = b.num_elements();
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    auto run = [&](const Shape& shape, double cost, auto&& body) {
      Tensor& out = output_over(ctx, shape, DataType::kFloat, {0, 1});
      float* po = out.mutable_data<float>();
      const int64_t n = out.num_elements();
      constexpr int64_t kChunk = 1024;
      ctx.thread_pool().parallel_for(
          (n + kChunk - 1) / kChunk, cost * kChunk,
          [&](int64_t c0, int64_t c1) { body(po, c0 * kChunk, std::min(n, c1 * kChunk)); });
    };
    if (a.shape() == b.shape()) {
      run(a.shape(), 1.0, [&](float* po, int64_t s, int64_t e) {
        linalg::vec_binary(kVec, pa + s, pb + s, po + s, e - s);
      });
      return true;
    }
    if (na == 1 || nb == 1) {
      const Tensor& big = na == 1 ? b : a;
      if (big.rank() < (na == 1 ? a : b).rank())
        return false;  // a scalar of higher rank widens the output
      const float s = na == 1 ? pa[0] : pb[0];
      const float* pv = big.data<float>();
      run(big.shape(), 1.0, [&](float* po, int64_t i0, int64_t i1) {
        linalg::vec_binary_scalar(kVec, pv + i0, s, na == 1, po + i0, i1 - i0);
      });
      return true;
    }
    if (per_channel(ctx, a, b)) return true;
    // One side [.., N], the other N values along the last axis (leading dims 1).
    for (int side = 0; side < 2; ++side) {
      const Tensor& big = side == 0 ? a : b;
      const Tensor& vec = side == 0 ? b : a;
      if (big.rank() == 0 || vec.rank() > big.rank()) continue;
      const int64_t n = big.shape()[big.rank() - 1];
      if (vec.num_elements() != n || vec.shape()[vec.rank() - 1] != n || n == 0) continue;
      const float* pbig = big.data<float>();
      const float* pvec = vec.data<float>();
      const int64_t rows = big.num_elements() / n;
      Tensor& out = output_over(ctx, big.shape(), DataType::kFloat, {size_t(side)});
      float* po = out.mutable_data<float>();
      ctx.thread_pool().parallel_for(rows, double(n), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          if (side == 0)
            linalg::vec_binary(kVec, pbig + r * n, pvec, po + r * n, n);
          else
            linalg::vec_binary(kVec, pvec, pbig + r * n, po + r * n, n);
        }
      });
      return true;
    }
    return false;
  }

  // One side [O, M, I] (dims grouped), the other [O, 1, I]: a per-channel
  // operand of an image, [N, C, H, W] op [N, C, 1, 1] (I = 1), or of a
  // blocked one, [N, C/16, H, W, 16] op [N, C/16, 1, 1, 16] (I = 16), the
  // squeeze-excitation scale of EfficientNet-style models. Equal ranks only
  // (a lower-rank side is the trailing-vector case below).
  bool per_channel(ep::KernelContext& ctx, const Tensor& a, const Tensor& b) const {
    if (a.rank() != b.rank()) return false;
    const size_t r = a.rank();
    for (int side = 0; side < 2; ++side) {
      const Tensor& big = side == 0 ? a : b;
      const Tensor& small = side == 0 ? b : a;
      const auto& bd = big.shape().dims();
      const auto& sd = small.shape().dims();
      // The dims where small is 1 and big is not must be one contiguous run.
      size_t d0 = r, d1 = 0;
      bool ok = true;
      for (size_t d = 0; d < r && ok; ++d) {
        if (sd[d] == bd[d]) continue;
        if (sd[d] != 1) ok = false;
        d0 = std::min(d0, d), d1 = d + 1;
      }
      if (!ok || d0 >= d1) continue;
      for (size_t d = d0; d < d1; ++d)
        if (sd[d] != 1) ok = false;  // a dim equal to big's inside the run breaks it
      if (!ok) continue;
      int64_t O = 1, M = 1, I = 1;
      for (size_t d = 0; d < r; ++d) (d < d0 ? O : d < d1 ? M : I) *= bd[d];
      if (O * M * I == 0) continue;
      const float* pbig = big.data<float>();
      const float* psmall = small.data<float>();
      Tensor& out = output_over(ctx, big.shape(), DataType::kFloat, {size_t(side)});
      float* po = out.mutable_data<float>();
      const bool first = side == 1;  // small is a: small op big
      ctx.thread_pool().parallel_for(O * M, double(I), [&](int64_t r0, int64_t r1) {
        // Rows [r0, r1) of big's O * M rows of I, in runs of one o.
        for (int64_t row = r0; row < r1;) {
          const int64_t o = row / M, end = std::min(r1, (o + 1) * M);
          if (I == 1)
            linalg::vec_binary_scalar(kVec, pbig + row, psmall[o], first, po + row, end - row);
          else
            linalg::vec_binary_rows(kVec, pbig + row * I, psmall + o * I, first, po + row * I,
                                    end - row, I);
          row = end;
        }
      });
      return true;
    }
    return false;
  }

  BinaryKernel<Op> generic_;
  bool legacy_;
};

}  // namespace

void add_binary_arith_factories(FactoryMap& m) {
  m["Add"] = factory_of<FloatFastBinaryKernel<AddOp, linalg::BinaryOp::kAdd>>();
  m["Sub"] = factory_of<FloatFastBinaryKernel<SubOp, linalg::BinaryOp::kSub>>();
  m["Mul"] = factory_of<FloatFastBinaryKernel<MulOp, linalg::BinaryOp::kMul>>();
  m["Div"] = factory_of<FloatFastBinaryKernel<DivOp, linalg::BinaryOp::kDiv>>();
  m["Mod"] = factory_of<BinaryKernel<ModOp>>();
  m["BitShift"] = factory_of<BinaryKernel<BitShiftOp>>();
  m["BitwiseAnd"] = factory_of<BinaryKernel<BitwiseOp<0>>>();
  m["BitwiseOr"] = factory_of<BinaryKernel<BitwiseOp<1>>>();
  m["BitwiseXor"] = factory_of<BinaryKernel<BitwiseOp<2>>>();
  m["PRelu"] = factory_of<PReluKernel>();
  m["Pow"] = factory_of<PowKernel>();
}

}  // namespace tessera::cpu
