// What a Pad node asks of each axis: the amount added (or, negative, cropped)
// before and after, and the output's dims. One rule for every provider's
// kernel, so they accept and refuse the same pads with the same words.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.hpp"
#include "ir/graph.hpp"

namespace tessera::ops {

struct PadExtents {
  std::vector<int64_t> begin, end;  // per axis of the input
  std::vector<int64_t> dims;        // the output's
};

// `pads` holds the begin values of `axes` then their end values; `axes` may
// be negative, and empty means every axis in order. Fails with
// kInvalidArgument naming `node` when the count does not match, an axis is
// out of range, a dim overflows int64 or a crop removes more than the axis
// holds.
PadExtents pad_extents(const ir::Node& node, const Shape& in, const std::vector<int64_t>& pads,
                       const std::vector<int64_t>& axes);

}  // namespace tessera::ops
