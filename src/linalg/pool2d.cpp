#include "linalg/pool2d.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/host_heap.hpp"
#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

namespace {

[[gnu::always_inline]] inline void max_body(const float* x, const DepthwiseGeometry& g, float* y) {
  constexpr float kLowest = std::numeric_limits<float>::lowest();
  // The plane in a buffer bordered with the lowest float, so taps need no tests.
  static thread_local HostVector<float> buf;
  const int64_t Hp = std::max(g.ph + g.H, (g.OH - 1) * g.sh + (g.KH - 1) * g.dh + 1);
  const int64_t Wp = std::max(g.pw + g.W, (g.OW - 1) * g.sw + (g.KW - 1) * g.dw + 1);
  if (buf.size() < size_t(Hp * Wp)) buf.resize(size_t(Hp * Wp));
  float* p = buf.data();
  for (int64_t i = 0; i < Hp * Wp; ++i) p[i] = kLowest;
  for (int64_t h = 0; h < g.H; ++h) {
    float* row = p + (g.ph + h) * Wp + g.pw;
    for (int64_t i = 0; i < g.W; ++i) row[i] = x[h * g.W + i];
  }
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    float* yrow = y + oh * g.OW;
    for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] = kLowest;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const float* xrow = p + (oh * g.sh + kh * g.dh) * Wp;
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const float* xs = xrow + kw * g.dw;
        // Separate loops per stride so the common ones have constant strides.
        if (g.sw == 1)
          for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] = xs[ow] > yrow[ow] ? xs[ow] : yrow[ow];
        else if (g.sw == 2)
          for (int64_t ow = 0; ow < g.OW; ++ow)
            yrow[ow] = xs[2 * ow] > yrow[ow] ? xs[2 * ow] : yrow[ow];
        else
          for (int64_t ow = 0; ow < g.OW; ++ow)
            yrow[ow] = xs[ow * g.sw] > yrow[ow] ? xs[ow * g.sw] : yrow[ow];
      }
    }
  }
}

// Plain loops stay inline loops, not a memcpy/memset call per short row.
#define TESSERA_NO_LIBCALLS optimize("no-tree-loop-distribute-patterns")

__attribute__((TESSERA_NO_LIBCALLS)) void max_generic(const float* x, const DepthwiseGeometry& g,
                                                      float* y) {
  max_body(x, g, y);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"), TESSERA_NO_LIBCALLS)) void max_avx512(const float* x,
                                                                        const DepthwiseGeometry& g,
                                                                        float* y) {
  max_body(x, g, y);
}
#endif

using MaxFn = void (*)(const float*, const DepthwiseGeometry&, float*);

MaxFn pick() {
#if defined(__x86_64__)
  if (cpu_isa() >= Isa::kAvx512) return max_avx512;
#endif
  return max_generic;
}

}  // namespace

void max_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y) {
  static const MaxFn fn = pick();
  fn(x, g, y);
}

}  // namespace tessera::linalg
