// How the math kernels (math_ops.cu, binary_ops.cu) walk a contiguous output
// under numpy broadcasting with up to kMaxElementOperands inputs: the output's
// dims with each input's strides (0 where it is broadcast), dims of size 1
// dropped and adjacent dims merged wherever every input stays in step across
// them, so the device does few divisions per element. Plain C++ (tested
// without a GPU; the .cu files see only the struct).
#pragma once
#include <cstdint>
#include <vector>

namespace tessera::cuda {

inline constexpr int kMaxElementRank = 8;
// Variadic ops (Sum, Mean, Max, Min) with more inputs are declined.
inline constexpr int kMaxElementOperands = 8;

struct ElementPlan {
  int rank = 0;      // dims after merging; 0 for a single element (or none)
  int operands = 0;  // inputs walked
  int64_t dims[kMaxElementRank] = {};
  int64_t strides[kMaxElementOperands][kMaxElementRank] = {};  // in elements
};

// The plan for `inputs` (each input's dims) broadcast into `out`. Throws
// kInvalidArgument when an input does not broadcast to `out`, when there are
// more than kMaxElementOperands inputs, or when more than kMaxElementRank
// dims remain after merging (naming the shapes).
ElementPlan plan_elements(const std::vector<std::vector<int64_t>>& inputs,
                          const std::vector<int64_t>& out);

}  // namespace tessera::cuda
