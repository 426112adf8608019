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
// A transpose whose output's innermost dim is not the input's innermost one,
// which is another output dim instead (NCHW <-> NHWC, a matrix's last two
// dims swapped): copied in 32 x 32 tiles through shared memory, so reads and
// writes are both coalesced. The output is seen as [batch..., rows, cols]
// with rows the output dim that is contiguous in the input (and not
// necessarily next to cols); the batch dims are the others.
struct TilePlan {
  int batch_rank = 0;
  int64_t batch_dims[kMaxCopyRank] = {};
  int64_t batch_in[kMaxCopyRank] = {};   // input strides of the batch dims
  int64_t batch_out[kMaxCopyRank] = {};  // output strides of the batch dims
  int64_t batch = 1;                     // product of batch_dims
  int64_t rows = 0, cols = 0;
  int64_t in_col_stride = 0;   // input stride of the cols dim (rows have stride 1)
  int64_t out_row_stride = 0;  // output stride of the rows dim (cols have stride 1)
  bool small = false;          // as CopyPlan::small
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
// The tiled form of `p` (one operand, from plan_copy of a transpose: base 0,
// positive strides) when its innermost output dim has an input stride other
// than 1 and another output dim has input stride 1; else a plan with 0 rows
// (use the strided copy).
TilePlan plan_tiles(const CopyPlan& p);
// Element count of `dims`.
int64_t element_count(const std::vector<int64_t>& dims);

}  // namespace tessera::cuda
