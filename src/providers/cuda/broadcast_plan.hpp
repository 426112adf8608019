// How an element-wise kernel walks its output under numpy broadcasting: the
// output's dims with each input's strides (0 where it is broadcast), adjacent
// dims merged wherever both inputs stay contiguous or stay broadcast across
// them, so the device computes few divisions per element. Plain C++ (tested
// without a GPU).
#pragma once
#include <cstdint>

namespace tessera {
class Shape;  // core/shape.hpp; not included, so the .cu files see only plain types
}

namespace tessera::cuda {

inline constexpr int kMaxBroadcastRank = 8;

struct BroadcastPlan {
  int rank = 0;  // dims after merging; 0 only for an output without elements
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t strides[2][kMaxBroadcastRank] = {};  // per input, in elements
};

// The plan for inputs `a` and `b` (b may be the empty shape of a scalar) into
// `out`, their broadcast shape. Throws kInvalidArgument when the shapes do not
// broadcast to `out`, or when more than kMaxBroadcastRank dims remain after
// merging (naming the shapes).
BroadcastPlan plan_broadcast(const Shape& a, const Shape& b, const Shape& out);

}  // namespace tessera::cuda
