// QuantizeLinear (opsets 10-25) and DequantizeLinear (opsets 10-25).
#include <cmath>

#include "core/float8.hpp"
#include "linalg/quantize.hpp"
#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"
#include "providers/cpu/quant/scale_layout.hpp"

namespace tessera::cpu {

namespace {

bool is_float8_or_4(DataType t) { return is_float_type(t) && data_type_bits(t) <= 8; }

// Rounds a float to the precision of `t` (float16/bfloat16 arithmetic).
float round_to(DataType t, float v) {
  if (t == DataType::kFloat16) return float(Float16(v));
  if (t == DataType::kBFloat16) return float(BFloat16(v));
  return v;
}

class QuantizeLinearKernel : public ep::OpKernel {
 public:
  explicit QuantizeLinearKernel(const ep::KernelInfo& info)
      : axis_(info.attr_int("axis", 1)),
        block_size_(info.attr_int("block_size", 0)),
        saturate_(info.attr_int("saturate", 1) != 0),
        output_dtype_(DataType(info.attr_int("output_dtype", 0))),
        precision_(DataType(info.attr_int("precision", 0))) {
    if (block_size_ < 0) info.fail_node("block_size must be >= 0, got ", block_size_);
    if (output_dtype_ != DataType::kUndefined && info.has_input(2) &&
        info.input_type(2) != DataType::kUndefined && info.input_type(2) != output_dtype_)
      info.fail_node("output_dtype ", data_type_name(output_dtype_),
                     " differs from y_zero_point's type ", data_type_name(info.input_type(2)));
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    const Tensor* zp = ctx.input(2);
    DataType out_t = zp ? zp->dtype() : output_dtype_;
    if (out_t == DataType::kUndefined) out_t = ctx.output_type(0);
    if (out_t == DataType::kUndefined) out_t = DataType::kUInt8;
    if (zp && zp->num_elements() != scale.num_elements())
      ctx.fail_node("y_zero_point shape ", zp->shape().to_string(), " differs from y_scale shape ",
                    scale.shape().to_string());
    ScaleLayout layout(ctx, x.shape(), scale.shape(), axis_, block_size_);
    DataType prec = precision_ != DataType::kUndefined ? precision_ : scale.dtype();
    // Per tensor, float to 8 bits: the vector loop, same values.
    if (x.dtype() == DataType::kFloat && prec == DataType::kFloat && scale.num_elements() == 1 &&
        (out_t == DataType::kUInt8 || out_t == DataType::kInt8)) {
      const float s = scale.data<float>()[0];
      const float z = zp ? float(zp->element_as_double(0)) : 0.f;
      Tensor& y = ctx.output(0, x.shape(), out_t);
      const float* xd = x.data<float>();
      // In chunks across the session's threads (one pass, a few ops an element).
      ctx.thread_pool().parallel_for(x.num_elements(), 4.0, [&](int64_t b, int64_t e) {
        if (out_t == DataType::kUInt8)
          linalg::quantize_u8(xd + b, e - b, s, z, y.mutable_data<uint8_t>() + b);
        else
          linalg::quantize_s8(xd + b, e - b, s, z, y.mutable_data<int8_t>() + b);
      });
      return;
    }
    auto xs = read_as<float>(x);
    auto ss = read_as<float>(scale);
    std::vector<float> zs = zp ? read_as<float>(*zp) : std::vector<float>(ss.size(), 0.f);
    Tensor& y = ctx.output(0, x.shape(), out_t);
    const int64_t n = x.num_elements();
    std::vector<float> q(size_t(n > 0 ? n : 0));
    const bool to_float = is_float8_or_4(out_t);
    double lo = 0, hi = 0;
    if (!to_float) integer_range(out_t, &lo, &hi);
    for (int64_t i = 0; i < n; ++i) {
      int64_t s = layout.index(i);
      float v = round_to(prec, round_to(prec, xs[size_t(i)]) / round_to(prec, ss[size_t(s)]));
      if (to_float) {
        q[size_t(i)] = v + zs[size_t(s)];
      } else {
        double r = double(round_half_even(v)) + double(zs[size_t(s)]);
        if (std::isnan(r)) r = 0;
        q[size_t(i)] = float(r < lo ? lo : (r > hi ? hi : r));
      }
    }
    write_from(y, q.data(), saturate_);
  }

 private:
  int64_t axis_, block_size_;
  bool saturate_;
  DataType output_dtype_, precision_;
};

class DequantizeLinearKernel : public ep::OpKernel {
 public:
  explicit DequantizeLinearKernel(const ep::KernelInfo& info)
      : axis_(info.attr_int("axis", 1)),
        block_size_(info.attr_int("block_size", 0)),
        output_dtype_(DataType(info.attr_int("output_dtype", 0))) {
    if (block_size_ < 0) info.fail_node("block_size must be >= 0, got ", block_size_);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    const Tensor* zp = ctx.input(2);
    if (zp && zp->dtype() != x.dtype())
      ctx.fail_node("x_zero_point type ", data_type_name(zp->dtype()), " differs from x type ",
                    data_type_name(x.dtype()));
    if (zp && zp->num_elements() != scale.num_elements())
      ctx.fail_node("x_zero_point shape ", zp->shape().to_string(), " differs from x_scale shape ",
                    scale.shape().to_string());
    DataType out_t = output_dtype_;
    if (out_t == DataType::kUndefined) out_t = ctx.output_type(0);
    if (out_t == DataType::kUndefined || out_t == DataType::kFloat8E8M0) out_t = scale.dtype();
    if (out_t == DataType::kFloat8E8M0) out_t = DataType::kFloat;
    ScaleLayout layout(ctx, x.shape(), scale.shape(), axis_, block_size_);
    // Per tensor, 8 bits to float: one pass, same values.
    if ((x.dtype() == DataType::kUInt8 || x.dtype() == DataType::kInt8) &&
        scale.dtype() == DataType::kFloat && out_t == DataType::kFloat &&
        scale.num_elements() == 1) {
      const float s = scale.data<float>()[0];
      const float z = zp ? float(zp->element_as_double(0)) : 0.f;
      Tensor& y = ctx.output(0, x.shape(), out_t);
      const auto* xd = static_cast<const uint8_t*>(x.raw_data());
      float* yd = y.mutable_data<float>();
      ctx.thread_pool().parallel_for(x.num_elements(), 2.0, [&](int64_t b, int64_t e) {
        linalg::dequantize_8bit(xd + b, x.dtype() == DataType::kInt8, e - b, s, z, yd + b);
      });
      return;
    }
    auto ss = read_as<float>(scale);
    std::vector<float> zs = zp ? read_as<float>(*zp) : std::vector<float>(ss.size(), 0.f);
    Tensor& y = ctx.output(0, x.shape(), out_t);
    const int64_t n = x.num_elements();
    std::vector<float> out(size_t(n > 0 ? n : 0));
    if (x.dtype() == DataType::kInt32) {
      // int32 does not fit a float exactly: subtract in integers first.
      const int32_t* xd = x.data<int32_t>();
      for (int64_t i = 0; i < n; ++i) {
        int64_t s = layout.index(i);
        out[size_t(i)] = float(int64_t(xd[i]) - int64_t(zs[size_t(s)])) * ss[size_t(s)];
      }
    } else {
      auto xs = read_as<float>(x);
      for (int64_t i = 0; i < n; ++i) {
        int64_t s = layout.index(i);
        out[size_t(i)] = (xs[size_t(i)] - zs[size_t(s)]) * ss[size_t(s)];
      }
    }
    write_from(y, out.data());
  }

 private:
  int64_t axis_, block_size_;
  DataType output_dtype_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_quantize_linear(const ep::KernelInfo& info) {
  return std::make_unique<QuantizeLinearKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_dequantize_linear(const ep::KernelInfo& info) {
  return std::make_unique<DequantizeLinearKernel>(info);
}

}  // namespace tessera::cpu
