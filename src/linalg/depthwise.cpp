#include "linalg/depthwise.hpp"

#include <algorithm>
#include <vector>

#include "core/host_heap.hpp"
#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

namespace {

// The input plane copied into a zero-bordered buffer, so the tap loops need
// no bounds tests; one per thread, grown on demand (no steady-state allocation).
struct Padded {
  const float* data;
  int64_t Wp;
};
[[gnu::always_inline]] inline Padded pad_plane(const float* x, const DepthwiseGeometry& g) {
  static thread_local HostVector<float> buf;
  const int64_t Hp = std::max(g.ph + g.H, (g.OH - 1) * g.sh + (g.KH - 1) * g.dh + 1);
  const int64_t Wp = std::max(g.pw + g.W, (g.OW - 1) * g.sw + (g.KW - 1) * g.dw + 1);
  // kSlack zeros past the end: the flat 3x3 loop reads two past the last row.
  constexpr int64_t kSlack = 16;
  if (buf.size() < size_t(Hp * Wp + kSlack)) buf.resize(size_t(Hp * Wp + kSlack));
  float* p = buf.data();
  // Plain loops (see TESSERA_NO_LIBCALLS): rows are short, a memcpy call per row costs more.
  for (int64_t i = 0; i < g.ph * Wp; ++i) p[i] = 0.f;
  for (int64_t h = 0; h < g.H; ++h) {
    float* row = p + (g.ph + h) * Wp;
    const float* src = x + h * g.W;
    for (int64_t i = 0; i < g.pw; ++i) row[i] = 0.f;
    for (int64_t i = 0; i < g.W; ++i) row[g.pw + i] = src[i];
    for (int64_t i = g.pw + g.W; i < Wp; ++i) row[i] = 0.f;
  }
  for (int64_t i = (g.ph + g.H) * Wp; i < Hp * Wp + kSlack; ++i) p[i] = 0.f;
  return {p, Wp};
}

// Writes one finished output row: src (+ residual), then the activation.
// Relu and Clip are clamps written as compares so a NaN passes through, as in
// the ONNX ops; src may be dst.
[[gnu::always_inline]] inline void finish_row(const float* src, float* dst, const float* r,
                                              int64_t n, const ActivationSpec& act) {
  const Activation k = act.kind;
  const float inf = __builtin_inff();
  const float lo = k == Activation::kClip ? act.p0 : k == Activation::kRelu ? 0.f : -inf;
  const float hi = k == Activation::kClip ? act.p1 : inf;
  if (r) {
    for (int64_t i = 0; i < n; ++i) {
      float v = src[i] + r[i];
      v = v < lo ? lo : v;
      dst[i] = v > hi ? hi : v;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      float v = src[i];
      v = v < lo ? lo : v;
      dst[i] = v > hi ? hi : v;
    }
  }
  if (k == Activation::kLeakyRelu)
    for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] < 0.f ? dst[i] * act.p0 : dst[i];
  if (is_pass_activation(k)) apply_activation(act, dst, n);
}

// 3x3, dilation 1, stride S: all nine taps in one pass over the output row,
// which the compiler vectorises along the row.
template <int S>
[[gnu::always_inline]] inline void plane_3x3(const Padded& xp, const float* w, float bias,
                                             const float* residual, const ActivationSpec& act,
                                             const DepthwiseGeometry& g, float* y) {
  const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
              w7 = w[7], w8 = w[8];
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    const float* r0 = xp.data + oh * S * xp.Wp;
    const float* r1 = r0 + xp.Wp;
    const float* r2 = r1 + xp.Wp;
    float* yrow = y + oh * g.OW;
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      const int64_t c = ow * S;
      float acc = bias;
      acc += w0 * r0[c] + w1 * r0[c + 1] + w2 * r0[c + 2];
      acc += w3 * r1[c] + w4 * r1[c + 1] + w5 * r1[c + 2];
      acc += w6 * r2[c] + w7 * r2[c + 1] + w8 * r2[c + 2];
      yrow[ow] = acc;
    }
    finish_row(yrow, yrow, residual ? residual + oh * g.OW : nullptr, g.OW, act);
  }
}

// 3x3, stride 1, dilation 1: output rows computed at the padded width as one
// flat loop (the columns past OW are discarded), so even 7x7 planes fill
// whole vectors; the kept columns are then finished row by row.
[[gnu::always_inline]] inline void plane_3x3_flat(const Padded& xp, const float* w, float bias,
                                                  const float* residual, const ActivationSpec& act,
                                                  const DepthwiseGeometry& g, float* y) {
  static thread_local HostVector<float> full;
  const int64_t Wp = xp.Wp, n = g.OH * Wp;
  if (full.size() < size_t(n)) full.resize(size_t(n));
  float* f = full.data();
  const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
              w7 = w[7], w8 = w[8];
  const float* r0 = xp.data;
  const float* r1 = r0 + Wp;
  const float* r2 = r1 + Wp;
  for (int64_t t = 0; t < n; ++t) {
    float acc = bias;
    acc += w0 * r0[t] + w1 * r0[t + 1] + w2 * r0[t + 2];
    acc += w3 * r1[t] + w4 * r1[t + 1] + w5 * r1[t + 2];
    acc += w6 * r2[t] + w7 * r2[t + 1] + w8 * r2[t + 2];
    f[t] = acc;
  }
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    finish_row(f + oh * Wp, y + oh * g.OW, residual ? residual + oh * g.OW : nullptr, g.OW, act);
  }
}

[[gnu::always_inline]] inline void plane_body(const float* x, const float* w, float bias,
                                              const float* residual, const ActivationSpec& act,
                                              const DepthwiseGeometry& g, float* y) {
  const Padded xp = pad_plane(x, g);
  if (g.KH == 3 && g.KW == 3 && g.dh == 1 && g.dw == 1 && g.sh == g.sw) {
    if (g.sw == 1) return plane_3x3_flat(xp, w, bias, residual, act, g, y);
    if (g.sw == 2) return plane_3x3<2>(xp, w, bias, residual, act, g, y);
  }
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    float* yrow = y + oh * g.OW;
    for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] = bias;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const float* xrow = xp.data + (oh * g.sh + kh * g.dh) * xp.Wp;
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const float coef = w[kh * g.KW + kw];
        const float* xs = xrow + kw * g.dw;
        if (g.sw == 1)  // a constant stride the vectoriser can use
          for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] += coef * xs[ow];
        else
          for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] += coef * xs[ow * g.sw];
      }
    }
    finish_row(yrow, yrow, residual ? residual + oh * g.OW : nullptr, g.OW, act);
  }
}

__attribute__((TESSERA_NO_LIBCALLS)) void plane_generic(const float* x, const float* w, float bias,
                                                        const float* residual,
                                                        const ActivationSpec& act,
                                                        const DepthwiseGeometry& g, float* y) {
  plane_body(x, w, bias, residual, act, g, y);
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"), TESSERA_NO_LIBCALLS)) void plane_avx2(
    const float* x, const float* w, float bias, const float* residual, const ActivationSpec& act,
    const DepthwiseGeometry& g, float* y) {
  plane_body(x, w, bias, residual, act, g, y);
}

__attribute__((target("avx512f,fma"), TESSERA_NO_LIBCALLS)) void plane_avx512(
    const float* x, const float* w, float bias, const float* residual, const ActivationSpec& act,
    const DepthwiseGeometry& g, float* y) {
  plane_body(x, w, bias, residual, act, g, y);
}
#endif

using PlaneFn = void (*)(const float*, const float*, float, const float*, const ActivationSpec&,
                         const DepthwiseGeometry&, float*);

PlaneFn pick(Isa isa) {
  if (isa > cpu_isa_supported()) isa = cpu_isa_supported();
#if defined(__x86_64__)
  if (isa >= Isa::kAvx512) return plane_avx512;
  if (isa >= Isa::kAvx2) return plane_avx2;
#endif
  return plane_generic;
}

}  // namespace

void depthwise_conv2d_plane(const float* x, const float* w, float bias, const float* residual,
                            const ActivationSpec& act, const DepthwiseGeometry& g, float* y) {
  static const PlaneFn fn = pick(cpu_isa());
  fn(x, w, bias, residual, act, g, y);
}

void depthwise_conv2d_plane(const float* x, const float* w, float bias, const float* residual,
                            const ActivationSpec& act, const DepthwiseGeometry& g, float* y,
                            Isa isa) {
  pick(isa)(x, w, bias, residual, act, g, y);
}

}  // namespace tessera::linalg
