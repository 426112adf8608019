// Plans for the byte-moving kernels (Transpose, Slice, Expand, Where): the
// output's dims with each operand's strides, adjacent dims merged wherever
// every operand stays in step across them, so the device does few divisions
// per element. Plain C++ (tested without a GPU; the .cu files see only the
// CopyPlan struct).
#pragma once
#include <cstdint>
#include <vector>

namespace tessera::cuda {

inline constexpr int kMaxCopyRank = 8;
inline constexpr int kMaxCopyOperands = 3;

// How a kernel walks a contiguous output of `dims` (row-major, outermost
// first): per operand, its element offset is base[k] + sum(c[d] * strides[k][d])
// for output coordinates c. Strides may be 0 (broadcast) or negative (Slice
// with negative steps). Made by plan_copy.
struct CopyPlan {
  int rank = 0;        // 0 only for an output without elements
  bool small = false;  // every offset and the output count fit in int32 (32-bit index math)
  int64_t dims[kMaxCopyRank] = {};
  int64_t base[kMaxCopyOperands] = {};
  int64_t strides[kMaxCopyOperands][kMaxCopyRank] = {};
};

// One operand as the output walks it: a stride per output dim (in elements;
// 0 where it is broadcast, negative where it is walked backwards), the offset
// of output element 0, and its own element count (for the 32-bit decision).
struct CopyOperand {
  std::vector<int64_t> strides;
  int64_t base = 0;
  int64_t elements = 0;
};

// Row-major strides of dense `dims`.
std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims);
// `in`'s strides aligned to `out` (right-aligned, numpy style; 0 where `in`
// is broadcast). Throws kInvalidArgument when `in` does not broadcast to `out`.
std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& in,
                                       const std::vector<int64_t>& out);
// The plan for an output of `out_dims` (at most kMaxCopyOperands operands,
// each with a stride per output dim). Dims of size 1 are dropped; an output
// without elements gives rank 0. Throws kInvalidArgument when more than
// kMaxCopyRank dims remain after merging.
CopyPlan plan_copy(const std::vector<int64_t>& out_dims, const std::vector<CopyOperand>& operands);
// Element count of `dims`.
int64_t element_count(const std::vector<int64_t>& dims);

}  // namespace tessera::cuda
