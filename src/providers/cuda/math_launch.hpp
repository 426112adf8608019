// The math kernels' entry points (math_ops.cu: unary ops and Clip;
// binary_ops.cu: broadcasting binary ops; pow_fold.cu: Pow and the variadic
// ops; quantize.cu: QuantizeLinear and DequantizeLinear), in plain types so
// host files need only cuda_runtime_api.h. As in cuda_launch.hpp, each
// launcher enqueues its kernels on `stream` and returns cudaGetLastError(),
// or cudaErrorInvalidValue for a pairing of op and type it has no kernel for
// (the claim checks keep those away).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/elementwise_plan.hpp"

namespace tessera::cuda {

// Element types of the math kernels. Floats compute in float (float16 and
// bfloat16 are widened, the result rounded to nearest even once) or in double
// (double); integers in their own type, wrapping on overflow; bool is one
// byte, nonzero read as true, written as 0 or 1.
enum class MathType : int {
  kF32,
  kF16,
  kBF16,
  kF64,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kU16,
  kU32,
  kU64,
  kBool
};

enum class MathUnary : int {
  // Every float type; kAbs, kNeg and kSign also every signed integer type.
  kAbs,
  kNeg,
  kSign,
  // Float types only.
  kExp,
  kLog,
  kSqrt,
  kReciprocal,
  kFloor,
  kCeil,
  kRound,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kSoftplus,
  kSoftsign,
  kMish,
  kHardSigmoid,      // max(0, min(1, alpha * x + beta))
  kHardSwish,        // x * max(0, min(1, x / 6 + 1/2))
  kElu,              // x < 0 ? alpha * (exp(x) - 1) : x
  kSelu,             // x > 0 ? beta * x : beta * alpha * (exp(x) - 1)   (beta = gamma)
  kCelu,             // x > 0 ? x : alpha * (exp(x / alpha) - 1)
  kThresholdedRelu,  // x > alpha ? x : 0
  kShrink,           // x < -alpha ? x + beta : x > alpha ? x - beta : 0   (alpha = lambd)
  kSwish,            // x * sigmoid(alpha * x)
  // Integer types only.
  kBitNot,
};
cudaError_t launch_math_unary(MathUnary op, MathType t, const void* x, void* y, int64_t n,
                              float alpha, float beta, cudaStream_t stream);
// Clip with bounds read on the device: lo and hi point to one element of t
// each, or are null (no bound); y = min(max(x, lo), hi) with a NaN x passing
// through. Every float and integer type.
cudaError_t launch_clip(MathType t, const void* x, const void* lo, const void* hi, void* y,
                        int64_t n, cudaStream_t stream);
// IsNaN (nan true) or IsInf (which infinities count: negative, positive) of
// a float type, into bools.
cudaError_t launch_float_class(bool nan, bool negative, bool positive, MathType t, const void* x,
                               uint8_t* y, int64_t n, cudaStream_t stream);
// Not of bools.
cudaError_t launch_not(const uint8_t* x, uint8_t* y, int64_t n, cudaStream_t stream);

enum class MathBinary : int {
  // Every integer type and double; Mod also float, float16 and bfloat16
  // (their Add, Sub, Mul and Div are launch_binary's). Integer Div truncates
  // toward zero and Mod takes the divisor's sign (kFmod: the dividend's); a
  // zero integer divisor gives 0 and sets *zero_divisor to 1.
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kFmod,
  kPRelu,  // x < 0 ? x * slope : x; float types
  kShiftLeft,
  kShiftRight,  // unsigned integers; shifting by the width or more gives 0
  kAnd,
  kOr,
  kXor,  // bools
  kBitAnd,
  kBitOr,
  kBitXor,  // integers
  // Bool outputs; every type (bool only for kEqual); float16/bfloat16 compare as float.
  kEqual,
  kLess,
  kGreater,
  kLessOrEqual,
  kGreaterOrEqual,
};
// y[i] = op(a[offset of i under plan operand 0], b[... operand 1]), n outputs.
// zero_divisor: device memory, may be null when the op is not an integer Div
// or Mod.
cudaError_t launch_math_binary(MathBinary op, MathType t, const void* a, const void* b, void* y,
                               int64_t n, const ElementPlan& plan, int32_t* zero_divisor,
                               cudaStream_t stream);
// Pow: base of a float type, int32 or int64, exponent of a float or integer
// type; y of the base's type. Float bases compute in float (double for a
// double base); integer bases with an integer exponent by squaring, wrapping
// (a negative exponent gives 1, -1 or 0), with a float exponent in double,
// converted back as Cast does.
cudaError_t launch_pow(MathType base, MathType exponent, const void* a, const void* b, void* y,
                       int64_t n, const ElementPlan& plan, cudaStream_t stream);

// Sum, Mean (float types) and Max, Min (float and integer types; a NaN input
// gives NaN) of plan.operands inputs, folded in input order in the compute
// type and rounded once.
enum class MathFold : int { kSum, kMean, kMax, kMin };
struct FoldInputs {
  const void* p[kMaxElementOperands];
};
cudaError_t launch_fold(MathFold op, MathType t, const FoldInputs& inputs, void* y, int64_t n,
                        const ElementPlan& plan, cudaStream_t stream);

// QuantizeLinear and DequantizeLinear per tensor (channels 1) or along one
// axis: element i uses scale and zero point (i / inner) % channels.
// Quantize: x and scale of one float type, y int8, uint8, int16 or uint16;
// y = clamp(rint(x / scale) + zero) with the quotient rounded to x's type
// first (float16/bfloat16 arithmetic); NaN gives 0.
// Dequantize: x of those integer types or int32, scale and y of one float
// type; y = (x - zero) * scale in float. zero may be null (0); it has y's
// type (quantize) or x's (dequantize).
cudaError_t launch_quantize(MathType x_type, MathType y_type, const void* x, const void* scale,
                            const void* zero, void* y, int64_t n, int64_t channels, int64_t inner,
                            cudaStream_t stream);
cudaError_t launch_dequantize(MathType x_type, MathType y_type, const void* x, const void* scale,
                              const void* zero, void* y, int64_t n, int64_t channels, int64_t inner,
                              cudaStream_t stream);

}  // namespace tessera::cuda
