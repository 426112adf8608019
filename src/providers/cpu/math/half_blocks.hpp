// float16 and bfloat16 element-wise ops computed in float a block at a time:
// each block widened by the vector conversions (linalg/half_convert.hpp),
// the float loop run on it, and the block rounded back. A whole-tensor float
// copy is never made, and the float loops (vector math, vector arithmetic)
// serve the half types too.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/tensor.hpp"
#include "linalg/half_convert.hpp"

namespace tessera::cpu {

inline bool is_half_type(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }

// Values per block: a few KiB of floats, kept in L1 between the passes.
inline constexpr int64_t kHalfBlock = 1024;

inline void widen_halves(DataType t, const void* src, int64_t first, float* dst, int64_t n) {
  const auto* h = static_cast<const uint16_t*>(src) + first;
  if (t == DataType::kFloat16)
    linalg::halves_to_floats(h, dst, n);
  else
    linalg::bfloats_to_floats(h, dst, n);
}

inline void narrow_floats(DataType t, const float* src, void* dst, int64_t first, int64_t n) {
  auto* h = static_cast<uint16_t*>(dst) + first;
  if (t == DataType::kFloat16)
    linalg::floats_to_halves(src, h, n);
  else
    linalg::floats_to_bfloats(src, h, n);
}

// y[s, e) = loop over x[s, e) for a half tensor x and output y of its type:
// loop(const float* in, float* out, int64_t n), which may run in place.
template <typename Loop>
void half_blocks(DataType t, const void* x, void* y, int64_t s, int64_t e, Loop&& loop) {
  float buf[kHalfBlock];
  for (int64_t b = s; b < e; b += kHalfBlock) {
    const int64_t m = std::min(kHalfBlock, e - b);
    widen_halves(t, x, b, buf, m);
    loop(buf, buf, m);
    narrow_floats(t, buf, y, b, m);
  }
}

}  // namespace tessera::cpu
