#include "linalg/box_overlap.hpp"

#include <algorithm>

namespace tessera::linalg {

namespace {

// Blocks of kBlock boxes with no branch inside (bitwise tests, so the loop
// vectorises), stopping after the first block with a hit.
[[gnu::always_inline]] inline bool body(const BoxColumns& k, int64_t n, const float* b,
                                        float area_b, float th) {
  constexpr int64_t kBlock = 64;
  const int zero_hits = 0.f > th;  // the IoU of boxes that do not overlap is 0
  const float by1 = b[0], bx1 = b[1], by2 = b[2], bx2 = b[3];
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t i1 = std::min(n, i0 + kBlock);
    int hit = 0;
    for (int64_t i = i0; i < i1; ++i) {
      const float ix = std::min(k.x2[i], bx2) - std::max(k.x1[i], bx1);
      const float iy = std::min(k.y2[i], by2) - std::max(k.y1[i], by1);
      const float inter = ix * iy;
      const float uni = k.area[i] + area_b - inter;
      const float q = inter / uni;
      const int overlap = int(ix > 0) & int(iy > 0) & int(uni > 0);
      hit |= (overlap & int(q > th)) | ((overlap ^ 1) & zero_hits);
    }
    if (hit) return true;
  }
  return false;
}

bool generic(const BoxColumns& k, int64_t n, const float* b, float a, float th) {
  return body(k, n, b, a, th);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) bool avx2(const BoxColumns& k, int64_t n, const float* b, float a,
                                          float th) {
  return body(k, n, b, a, th);
}
__attribute__((target("avx512f"))) bool avx512(const BoxColumns& k, int64_t n, const float* b,
                                               float a, float th) {
  return body(k, n, b, a, th);
}
#endif

}  // namespace

detail::AnyIouAboveFn detail::any_iou_above_kernel(Isa isa) {
  if (isa > cpu_isa_supported()) return nullptr;
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) return avx512;
  if (isa == Isa::kAvx2) return avx2;
#endif
  return isa == Isa::kPortable ? generic : nullptr;
}

bool any_iou_above(const BoxColumns& boxes, int64_t n, const float b[4], float area_b, float th) {
  static const detail::AnyIouAboveFn fn = [] {
    detail::AnyIouAboveFn f = detail::any_iou_above_kernel(cpu_isa());
    return f ? f : detail::any_iou_above_kernel(Isa::kPortable);
  }();
  return fn(boxes, n, b, area_b, th);
}

}  // namespace tessera::linalg
