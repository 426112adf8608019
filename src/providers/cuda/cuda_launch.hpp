// The device code's entry points (the .cu files), in plain types so host
// files need only cuda_runtime_api.h. Each launcher enqueues its kernels on
// `stream` and returns cudaGetLastError() (a launch failure, e.g. no kernel
// image for this GPU); errors while the kernel runs reach the caller at the
// next synchronisation.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/broadcast_plan.hpp"

namespace tessera::cuda {

enum class ElemType : int { kF32, kF16, kBF16 };

enum class BinaryOp : int { kAdd, kSub, kMul, kDiv };
enum class UnaryOp : int { kRelu, kSigmoid, kTanh, kErf, kGelu, kGeluTanh, kLeakyRelu, kClip };

cudaError_t launch_binary(BinaryOp op, ElemType t, const void* a, const void* b, void* y, int64_t n,
                          const BroadcastPlan& plan, cudaStream_t stream);
// y = op(x); alpha: LeakyRelu's slope or Clip's min; beta: Clip's max.
cudaError_t launch_unary(UnaryOp op, ElemType t, const void* x, void* y, int64_t n, float alpha,
                         float beta, cudaStream_t stream);
// y[i] = x[offset of i under the plan's input 0], elements of `elem_bytes`
// (2 or 4) bytes: a broadcast copy (Gemm's C).
cudaError_t launch_broadcast_copy(int elem_bytes, const void* x, void* y, int64_t n,
                                  const BroadcastPlan& plan, cudaStream_t stream);

// Softmax (or LogSoftmax) of each row of `cols` contiguous elements.
cudaError_t launch_softmax(ElemType t, const void* x, void* y, int64_t rows, int64_t cols, bool log,
                           cudaStream_t stream);
// LayerNormalization of each row: y = (x - mean) / sqrt(var + eps) * scale + bias.
// scale and bias (optional) have `cols` elements; mean and inv_std (optional)
// get one float per row.
cudaError_t launch_layer_norm(ElemType t, const void* x, const void* scale, const void* bias,
                              void* y, float* mean, float* inv_std, int64_t rows, int64_t cols,
                              float epsilon, cudaStream_t stream);
// The same of x + skip (+ add): skip (optional) laid out as x, add (optional)
// with `cols` elements; the sum is not written out.
cudaError_t launch_skip_layer_norm(ElemType t, const void* x, const void* skip, const void* add,
                                   const void* scale, const void* bias, void* y, int64_t rows,
                                   int64_t cols, float epsilon, cudaStream_t stream);
// In place over y [n, c, spatial] (NCHW): y = act(y + bias[channel] + z),
// where bias (c values of y's type) and z (y's shape and type) may be null
// and the activation applies only when `act` is set. A convolution's
// epilogue in one pass (Conv's bias, FusedConv's Z and activation,
// ConvTranspose's bias), for every element type: cudnnAddTensor is not
// documented for bfloat16, and would be two more passes.
cudaError_t launch_channel_epilogue(ElemType t, void* y, const void* bias, const void* z,
                                    int64_t total, int64_t c, int64_t spatial, bool act, UnaryOp op,
                                    float alpha, float beta, cudaStream_t stream);
// y = Gelu(x + bias[i % cols]), the exact (erf) form.
cudaError_t launch_bias_gelu(ElemType t, const void* x, const void* bias, void* y, int64_t n,
                             int64_t cols, cudaStream_t stream);

}  // namespace tessera::cuda
