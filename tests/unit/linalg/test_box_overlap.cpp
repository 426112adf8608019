// any_iou_above (greedy NMS's inner test) against a one-box-at-a-time
// reference of the same formula, with the kernels of every instruction set
// the CPU runs: random boxes at several thresholds (negative included, where
// boxes that do not overlap count too), degenerate and NaN boxes, and
// lengths around the block of 64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "linalg/box_overlap.hpp"

namespace tessera::linalg {
namespace {

float iou_ref(const float a[4], const float b[4]) {
  const float ix = std::min(a[3], b[3]) - std::max(a[1], b[1]);
  const float iy = std::min(a[2], b[2]) - std::max(a[0], b[0]);
  if (ix <= 0 || iy <= 0) return 0.f;
  const float inter = ix * iy;
  const float area_a = (a[3] - a[1]) * (a[2] - a[0]), area_b = (b[3] - b[1]) * (b[2] - b[0]);
  const float uni = area_a + area_b - inter;
  return uni > 0 ? inter / uni : 0.f;
}

TEST(BoxOverlap, MatchesTheOneBoxReference) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> pos(0.f, 100.f), size(0.f, 30.f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable}) {
    const auto fn = detail::any_iou_above_kernel(isa);
    if (!fn) continue;
    for (int64_t n : {0, 1, 5, 63, 64, 65, 200}) {
      const size_t len = static_cast<size_t>(n);
      std::vector<float> y1(len), x1(len), y2(len), x2(len), area(len);
      for (int64_t i = 0; i < n; ++i) {
        y1[size_t(i)] = pos(gen);
        x1[size_t(i)] = pos(gen);
        y2[size_t(i)] = y1[size_t(i)] + (i % 17 == 3 ? 0.f : size(gen));  // some flat boxes
        x2[size_t(i)] = x1[size_t(i)] + size(gen);
        if (i % 29 == 7) x2[size_t(i)] = nan;
        area[size_t(i)] = (x2[size_t(i)] - x1[size_t(i)]) * (y2[size_t(i)] - y1[size_t(i)]);
      }
      const BoxColumns cols{y1.data(), x1.data(), y2.data(), x2.data(), area.data()};
      for (int trial = 0; trial < 50; ++trial) {
        const float by1 = pos(gen), bx1 = pos(gen);
        const float b[4] = {by1, bx1, by1 + size(gen), bx1 + size(gen)};
        const float area_b = (b[3] - b[1]) * (b[2] - b[0]);
        for (float th : {-0.1f, 0.0f, 0.3f, 0.55f, 0.9f}) {
          bool want = false;
          for (int64_t i = 0; i < n && !want; ++i) {
            const float a[4] = {y1[size_t(i)], x1[size_t(i)], y2[size_t(i)], x2[size_t(i)]};
            want = iou_ref(a, b) > th;
          }
          ASSERT_EQ(fn(cols, n, b, area_b, th), want)
              << isa_name(isa) << " n=" << n << " trial " << trial << " th " << th;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera::linalg
