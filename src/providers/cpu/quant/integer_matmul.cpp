// MatMulInteger (opset 10), QLinearMatMul (opsets 10, 21) and
// DynamicQuantizeLinear (opset 11).
#include <algorithm>
#include <cmath>

#include "core/host_heap.hpp"
#include "core/quant_types.hpp"
#include "linalg/quantize.hpp"
#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/quant/igemm_matmul.hpp"
#include "providers/cpu/quant/matmul_shape.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {

// Per-row (A) or per-column (B) quantization parameters: a scalar, a 1-D
// vector over the rows/columns, or an N-D tensor shaped like the operand
// with a 1 in the reduced dimension.
class QuantParam {
 public:
  QuantParam() = default;
  QuantParam(const ep::KernelContext& ctx, const char* what, const Tensor* t, const Shape& operand,
             bool rows)
      : values_(t ? read_as<double>(*t) : std::vector<double>{0.0}) {
    if (!t || t->num_elements() == 1) return;
    const int64_t r = int64_t(operand.rank());
    const int64_t len = rows ? (r >= 2 ? operand[size_t(r - 2)] : 1) : operand[size_t(r - 1)];
    if (t->rank() == 1 && t->shape()[0] == len) {
      per_ = len;
      return;
    }
    // N-D: operand's shape with the reduced dim set to 1.
    std::vector<int64_t> want = operand.dims();
    if (r >= 1) want[size_t(rows ? r - 1 : r - 2 >= 0 ? r - 2 : 0)] = 1;
    if (t->shape().dims() != want)
      ctx.fail_node(what, " shape ", t->shape().to_string(), " is neither a scalar, length ", len,
                    ", nor ", Shape(want).to_string(), " for operand ", operand.to_string());
    per_ = len;
    batched_ = true;
  }
  // Value for matrix `batch` (operand's own batch index) and row/column `i`.
  double at(int64_t batch, int64_t i) const {
    if (per_ == 0) return values_[0];
    return values_[size_t((batched_ ? batch * per_ : 0) + i)];
  }

 private:
  std::vector<double> values_;
  int64_t per_ = 0;
  bool batched_ = false;
};

// acc[b, m, n] = sum_k (a - azp[m]) * (b - bzp[n]), exact in double for the
// 8-bit inputs these ops take (and their float8 forms).
std::vector<double> integer_products(const MatMulPlan& p, const std::vector<double>& a,
                                     const std::vector<double>& b, const QuantParam& azp,
                                     const QuantParam& bzp, ThreadPool& pool) {
  std::vector<double> acc(size_t(p.batch * p.M * p.N), 0.0);
  pool.parallel_for(p.batch * p.M, double(p.K * p.N), [&](int64_t begin, int64_t end) {
    for (int64_t bm = begin; bm < end; ++bm) {
      int64_t bi = bm / p.M, m = bm % p.M;
      const double* ar = a.data() + p.a_offset[size_t(bi)] + m * p.K;
      const double* bmat = b.data() + p.b_offset[size_t(bi)];
      int64_t ab = p.a_offset[size_t(bi)] / std::max<int64_t>(1, p.M * p.K);
      int64_t bb = p.b_offset[size_t(bi)] / std::max<int64_t>(1, p.K * p.N);
      double za = azp.at(ab, m);
      double* out = acc.data() + bm * p.N;
      for (int64_t k = 0; k < p.K; ++k) {
        double av = ar[k] - za;
        const double* br = bmat + k * p.N;
        for (int64_t n = 0; n < p.N; ++n) out[n] += av * (br[n] - bzp.at(bb, n));
      }
    }
  });
  return acc;
}

class MatMulIntegerKernel : public ep::OpKernel {
 public:
  explicit MatMulIntegerKernel(const ep::KernelInfo& info)
      : packed_b_(pack_constant_int8_b(info, 1)) {}
  // A packed B is all a run reads of input 1.
  bool reads_constant_data(size_t i) const override { return i != 1 || !packed_b_; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    MatMulPlan p = plan_matmul(ctx, a.shape(), b.shape());
    // int8/uint8 with scalar or 1-D zero points: the packed integer GEMM.
    if (igemm_matmul(ctx, p, a, b, ctx.input(2), ctx.input(3), packed_b_.get())) return;
    Shape a2 = a.rank() == 1 ? Shape{1, a.shape()[0]} : a.shape();
    Shape b2 = b.rank() == 1 ? Shape{b.shape()[0], 1} : b.shape();
    QuantParam azp(ctx, "a_zero_point", ctx.input(2), a2, true);
    QuantParam bzp(ctx, "b_zero_point", ctx.input(3), b2, false);
    auto acc =
        integer_products(p, read_as<double>(a), read_as<double>(b), azp, bzp, ctx.thread_pool());
    Tensor& y = ctx.output(0, p.out, DataType::kInt32);
    int32_t* yd = y.mutable_data<int32_t>();
    // Accumulation wraps in 32 bits, as the spec allows.
    for (size_t i = 0; i < acc.size(); ++i) yd[i] = int32_t(uint32_t(int64_t(acc[i])));
  }

 private:
  std::shared_ptr<const linalg::PackedBInt8> packed_b_;
};

// QLinearMatMul's fast path: 8-bit A and B, per-tensor A, y_scale and
// y_zero_point, B's scale per tensor or per column, 8-bit output, and K
// small enough (at most 33025) that no sum of K products of 255 x 255 leaves
// int32: the exact sums come from the packed integer GEMM, and each run of
// them is requantized as the tile hands it out, in the reference's float
// arithmetic, value by value, so the bytes are the reference loop's.
bool qlinear_matmul_fast(ep::KernelContext& ctx, const MatMulPlan& p, const Tensor& a,
                         const Tensor& b, const linalg::PackedBInt8* packed) {
  const Tensor& as = ctx.required_input(1);
  const Tensor& bs = ctx.required_input(4);
  const Tensor& ys = ctx.required_input(6);
  const Tensor& yzp = ctx.required_input(7);
  const Tensor* azp = ctx.input(2);
  const Tensor* bzp = ctx.input(5);
  auto scalar = [](const Tensor* t) { return !t || t->num_elements() == 1; };
  const bool b_per_col = bs.rank() == 1 && bs.shape()[0] == p.N;
  if (!is_8bit_integer_type(a.dtype()) || !is_8bit_integer_type(b.dtype()) ||
      !is_8bit_integer_type(yzp.dtype()) || p.K > 33025 || as.dtype() != DataType::kFloat ||
      bs.dtype() != DataType::kFloat || ys.dtype() != DataType::kFloat || !scalar(&as) ||
      !scalar(azp) || !scalar(&ys) || !scalar(&yzp) || !(scalar(&bs) || b_per_col) ||
      !(scalar(bzp) || (bzp->rank() == 1 && bzp->shape()[0] == p.N)))
    return false;
  const float a_s = as.data<float>()[0], y_s = ys.data<float>()[0];
  const float zp = float(yzp.element_as_double(0));
  const bool is_signed = yzp.dtype() == DataType::kInt8;
  const float lo = is_signed ? -128.f : 0.f, hi = is_signed ? 127.f : 255.f;
  const float* b_s = bs.data<float>();
  uint8_t* out = nullptr;
  const linalg::IgemmStore requant = [&](int64_t row, int64_t n0, int64_t width, const int32_t* v) {
    uint8_t* o = out + row * p.N + n0;
    if (!b_per_col) {
      // One scale for all of B: the vector requantization QLinearConv uses
      // (multiplier a_scale * b_scale, as the per-column loop below).
      linalg::requantize(v, width, 0, a_s * b_s[0], y_s, int32_t(zp), int32_t(lo), int32_t(hi), o);
      return;
    }
    for (int64_t j = 0; j < width; ++j) {
      const float real = float(v[j]) * (a_s * b_s[n0 + j]);
      const float r = round_half_even(real / y_s) + zp;
      const float c = std::isnan(r) ? lo : std::clamp(r, lo, hi);  // NaN: zero scales only
      o[j] = is_signed ? uint8_t(int8_t(c)) : uint8_t(c);
    }
  };
  // (The checks above leave igemm_matmul nothing to decline.)
  Tensor& y = ctx.output(0, p.out, yzp.dtype());
  out = static_cast<uint8_t*>(y.mutable_raw_data());
  if (!b_per_col) {
    // One multiplier for the whole product: the requantizing tile.
    linalg::IgemmRequantize q;
    q.y_scale = y_s;
    q.y_zero = int32_t(zp);
    q.lo = int32_t(lo);
    q.hi = int32_t(hi);
    if (igemm_matmul_requantize(ctx, p, a, b, azp, bzp, packed, a_s * b_s[0], q, out)) return true;
  }
  return igemm_matmul(ctx, p, a, b, azp, bzp, packed, nullptr, nullptr, &requant);
}

class QLinearMatMulKernel : public ep::OpKernel {
 public:
  explicit QLinearMatMulKernel(const ep::KernelInfo& info)
      : packed_b_(pack_constant_int8_b(info, 3)) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(3);
    const Tensor& yzp_t = ctx.required_input(7);
    MatMulPlan p = plan_matmul(ctx, a.shape(), b.shape());
    if (qlinear_matmul_fast(ctx, p, a, b, packed_b_.get())) return;
    Shape a2 = a.rank() == 1 ? Shape{1, a.shape()[0]} : a.shape();
    Shape b2 = b.rank() == 1 ? Shape{b.shape()[0], 1} : b.shape();
    QuantParam as(ctx, "a_scale", &ctx.required_input(1), a2, true);
    QuantParam azp(ctx, "a_zero_point", ctx.input(2), a2, true);
    QuantParam bs(ctx, "b_scale", &ctx.required_input(4), b2, false);
    QuantParam bzp(ctx, "b_zero_point", ctx.input(5), b2, false);
    QuantParam ys(ctx, "y_scale", &ctx.required_input(6), p.out.rank() >= 1 ? p.out : Shape{1},
                  false);
    QuantParam yzp(ctx, "y_zero_point", &yzp_t, p.out.rank() >= 1 ? p.out : Shape{1}, false);
    auto acc =
        integer_products(p, read_as<double>(a), read_as<double>(b), azp, bzp, ctx.thread_pool());
    const DataType out_t = yzp_t.dtype();
    const bool to_float = is_float_type(out_t);
    double lo = 0, hi = 0;
    integer_range(out_t, &lo, &hi);
    std::vector<float> q(acc.size());
    for (int64_t bi = 0; bi < p.batch; ++bi) {
      int64_t ab = p.a_offset[size_t(bi)] / std::max<int64_t>(1, p.M * p.K);
      int64_t bb = p.b_offset[size_t(bi)] / std::max<int64_t>(1, p.K * p.N);
      for (int64_t m = 0; m < p.M; ++m)
        for (int64_t n = 0; n < p.N; ++n) {
          size_t i = size_t((bi * p.M + m) * p.N + n);
          // Scales are float: the real value and its requantization are computed in float.
          float real = float(acc[i]) * float(as.at(ab, m)) * float(bs.at(bb, n));
          float v = real / float(ys.at(bi, n));
          if (to_float) {
            q[i] = v + float(yzp.at(bi, n));
          } else {
            double r = double(round_half_even(v)) + yzp.at(bi, n);
            q[i] = float(std::clamp(r, lo, hi));
          }
        }
    }
    Tensor& y = ctx.output(0, p.out, out_t);
    write_from(y, q.data());
  }

 private:
  std::shared_ptr<const linalg::PackedBInt8> packed_b_;
};

class DynamicQuantizeLinearKernel : public ep::OpKernel {
 public:
  explicit DynamicQuantizeLinearKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const float* xd = x.data<float>();
    const int64_t n = x.num_elements();
    float mn = 0.f, mx = 0.f;  // the range always includes zero
    linalg::min_max_with_zero(xd, n, &mn, &mx);
    const float scale = (mx - mn) / 255.f;
    float zpf = 0.f;
    if (scale != 0.f) zpf = std::clamp(round_half_even(0.f - mn / scale), 0.f, 255.f);
    // An infinite input makes the scale infinite and -min / scale NaN, which
    // clamp passes through; 0 keeps the conversion to uint8 defined.
    if (std::isnan(zpf)) zpf = 0.f;
    Tensor& y = ctx.output(0, x.shape(), DataType::kUInt8);
    uint8_t* yd = y.mutable_data<uint8_t>();
    if (scale != 0.f)
      linalg::quantize_u8(xd, n, scale, zpf, yd);
    else
      std::fill(yd, yd + n, uint8_t(zpf));
    ctx.output(1, Shape{}, DataType::kFloat).mutable_data<float>()[0] = scale;
    ctx.output(2, Shape{}, DataType::kUInt8).mutable_data<uint8_t>()[0] = uint8_t(zpf);
  }
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_matmul_integer(const ep::KernelInfo& info) {
  return std::make_unique<MatMulIntegerKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_qlinear_matmul(const ep::KernelInfo& info) {
  return std::make_unique<QLinearMatMulKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_dynamic_quantize_linear(const ep::KernelInfo& info) {
  return std::make_unique<DynamicQuantizeLinearKernel>(info);
}

}  // namespace tessera::cpu
