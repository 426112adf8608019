// com.microsoft MatMulNBits (ONNX Runtime's block-quantized weights: its
// 4-bit quantizer, int4 language models): Y = A x W^T (+ bias), W [N, K]
// dequantized per block of `block_size` along K:
//
//   W[n, k] = (q[n, k] - zp[n, b]) * scale[n, b],  b = k / block_size
//
// q packed `bits` (2, 4 or 8) to a byte from the low bits up, in B [N,
// k_blocks, block_size * bits / 8]; zero points either packed the same way
// (uint8 [N, ceil(k_blocks * bits / 8)]) or unpacked floats [N, k_blocks],
// 2^(bits - 1) when omitted. The deprecated g_idx input (act-order) is
// rejected: ONNX Runtime's own result for it does not follow the per-block
// reading of its documentation, so there is no definition to match.
//
// Constant 4-bit weights with packed (or no) zero points (what ONNX
// Runtime's quantizer writes) are kept as stored, half a byte a weight:
// products of up to linalg::kQ4MaxRows rows of A (a language model's decode
// step) read the nibbles directly; more rows (a prompt) dequantize panels of
// them per call. The CPU provider option matmul_nbits_float_weights = 1
// keeps the packed float copy too, for faster prompts at 4 bytes a weight.
// Constant weights of other forms (2 or 8 bits, float zero points) are
// dequantized and packed for the SGEMM once, at session creation: 4 bytes a
// weight in memory; weights that are not constant are dequantized on every
// run.
#include <vector>

#include "linalg/gemm.hpp"
#include "linalg/q4_gemv.hpp"
#include "providers/cpu/cpu_provider.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {

struct NBitsShape {
  int64_t K, N, bits, block, k_blocks, blob;
};

// Fails naming what does not fit the attributes.
template <typename Fail>
void check_weights(const NBitsShape& s, const Tensor& b, const Tensor& scales, const Tensor* zp,
                   const Fail& fail) {
  if (b.dtype() != DataType::kUInt8 || b.num_elements() != s.N * s.k_blocks * s.blob)
    fail(str_cat("B ", b.description(), " must be uint8 [", s.N, ", ", s.k_blocks, ", ", s.blob,
                 "] (N, k_blocks, block_size * bits / 8)"));
  if (scales.dtype() != DataType::kFloat || scales.num_elements() != s.N * s.k_blocks)
    fail(str_cat("scales ", scales.description(), " must be [", s.N, ", ", s.k_blocks,
                 "] of A's type"));
  const int64_t zp_row = (s.k_blocks * s.bits + 7) / 8;  // packed bytes per row
  const bool zp_packed = zp && zp->dtype() == DataType::kUInt8;
  if (zp && (zp_packed ? zp->num_elements() != s.N * zp_row
                       : zp->dtype() != DataType::kFloat || zp->num_elements() != s.N * s.k_blocks))
    fail(str_cat("zero_points ", zp->description(), " must be uint8 [", s.N, ", ", zp_row,
                 "] (packed) or [", s.N, ", ", s.k_blocks, "] of A's type"));
}

// The float W [N, K] (after check_weights).
std::vector<float> dequantize_weights(const NBitsShape& s, const Tensor& b, const Tensor& scales,
                                      const Tensor* zp) {
  const int64_t zp_row = (s.k_blocks * s.bits + 7) / 8;
  const bool zp_packed = zp && zp->dtype() == DataType::kUInt8;
  const auto* q = b.data<uint8_t>();
  const float* sc = scales.data<float>();
  const uint32_t mask = (1u << s.bits) - 1;
  const float default_zp = float(1 << (s.bits - 1));
  std::vector<float> w(size_t(s.N * s.K));
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t k = 0; k < s.K; ++k) {
      const int64_t blk = k / s.block, j = k % s.block;
      const int64_t bit = j * s.bits;
      const uint32_t v = (q[(n * s.k_blocks + blk) * s.blob + bit / 8] >> (bit % 8)) & mask;
      float z = default_zp;
      if (zp_packed) {
        const int64_t zbit = blk * s.bits;
        z = float((zp->data<uint8_t>()[n * zp_row + zbit / 8] >> (zbit % 8)) & mask);
      } else if (zp) {
        z = zp->data<float>()[n * s.k_blocks + blk];
      }
      w[size_t(n * s.K + k)] = (float(v) - z) * sc[n * s.k_blocks + blk];
    }
  return w;
}

class MatMulNBitsKernel final : public ep::OpKernel {
 public:
  explicit MatMulNBitsKernel(const ep::KernelInfo& info) {
    s_.K = info.attr_int("K");
    s_.N = info.attr_int("N");
    s_.bits = info.attr_int("bits", 4);
    s_.block = info.attr_int("block_size");
    if (s_.K <= 0 || s_.N <= 0) info.fail_node("K and N must be positive, got ", s_.K, ", ", s_.N);
    if (s_.bits != 2 && s_.bits != 4 && s_.bits != 8)
      info.fail_node("bits must be 2, 4 or 8, got ", s_.bits);
    if (s_.block < 16 || (s_.block & (s_.block - 1)) != 0)
      info.fail_node("block_size must be a power of two of at least 16, got ", s_.block);
    if (info.has_input(4))
      info.fail_node("g_idx (the deprecated act-order index) is not supported");
    if (info.attr_int("weight_prepacked", 0) != 0)
      info.fail_node("weight_prepacked (a CUDA layout) is not supported");
    s_.k_blocks = (s_.K + s_.block - 1) / s_.block;
    s_.blob = s_.block * s_.bits / 8;
    const Tensor* b = info.constant_input(1);
    const Tensor* scales = info.constant_input(2);
    const bool zp_const = !info.has_input(3) || info.constant_input(3);
    if (b && scales && zp_const) {
      const Tensor* zp = info.constant_input(3);
      check_weights(s_, *b, *scales, zp, [&](const std::string& m) { info.fail_node(m); });
      if (s_.bits == 4 && linalg::q4_block_supported(s_.block) &&
          (!zp || zp->dtype() == DataType::kUInt8))
        q4_ = std::make_shared<const linalg::Q4Weights>(four_bit_weights(*b, *scales, zp));
      const std::string* keep = info.provider_option(kMatMulNBitsFloatWeights);
      if (!q4_ || (keep && *keep == "1")) {
        auto w = dequantize_weights(s_, *b, *scales, zp);
        packed_ = std::make_shared<const linalg::PackedB>(true, s_.K, s_.N, w.data(), s_.K);
      }
    }
  }

  bool reads_constant_data(size_t i) const override {
    return !(packed_ || q4_) || i == 0 || i == 5;
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    if (a.dtype() != DataType::kFloat || a.rank() == 0 || a.shape()[a.rank() - 1] != s_.K)
      ctx.fail_node("A ", a.description(), " must be float with a last axis of K = ", s_.K);
    const Tensor* bias = ctx.input(5);
    if (bias && (bias->dtype() != DataType::kFloat || bias->num_elements() != s_.N))
      ctx.fail_node("bias ", bias->description(), " must be [", s_.N, "] of A's type");
    // Weights that are not constant are checked before the output is made:
    // an N out of all proportion to B would otherwise allocate first.
    if (!q4_ && !packed_)
      check_weights(s_, ctx.required_input(1), ctx.required_input(2), ctx.input(3),
                    [&](const std::string& m) { ctx.fail_node(m); });
    std::vector<int64_t> dims = a.shape().dims();
    dims.back() = s_.N;
    Tensor& y = ctx.output(0, Shape(dims), DataType::kFloat);
    const int64_t M = a.num_elements() / s_.K;
    if (M == 0) return;
    float* yd = y.mutable_data<float>();
    ThreadPool* pool = &ctx.thread_pool();
    if (q4_ && M <= linalg::kQ4MaxRows) {
      linalg::q4_gemm(*q4_, M, a.data<float>(), s_.K, yd, s_.N, pool);
    } else if (packed_) {
      linalg::sgemm_packed_b(false, M, 1.0f, a.data<float>(), s_.K, *packed_, 0.0f, yd, s_.N, pool);
    } else if (q4_) {
      linalg::q4_gemm_dequantized(*q4_, M, a.data<float>(), s_.K, yd, s_.N, pool);
    } else {
      auto w = dequantize_weights(s_, ctx.required_input(1), ctx.required_input(2), ctx.input(3));
      linalg::sgemm(false, true, M, s_.N, s_.K, 1.0f, a.data<float>(), s_.K, w.data(), s_.K, 0.0f,
                    yd, s_.N, pool);
    }
    if (bias)
      for (int64_t r = 0; r < M; ++r)
        for (int64_t n = 0; n < s_.N; ++n) yd[r * s_.N + n] += bias->data<float>()[n];
  }

 private:
  // The stored bytes, scales and zero points, a byte each (shapes already
  // checked by check_weights; float zero points take the SGEMM path).
  linalg::Q4Weights four_bit_weights(const Tensor& b, const Tensor& scales,
                                     const Tensor* zp) const {
    std::vector<uint8_t> zero_points;
    if (zp) {
      const int64_t zp_row = (s_.k_blocks * 4 + 7) / 8;
      zero_points.resize(size_t(s_.N * s_.k_blocks));
      for (int64_t n = 0; n < s_.N; ++n)
        for (int64_t blk = 0; blk < s_.k_blocks; ++blk)
          zero_points[size_t(n * s_.k_blocks + blk)] =
              uint8_t((zp->data<uint8_t>()[n * zp_row + blk / 2] >> (4 * (blk % 2))) & 15);
    }
    return linalg::pack_q4(s_.N, s_.K, s_.block, b.data<uint8_t>(), scales.data<float>(),
                           zp ? zero_points.data() : nullptr);
  }

  NBitsShape s_{};
  std::shared_ptr<const linalg::PackedB> packed_;
  std::shared_ptr<const linalg::Q4Weights> q4_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_matmul_nbits(const ep::KernelInfo& info) {
  return std::make_unique<MatMulNBitsKernel>(info);
}

}  // namespace tessera::cpu
