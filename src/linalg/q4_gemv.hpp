// Products with 4-bit block-quantized weights (MatMulNBits with 4 bits),
// read as they are stored. The decode step of a language model (one new
// token a sequence) multiplies one row by each weight matrix, so its time is
// the time to read the weights: half a byte each here, not a dequantized
// float's 4 bytes.
//
// W[n, k] = (q - z) * s per block of `block` values along K. Per output,
// Y[m, n] = sum over blocks of s * (sum_k A[m, k] q[n, k]) - z * s * (sum_k
// A[m, k]): the integer part unpacks in registers, the zero point costs one
// product per block.
//
// Layout: outputs in panels of 16. For panel p, block b and pair j, 16 bytes
// hold q[16p + i][b * block + 2j] (low nibble) and q[..][.. + 1] (high
// nibble) for i < 16; then each block's 16 scales and 16 zero points. A
// vector of 16 lanes is 16 outputs: the products need no horizontal sums,
// and dequantizing a panel gives 16 contiguous floats per k, the row layout
// the SGEMM reads B in without packing it. 16 + 4 + 1 bytes per 32 weights.
#pragma once
#include <cstdint>
#include <vector>

namespace tessera {
class ThreadPool;
}

namespace tessera::linalg {

struct Q4Weights {
  int64_t N = 0, K = 0, block = 0, k_blocks = 0, panels = 0;
  std::vector<uint8_t> q;    // [panels, k_blocks, block / 2, 16]
  std::vector<float> scale;  // [panels, k_blocks, 16] (0 past N)
  std::vector<uint8_t> zp;   // [panels, k_blocks, 16]
};

// Whether this block size is handled (a multiple of 16: the kernels take
// the pairs of a block two at a time).
inline bool q4_block_supported(int64_t block) { return block >= 16 && block % 16 == 0; }

// From MatMulNBits' layout: q [N, k_blocks, block / 2] (two values a byte,
// low nibble first), scales [N, k_blocks], zero points [N, k_blocks] one a
// byte (null: 8).
Q4Weights pack_q4(int64_t N, int64_t K, int64_t block, const uint8_t* q, const float* scales,
                  const uint8_t* zero_points);

// Rows of A the row kernel takes at once (more are done in groups).
constexpr int64_t kQ4MaxRows = 4;

// Y[m, n] = sum_k A[m, k] W[n, k] for m < M (row strides lda, ldy), against
// the nibbles themselves, kQ4MaxRows rows at a time: for a few rows.
void q4_gemm(const Q4Weights& w, int64_t M, const float* A, int64_t lda, float* Y, int64_t ldy,
             ThreadPool* pool);

// The same for many rows (a prompt): 64 outputs at a time are dequantized
// into a per-thread buffer that the SGEMM reads in place, against A packed
// once; no float copy of the weights outlives the call.
void q4_gemm_dequantized(const Q4Weights& w, int64_t M, const float* A, int64_t lda, float* Y,
                         int64_t ldy, ThreadPool* pool);

}  // namespace tessera::linalg
