// The tile loop and the in-register requantization's preconditions, shared
// by igemm.cpp and igemm_conv.cpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/thread_pool.hpp"
#include "linalg/igemm.hpp"
#include "linalg/igemm_kernel.hpp"

namespace tessera::linalg::detail {

// Runs tile_task(p, m0, rows, n0, width) over every tile, in parallel:
// consecutive tasks walk the row blocks of one panel, so a thread's panel
// stays in its cache.
template <typename TileTask>
inline void for_each_tile(int64_t M, const PackedBInt8& b, ThreadPool* pool,
                          const TileTask& tile_task) {
  constexpr int64_t R = detail::kIgemmRows, W = PackedBInt8::kPanel;
  const int64_t row_blocks = (M + R - 1) / R, N = b.cols();
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t p = t / row_blocks, m0 = (t % row_blocks) * R, n0 = p * W;
      tile_task(p, m0, int(std::min(R, M - m0)), n0, std::min(W, N - n0));
    }
  };
  const int64_t tasks = b.panels() * row_blocks;
  if (pool)
    pool->parallel_for(tasks, double(R * W * std::max<int64_t>(b.depth(), 1)), run);
  else
    run(0, tasks);
}

// Whether the VNNI tile may requantize in registers: every sum + bias must
// fit int32 (|sum| <= K * 255^2 < 2^30, |bias| <= 2^30), and the scales lie
// within [2^-40, 2^40] (a multiplier may be zero), so that the corrected
// multiplication by 1 / y_scale meets no overflow, underflow or subnormal
// and rounds as the reference's division does. mult and bias (or null)
// hold `count` values.
inline bool requant_in_registers_fits(int64_t K, float y_scale, const float* mult,
                                      const int32_t* bias, int64_t count) {
  auto moderate = [](float v, bool zero_ok) {
    const float mag = std::fabs(v);
    return (zero_ok && mag == 0.0f) || (mag >= 0x1p-40f && mag <= 0x1p40f);
  };
  if (K > 16384 || !moderate(y_scale, false)) return false;
  for (int64_t i = 0; i < count; ++i) {
    if (!moderate(mult[i], true)) return false;
    if (bias && (bias[i] < -(int32_t(1) << 30) || bias[i] > (int32_t(1) << 30))) return false;
  }
  return true;
}

}  // namespace tessera::linalg::detail
