#include "providers/cuda/elementwise_plan.hpp"

#include "core/error.hpp"
#include "core/shape.hpp"
#include "providers/cuda/copy_plan.hpp"

namespace tessera::cuda {

ElementPlan plan_elements(const std::vector<std::vector<int64_t>>& inputs,
                          const std::vector<int64_t>& out) {
  if (inputs.size() > size_t(kMaxElementOperands))
    fail(ErrorCode::kInvalidArgument, inputs.size(), " inputs; the CUDA kernels take at most ",
         kMaxElementOperands);
  const size_t k = inputs.size();
  std::vector<std::vector<int64_t>> strides;
  for (const auto& in : inputs) strides.push_back(broadcast_strides(in, out));
  // Kept dims, outermost first: size-1 dims are dropped, and a dim is merged
  // into the one before it when every input's outer stride is its inner
  // stride times the inner extent (contiguous across both, or broadcast
  // across both).
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> kept(k);
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    bool merge = !dims.empty();
    for (size_t i = 0; merge && i < k; ++i) merge = kept[i].back() == strides[i][d] * out[d];
    if (merge) {
      dims.back() *= out[d];
      for (size_t i = 0; i < k; ++i) kept[i].back() = strides[i][d];
    } else {
      dims.push_back(out[d]);
      for (size_t i = 0; i < k; ++i) kept[i].push_back(strides[i][d]);
    }
  }
  if (dims.size() > size_t(kMaxElementRank)) {
    std::string shapes;
    for (const auto& in : inputs) shapes += Shape(in).to_string() + " ";
    fail(ErrorCode::kInvalidArgument, "broadcasting ", shapes, "into ", Shape(out).to_string(),
         " leaves ", dims.size(), " dims after merging; the CUDA kernels take at most ",
         kMaxElementRank);
  }
  ElementPlan p;
  p.rank = int(dims.size());
  p.operands = int(k);
  for (size_t d = 0; d < dims.size(); ++d) {
    p.dims[d] = dims[d];
    for (size_t i = 0; i < k; ++i) p.strides[i][d] = kept[i][d];
  }
  return p;
}

}  // namespace tessera::cuda
