#include "linalg/depthwise.hpp"

#include <algorithm>

namespace tessera::linalg {

namespace {

// Output columns [lo, hi) whose tap at offset `off` (iw = ow*s + off) is inside [0, W).
[[gnu::always_inline]] inline void valid_range(int64_t off, int64_t s, int64_t W, int64_t OW,
                                               int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = W - 1 - off < 0 ? 0 : (W - 1 - off) / s + 1;
  lo = std::min(lo, OW);
  hi = std::clamp(hi, lo, OW);
}

[[gnu::always_inline]] inline void plane_body(const float* x, const float* w, float bias,
                                              const float* residual, const ActivationSpec& act,
                                              const DepthwiseGeometry& g, float* y) {
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    float* yrow = y + oh * g.OW;
    for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] = bias;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
      if (ih < 0 || ih >= g.H) continue;
      const float* xrow = x + ih * g.W;
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const float coef = w[kh * g.KW + kw];
        const int64_t off = kw * g.dw - g.pw;
        int64_t lo, hi;
        valid_range(off, g.sw, g.W, g.OW, lo, hi);
        // Separate loops per stride so the common ones have constant strides
        // the vectoriser can use.
        if (g.sw == 1) {
          const float* xs = xrow + off;
          for (int64_t ow = lo; ow < hi; ++ow) yrow[ow] += coef * xs[ow];
        } else if (g.sw == 2) {
          const float* xs = xrow + off;
          for (int64_t ow = lo; ow < hi; ++ow) yrow[ow] += coef * xs[2 * ow];
        } else {
          for (int64_t ow = lo; ow < hi; ++ow) yrow[ow] += coef * xrow[ow * g.sw + off];
        }
      }
    }
    if (residual) {
      const float* r = residual + oh * g.OW;
      for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] += r[ow];
    }
    apply_activation(act, yrow, g.OW);
  }
}

void plane_generic(const float* x, const float* w, float bias, const float* residual,
                   const ActivationSpec& act, const DepthwiseGeometry& g, float* y) {
  plane_body(x, w, bias, residual, act, g, y);
}

#if defined(__x86_64__)
__attribute__((target("avx512f,fma"))) void plane_avx512(const float* x, const float* w, float bias,
                                                         const float* residual,
                                                         const ActivationSpec& act,
                                                         const DepthwiseGeometry& g, float* y) {
  plane_body(x, w, bias, residual, act, g, y);
}
#endif

using PlaneFn = void (*)(const float*, const float*, float, const float*, const ActivationSpec&,
                         const DepthwiseGeometry&, float*);

PlaneFn pick() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) return plane_avx512;
#endif
  return plane_generic;
}

}  // namespace

void depthwise_conv2d_plane(const float* x, const float* w, float bias, const float* residual,
                            const ActivationSpec& act, const DepthwiseGeometry& g, float* y) {
  static const PlaneFn fn = pick();
  fn(x, w, bias, residual, act, g, y);
}

}  // namespace tessera::linalg
