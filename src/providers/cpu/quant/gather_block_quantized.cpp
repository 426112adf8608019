// com.microsoft GatherBlockQuantized (the embedding table of ONNX Runtime's
// 4-bit language-model files): Gather over a block-quantized constant,
// dequantized on the way out:
//
//   out[.., n, ..] = (q[.., idx[n], ..] - zp[blk]) * scale[blk]
//
// where blk is the element's coordinates with the one along quantize_axis
// divided by block_size (a power of 2, at least 16). data is uint8 holding
// `bits` (2, 4 or 8) values a byte from the low bits up along its last axis
// (then gather_axis must be 0 and quantize_axis the last), or int4 / uint4
// (any axes). zero_points have data's type (uint8 packed the same way along
// the last axis) and scales' shape; without them the zero point is 2^(bits -
// 1) for uint8 and 0 for int4 / uint4. The output has scales' type. Indices
// in [-s, s) count from the back when negative; others give zeros, as the
// operator's documentation says. Only the gathered rows are read, so a
// large table costs nothing per run beyond them.
#include <vector>

#include "core/float16.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {

// Reads element `i` (row-major over the logical shape) of a packed tensor.
struct PackedReader {
  const uint8_t* bytes = nullptr;
  int64_t bits = 8, row = 1, row_bytes = 1;  // uint8: values a row, bytes a row
  bool int4 = false, uint4 = false;

  int32_t operator()(int64_t i) const {
    if (int4 || uint4) {  // two to a byte in flat order, low nibble first
      const uint32_t v = (bytes[i / 2] >> (4 * (i % 2))) & 0xF;
      return int4 ? int32_t(v ^ 8) - 8 : int32_t(v);
    }
    const int64_t r = i / row, c = i % row, bit = c * bits;
    return int32_t((bytes[r * row_bytes + bit / 8] >> (bit % 8)) & ((1u << bits) - 1));
  }
};

float load(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat16:
      return Float16::to_float(static_cast<const uint16_t*>(t.raw_data())[i]);
    case DataType::kBFloat16:
      return bits_float(uint32_t(static_cast<const uint16_t*>(t.raw_data())[i]) << 16);
    default:
      return t.data<float>()[i];
  }
}

void store(Tensor& t, int64_t i, float v) {
  switch (t.dtype()) {
    case DataType::kFloat16:
      static_cast<uint16_t*>(t.mutable_raw_data())[i] = Float16::from_float(v);
      return;
    case DataType::kBFloat16:
      static_cast<uint16_t*>(t.mutable_raw_data())[i] = BFloat16::from_float(v);
      return;
    default:
      t.mutable_data<float>()[i] = v;
  }
}

class GatherBlockQuantizedKernel final : public ep::OpKernel {
 public:
  explicit GatherBlockQuantizedKernel(const ep::KernelInfo& info)
      : bits_(info.attr_int("bits", 4)),
        block_(info.attr_int("block_size", 128)),
        gather_axis_(info.attr_int("gather_axis", 0)),
        quant_axis_(info.attr_int("quantize_axis", 1)) {
    if (block_ < 16 || (block_ & (block_ - 1)) != 0)
      info.fail_node("block_size must be a power of 2 and at least 16, got ", block_);
    if (bits_ != 2 && bits_ != 4 && bits_ != 8)
      info.fail_node("bits must be 2, 4 or 8, got ", bits_);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& idx = ctx.required_input(1);
    const Tensor& scales = ctx.required_input(2);
    const Tensor* zp = ctx.input(3);
    const bool packed_u8 = data.dtype() == DataType::kUInt8;
    if (!packed_u8 && bits_ != 4)
      ctx.fail_node("bits = ", bits_, " does not match data ", data.description());
    // The logical shape: uint8 rows hold 8 / bits values a byte.
    Shape shape = data.shape();
    const int64_t r = int64_t(shape.rank());
    if (r < 1) ctx.fail_node("data must have rank >= 1, got ", data.description());
    const int64_t ga = gather_axis_ < 0 ? gather_axis_ + r : gather_axis_;
    const int64_t qa = quant_axis_ < 0 ? quant_axis_ + r : quant_axis_;
    if (ga < 0 || ga >= r || qa < 0 || qa >= r)
      ctx.fail_node("gather_axis ", gather_axis_, " / quantize_axis ", quant_axis_,
                    " out of range for data ", data.description());
    if (packed_u8) {
      if (ga != 0 || qa != r - 1)
        ctx.fail_node("uint8 data needs gather_axis 0 and quantize_axis ", r - 1, " (its last)");
      shape[r - 1] *= 8 / bits_;
    }
    Shape sshape = shape;
    sshape[qa] = (shape[qa] + block_ - 1) / block_;
    if (scales.shape() != sshape)
      ctx.fail_node("scales ", scales.description(), " must be ", sshape.to_string(),
                    " (data's shape with quantize_axis in blocks of ", block_, ")");
    PackedReader q{static_cast<const uint8_t*>(data.raw_data()),
                   bits_,
                   shape[r - 1],
                   data.shape()[r - 1],
                   data.dtype() == DataType::kInt4,
                   data.dtype() == DataType::kUInt4};
    PackedReader z;
    if (zp) {
      const int64_t zrow = (sshape[r - 1] * bits_ + 7) / 8;
      Shape zshape = sshape;
      if (packed_u8) zshape[r - 1] = zrow;
      if (zp->dtype() != data.dtype() || zp->shape() != zshape)
        ctx.fail_node("zero_points ", zp->description(), " must be ", data_type_name(data.dtype()),
                      " ", zshape.to_string());
      z = PackedReader{
          static_cast<const uint8_t*>(zp->raw_data()), bits_, sshape[r - 1], zrow, q.int4, q.uint4};
    }
    const int32_t default_zp = packed_u8 ? 1 << (bits_ - 1) : 0;

    std::vector<int64_t> out_dims(shape.dims().begin(), shape.dims().begin() + ga);
    out_dims.insert(out_dims.end(), idx.shape().dims().begin(), idx.shape().dims().end());
    out_dims.insert(out_dims.end(), shape.dims().begin() + ga + 1, shape.dims().end());
    Tensor& y = ctx.output(0, Shape(out_dims), scales.dtype());
    int64_t outer = 1, inner = 1, qstride = 1;
    for (int64_t a = 0; a < ga; ++a) outer *= shape[a];
    for (int64_t a = ga + 1; a < r; ++a) inner *= shape[a];
    for (int64_t a = qa + 1; a < r; ++a) qstride *= shape[a];
    const int64_t V = shape[ga], N = idx.num_elements(), qdim = shape[qa], nb = sshape[qa];
    const bool i32 = idx.dtype() == DataType::kInt32;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t n = 0; n < N; ++n) {
        int64_t id = i32 ? idx.data<int32_t>()[n] : idx.data<int64_t>()[n];
        if (id < 0) id += V;
        const int64_t out0 = (o * N + n) * inner;
        if (id < 0 || id >= V) {
          for (int64_t i = 0; i < inner; ++i) store(y, out0 + i, 0.0f);
          continue;
        }
        const int64_t e0 = (o * V + id) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t e = e0 + i;
          const int64_t c = (e / qstride) % qdim;  // coordinate along quantize_axis
          const int64_t s = ((e / (qstride * qdim)) * nb + c / block_) * qstride + e % qstride;
          const int32_t zv = zp ? z(s) : default_zp;
          store(y, out0 + i, float(q(e) - zv) * load(scales, s));
        }
      }
  }

 private:
  int64_t bits_, block_, gather_axis_, quant_axis_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_gather_block_quantized(const ep::KernelInfo& info) {
  return std::make_unique<GatherBlockQuantizedKernel>(info);
}

}  // namespace tessera::cpu
