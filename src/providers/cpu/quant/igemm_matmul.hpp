// MatMulInteger's product through linalg::igemm (the packed uint8 x int8
// GEMM) where it applies; integer_matmul.cpp falls back to its exact
// reference loop elsewhere (float8 operands, N-D zero points).
#pragma once
#include <cstdint>
#include <memory>

#include "core/tensor.hpp"
#include "ep/kernel.hpp"
#include "linalg/igemm.hpp"
#include "providers/cpu/quant/matmul_shape.hpp"

namespace tessera::cpu {

// B packed for igemm when input `i` of the node is a constant 2-D int8 or
// uint8 tensor; null otherwise. Shared like the float kernels' packed B.
std::shared_ptr<const linalg::PackedBInt8> pack_constant_int8_b(const ep::KernelInfo& info,
                                                                size_t i);

// Output 0 (plan.out, int32; float with to_float) = the MatMulInteger product of a and b with the
// zero points azp and bzp (null: 0), through igemm, reusing `packed` for b when it matches. False,
// with nothing written, where the operands or zero points are outside what igemm takes: types other
// than int8/uint8, zero points other than a scalar or a 1-D vector (per row of A, per column of B).
// With `into` (and no to_float), the int32 product goes there instead of to
// output 0; with `each` (and neither), each finished run of it goes to
// each(row, n0, width, values) while in cache, `row` counting the output's
// rows through all batches (QLinearMatMul requantizes there).
bool igemm_matmul(ep::KernelContext& ctx, const MatMulPlan& plan, const Tensor& a, const Tensor& b,
                  const Tensor* azp, const Tensor* bzp, const linalg::PackedBInt8* packed,
                  const linalg::IgemmToFloat* to_float = nullptr, int32_t* into = nullptr,
                  const linalg::IgemmStore* each = nullptr);

// QLinearMatMul's product with one requantization multiplier for all of it:
// out (plan.out, row-major bytes) = linalg::igemm_requantize of a and b with
// `mult` for every row and q's y_scale, y_zero and bounds (q.y, q.ldy, q.mult
// and q.bias are set here), so on VNNI the tile requantizes in registers.
// False, with nothing written, where igemm_matmul would decline or the
// batches are not one tall A over one B.
bool igemm_matmul_requantize(ep::KernelContext& ctx, const MatMulPlan& plan, const Tensor& a,
                             const Tensor& b, const Tensor* azp, const Tensor* bzp,
                             const linalg::PackedBInt8* packed, float mult,
                             linalg::IgemmRequantize q, uint8_t* out);

}  // namespace tessera::cpu
