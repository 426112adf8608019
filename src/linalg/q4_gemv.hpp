// Products of a few rows of A with 4-bit block-quantized weights, read as
// they are stored: the decode step of a language model (one new token a
// sequence) multiplies one row by each weight matrix, so its time is the
// time to read the weights. Reading them at half a byte each instead of as
// dequantized floats (4 bytes) is what makes the step fast.
//
// The weights are MatMulNBits' layout with 4 bits: W[n, k] = (q - z) * s per
// block of `block` values along K, q packed two a byte (low nibble first).
// Per output, Y[m, n] = sum over blocks of s * (sum_k A[m, k] q[n, k]) -
// sum over blocks of z * s * (sum_k A[m, k]): the integer part unpacks in
// registers, the zero point costs one product per block. Per 32 weights the
// kernels read 16 bytes of nibbles, a 4-byte scale and a 1-byte zero point.
#pragma once
#include <cstdint>
#include <vector>

namespace tessera {
class ThreadPool;
}

namespace tessera::linalg {

struct Q4Weights {
  int64_t N = 0, K = 0, block = 0, k_blocks = 0;
  std::vector<uint8_t> q;    // [N, k_blocks, block / 2]
  std::vector<float> scale;  // [N, k_blocks]
  std::vector<uint8_t> zp;   // [N, k_blocks] (a byte each: 4 fewer to read than a float)
};

// Rows of A the kernel takes at once (more are done in groups).
constexpr int64_t kQ4MaxRows = 4;

// Whether q4_gemm handles this block size (a multiple of 32).
inline bool q4_block_supported(int64_t block) { return block >= 32 && block % 32 == 0; }

// Y[m, n] = sum_k A[m, k] W[n, k] for m < M (row strides lda, ldy): up to
// kQ4MaxRows rows at a time against the nibbles themselves.
void q4_gemm(const Q4Weights& w, int64_t M, const float* A, int64_t lda, float* Y, int64_t ldy,
             ThreadPool* pool);

// The same for many rows (a prompt): panels of W are dequantized into a
// per-thread float buffer, each in turn multiplied by all of A with the
// SGEMM, so no float copy of the weights outlives the call.
void q4_gemm_dequantized(const Q4Weights& w, int64_t M, const float* A, int64_t lda, float* Y,
                         int64_t ldy, ThreadPool* pool);

}  // namespace tessera::linalg
