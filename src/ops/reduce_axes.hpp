// Which axes a reduction reduces: one rule for the Reduce* schemas, the
// kernels that plan their loops from the mask, and claim checks.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/schema.hpp"

namespace tessera::ops {

// Sets `reduced` to the dims of a rank-`rank` input that `axes` name (every
// dim when `axes` is empty; negative ones count from the end). Returns "" or
// why the axes are invalid (out of range, listed twice).
std::string reduced_axes(const std::vector<int64_t>& axes, size_t rank, std::vector<bool>& reduced);

// A Reduce* node's reduction of its input 0: the mask, the output shape, and
// whether the output is the input (no axes with noop_with_empty_axes).
struct Reduction {
  std::vector<bool> reduced;
  Shape out;
  bool noop = false;
};
// nullopt when input 0's shape or the axes input is not known; invalid axes
// fail naming the node and input.
std::optional<Reduction> reduction_of(const ShapeQuery& q);

}  // namespace tessera::ops
