// Maps each element of a quantized tensor to its scale / zero-point entry for
// the three granularities QuantizeLinear and DequantizeLinear share:
// per-tensor, per-axis and blocked.
#pragma once
#include <cstdint>

#include "core/shape.hpp"
#include "ep/kernel.hpp"

namespace tessera::cpu {

class ScaleLayout {
 public:
  // Validates the scale shape against x; errors name the node and both shapes.
  ScaleLayout(const ep::KernelContext& ctx, const Shape& x, const Shape& scale, int64_t axis,
              int64_t block_size);
  int64_t index(int64_t i) const {
    if (kind_ == kTensor) return 0;
    int64_t a = (i / inner_) % dim_;
    if (kind_ == kAxis) return a;
    int64_t outer = i / (dim_ * inner_);
    return (outer * blocks_ + a / block_) * inner_ + i % inner_;
  }

 private:
  enum Kind { kTensor, kAxis, kBlocked };
  Kind kind_ = kTensor;
  int64_t inner_ = 1, dim_ = 1, blocks_ = 1, block_ = 1;
};

}  // namespace tessera::cpu
