// com.tessera DequantizeAdd (optimizer/dequantize_add_fusion.cpp): the
// residual join of 8-bit CNNs, DequantizeLinear -> Add -> [Relu] ->
// [QuantizeLinear], in one pass over the elements instead of four over
// float tensors.
//
//   inputs:  0 A (8-bit), 1 A_scale, 2 A_zero_point (per-tensor),
//            3 B (float; or 8-bit, then 4 B_scale and 5 B_zero_point),
//            6 Y_scale, 7 Y_zero_point (optional: the QuantizeLinear)
//   attribute: relu (0 or 1)
//   outputs: 0 C = act(DQ(A) + B') (float; "" when only Q is read),
//            1 Q = QuantizeLinear(C, Y_scale, Y_zero_point) (when 6, 7 are)
//
// Each step is the replaced kernel's own arithmetic (linalg::dequantize_8bit,
// a float add and Relu's compare, linalg::quantize_u8/s8), run on blocks of
// 1024 elements that stay in L1, so the values are the unfused graph's.
#include <algorithm>

#include "core/quant_types.hpp"
#include "linalg/epilogue.hpp"
#include "linalg/quantize.hpp"
#include "ops/broadcast.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {

constexpr int64_t kBlock = 1024;

struct Dequantize {
  const uint8_t* x;
  bool is_signed;
  float scale, zero;
  void run(int64_t i, int64_t n, float* y) const {
    linalg::dequantize_8bit(x + i, is_signed, n, scale, zero, y);
  }
};

class DequantizeAddKernel final : public ep::OpKernel {
 public:
  explicit DequantizeAddKernel(const ep::KernelInfo& info) : relu_(info.attr_int("relu", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(3);
    const Dequantize dq_a = params(ctx, a, 1, 2);
    const bool b_quantized = is_8bit_integer_type(b.dtype());
    if (!b_quantized && b.dtype() != DataType::kFloat)
      ctx.fail_node("B must be float or 8-bit, got ", data_type_name(b.dtype()));
    const Dequantize dq_b = b_quantized ? params(ctx, b, 4, 5) : Dequantize{};
    const bool quantize = ctx.has_output(1);
    float ys = 1.f, yz = 0.f;
    DataType q_type = DataType::kUInt8;
    if (quantize) {
      const Dequantize q = params(ctx, nullptr, 6, 7);
      ys = q.scale, yz = q.zero;
      q_type = ctx.required_input(7).dtype();
    }
    const Shape shape = ops::broadcast_shapes({a.shape(), b.shape()});
    float* c =
        ctx.has_output(0) ? ctx.output(0, shape, DataType::kFloat).mutable_data<float>() : nullptr;
    uint8_t* q =
        quantize ? static_cast<uint8_t*>(ctx.output(1, shape, q_type).mutable_raw_data()) : nullptr;
    const int64_t n = shape.num_elements();
    const bool same = a.shape() == shape && b.shape() == shape;
    // Broadcast inputs (rare: the residual's two sides have one shape) are
    // first dequantized whole, then added row by row as Add walks them.
    std::vector<float> wide_a, wide_b;
    ops::BroadcastIndexer indexer({a.shape(), b.shape()}, shape);
    if (!same) {
      wide_a.resize(size_t(a.num_elements()));
      dq_a.run(0, a.num_elements(), wide_a.data());
      if (b_quantized) {
        wide_b.resize(size_t(b.num_elements()));
        dq_b.run(0, b.num_elements(), wide_b.data());
      }
    }
    const float* bf = b_quantized ? (same ? nullptr : wide_b.data()) : b.data<float>();
    linalg::ActivationSpec act;
    if (relu_) act.kind = linalg::Activation::kRelu;  // a compare: NaN passes, as in Relu
    auto quantize_block = [&](int64_t i, int64_t len, const float* y) {
      if (!q) return;
      if (q_type == DataType::kUInt8)
        linalg::quantize_u8(y, len, ys, yz, q + i);
      else
        linalg::quantize_s8(y, len, ys, yz, reinterpret_cast<int8_t*>(q + i));
    };
    if (same) {
      ctx.thread_pool().parallel_for(n, 6.0, [&](int64_t begin, int64_t end) {
        alignas(64) float block[kBlock], other[kBlock];
        for (int64_t i = begin; i < end; i += kBlock) {
          const int64_t len = std::min(kBlock, end - i);
          float* y = c ? c + i : block;
          dq_a.run(i, len, y);
          const float* add = bf ? bf + i : other;
          if (!bf) dq_b.run(i, len, other);
          // y = act(y + add), the Add's and the Relu's arithmetic in one
          // vector pass.
          linalg::Epilogue e;
          e.residual = add;
          e.ldr = len;
          e.act = act;
          linalg::apply_epilogue(e, 0, 1, 0, len, y, len);
          quantize_block(i, len, y);
        }
      });
      return;
    }
    std::vector<float> full;
    if (!c) full.resize(size_t(n));
    float* y = c ? c : full.data();
    ops::for_each_broadcast_row(
        indexer, 0, indexer.num_rows(), [&](int64_t out, const int64_t* off, int64_t len) {
          const int64_t sa = indexer.inner_stride(0);
          const int64_t sb = indexer.inner_stride(1);
          for (int64_t j = 0; j < len; ++j)
            y[out + j] = wide_a[size_t(off[0] + j * sa)] + bf[off[1] + j * sb];
        });
    linalg::apply_activation(act, y, n);
    quantize_block(0, n, y);
  }

 private:
  // A per-tensor scale (float) and 8-bit zero point at inputs si, zi, for
  // the 8-bit tensor x (null: only the parameters).
  static Dequantize params(ep::KernelContext& ctx, const Tensor* x, size_t si, size_t zi) {
    const Tensor& s = ctx.required_input(si);
    const Tensor& z = ctx.required_input(zi);
    if (s.dtype() != DataType::kFloat || s.num_elements() != 1 ||
        !is_8bit_integer_type(z.dtype()) || z.num_elements() != 1 || (x && x->dtype() != z.dtype()))
      ctx.fail_node("inputs ", si, " and ", zi,
                    " must be a float scale and an 8-bit zero point of one element each (of the "
                    "tensor's type), got ",
                    s.description(), " and ", z.description());
    return {x ? static_cast<const uint8_t*>(x->raw_data()) : nullptr, z.dtype() == DataType::kInt8,
            s.data<float>()[0], float(z.element_as_double(0))};
  }
  static Dequantize params(ep::KernelContext& ctx, const Tensor& x, size_t si, size_t zi) {
    return params(ctx, &x, si, zi);
  }

  bool relu_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_dequantize_add(const ep::KernelInfo& info) {
  return std::make_unique<DequantizeAddKernel>(info);
}

}  // namespace tessera::cpu
