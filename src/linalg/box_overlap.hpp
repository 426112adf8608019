// The inner test of greedy non-maximum suppression: one candidate box
// against every box kept so far, vectorised (portable, AVX2 and AVX-512
// builds of one loop, picked at run time like the other linalg kernels).
#pragma once
#include <cstdint>

#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

// Boxes as columns: corners (y1, x1) <= (y2, x2) and area (x2 - x1) * (y2 - y1).
struct BoxColumns {
  const float* y1;
  const float* x1;
  const float* y2;
  const float* x2;
  const float* area;
};

// Whether IoU(boxes[i], b) > th for any i < n, where IoU is 0 unless the
// boxes overlap on both axes and their union is positive, else
// intersection / union, computed as
//   ix = min(x2[i], b.x2) - max(x1[i], b.x1)   (iy likewise)
//   union = (area[i] + area_b) - ix * iy
// in that order in every build, so every instruction set decides alike.
// b is {y1, x1, y2, x2}.
bool any_iou_above(const BoxColumns& boxes, int64_t n, const float b[4], float area_b, float th);

namespace detail {
// One instruction set's build, for tests; null when this CPU or build cannot
// run it.
using AnyIouAboveFn = bool (*)(const BoxColumns&, int64_t, const float*, float, float);
AnyIouAboveFn any_iou_above_kernel(Isa isa);
}  // namespace detail

}  // namespace tessera::linalg
