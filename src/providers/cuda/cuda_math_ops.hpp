// The math families beyond cuda_elementwise.cpp's activations: unary math
// (cuda_math_ops.cpp) and broadcasting binary, comparison, logical and
// variadic ops (cuda_binary_ops.cpp), QuantizeLinear and DequantizeLinear
// (cuda_quantize.cpp), over math_launch.hpp's kernels.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/math_launch.hpp"

namespace tessera::cuda {

// float, float16, bfloat16, double.
extern const std::vector<DataType> kMathFloats;
// int8, int16, int32, int64.
extern const std::vector<DataType> kMathSignedInts;
// Every integer type (8 to 64 bits, signed and unsigned).
extern const std::vector<DataType> kMathInts;

// The kernels' type of `t`, or nullopt for a type they do not take.
std::optional<MathType> math_type(DataType t);
// math_type(t) where the node's kernel takes it; else the node fails naming
// `what` (the input) and its type.
MathType math_type_of(const ep::KernelContext& ctx, const Tensor& t, const char* what);
// For claim checks: "" when every present input's static rank is unknown or
// at most kMaxElementRank, else why not.
std::string check_math_rank(const ep::ClaimQuery& q);

// Clip (11+) whose bounds are read on the device at each run: bounds that
// are not constants, and integer and double inputs (cuda_elementwise.cpp's
// make_clip hands those here).
std::unique_ptr<ep::OpKernel> make_clip_with_input_bounds(const ep::KernelInfo& info,
                                                          const EnvPtr& env);

void register_cuda_math_ops(CudaOpTable& t);
void register_cuda_binary_ops(CudaOpTable& t);
void register_cuda_quantize(CudaOpTable& t);  // cuda_quantize.cpp

}  // namespace tessera::cuda
