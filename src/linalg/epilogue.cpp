// The epilogue loops are written once, plainly, so the compiler vectorises
// them; they are compiled twice (generic and AVX-512) by inlining the same
// body into two wrappers with different target attributes, and the AVX-512
// one is picked at start-up when the CPU has it.
#include "linalg/epilogue.hpp"

#include "linalg/cpu_isa.hpp"
#include "linalg/vec_math.hpp"

namespace tessera::linalg {

namespace {

static_assert(int(Activation::kSwish) - int(Activation::kSigmoid) == int(VecActivation::kSwish) &&
              int(Activation::kHardSigmoid) - int(Activation::kSigmoid) ==
                  int(VecActivation::kHardSigmoid) &&
              int(Activation::kHardSwish) - int(Activation::kSigmoid) ==
                  int(VecActivation::kHardSwish));

[[gnu::always_inline]] inline void activate(const ActivationSpec& a, float* c, int64_t n) {
  switch (a.kind) {
    case Activation::kNone:
      break;
    case Activation::kRelu:  // written as a compare so a NaN passes through, as in Relu
      for (int64_t j = 0; j < n; ++j) c[j] = c[j] < 0.f ? 0.f : c[j];
      break;
    case Activation::kClip: {
      const float lo = a.p0, hi = a.p1;
      for (int64_t j = 0; j < n; ++j) {
        const float v = c[j] < lo ? lo : c[j];
        c[j] = v > hi ? hi : v;
      }
      break;
    }
    case Activation::kLeakyRelu: {
      const float alpha = a.p0;
      for (int64_t j = 0; j < n; ++j) c[j] = c[j] < 0.f ? c[j] * alpha : c[j];
      break;
    }
    case Activation::kTanh:  // the stand-alone Tanh's kernel, so fused and unfused agree
      return vec_tanh(c, c, n);
    default:  // the other pass activations, in VecActivation's order
      return vec_activation(VecActivation(int(a.kind) - int(Activation::kSigmoid)), a.p0, a.p1, c,
                            c, n);
  }
}

// One pass per row: bias, residual and a Relu/Clip clamp together (an
// infinite bound compares false and a NaN passes through, as in the ops).
[[gnu::always_inline]] inline void epilogue_body(const Epilogue& e, int64_t i0, int64_t m,
                                                 int64_t j0, int64_t n, float* C, int64_t ldc) {
  const Activation k = e.act.kind;
  const bool clamp = k == Activation::kRelu || k == Activation::kClip;
  const float inf = __builtin_inff();
  const float lo = k == Activation::kClip ? e.act.p0 : k == Activation::kRelu ? 0.f : -inf;
  const float hi = k == Activation::kClip ? e.act.p1 : inf;
  for (int64_t i = i0; i < i0 + m; ++i) {
    float* c = C + i * ldc + j0;
    const float b = e.row_bias ? e.row_bias[i] : 0.f;
    if (e.residual) {
      const float* r = e.residual + i * e.ldr + j0;
      for (int64_t j = 0; j < n; ++j) {
        float v = (c[j] + b) + r[j];
        v = v < lo ? lo : v;
        c[j] = v > hi ? hi : v;
      }
    } else if (clamp || e.row_bias) {
      for (int64_t j = 0; j < n; ++j) {
        float v = c[j] + b;
        v = v < lo ? lo : v;
        c[j] = v > hi ? hi : v;
      }
    }
    if (k == Activation::kLeakyRelu || is_pass_activation(k)) activate(e.act, c, n);
  }
}

void epilogue_generic(const Epilogue& e, int64_t i0, int64_t m, int64_t j0, int64_t n, float* C,
                      int64_t ldc) {
  epilogue_body(e, i0, m, j0, n, C, ldc);
}
void activation_generic(const ActivationSpec& a, float* x, int64_t n) { activate(a, x, n); }

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void epilogue_avx512(const Epilogue& e, int64_t i0, int64_t m,
                                                        int64_t j0, int64_t n, float* C,
                                                        int64_t ldc) {
  epilogue_body(e, i0, m, j0, n, C, ldc);
}
__attribute__((target("avx512f"))) void activation_avx512(const ActivationSpec& a, float* x,
                                                          int64_t n) {
  activate(a, x, n);
}
bool has_avx512() { return cpu_isa() >= Isa::kAvx512; }
#else
bool has_avx512() { return false; }
#endif

}  // namespace

void apply_epilogue(const Epilogue& e, int64_t i0, int64_t m, int64_t j0, int64_t n, float* C,
                    int64_t ldc) {
  if (e.empty() || m <= 0 || n <= 0) return;
#if defined(__x86_64__)
  if (has_avx512()) return epilogue_avx512(e, i0, m, j0, n, C, ldc);
#endif
  epilogue_generic(e, i0, m, j0, n, C, ldc);
}

void apply_activation(const ActivationSpec& a, float* x, int64_t n) {
  if (a.kind == Activation::kNone || n <= 0) return;
#if defined(__x86_64__)
  if (has_avx512()) return activation_avx512(a, x, n);
#endif
  activation_generic(a, x, n);
}

void apply_activation_blocked(const ActivationSpec& a, float* x, int64_t pixels, int64_t valid) {
  if (a.kind == Activation::kNone || pixels <= 0) return;
  if (valid >= 16 || !moves_zero(a)) return apply_activation(a, x, pixels * 16);
  for (int64_t p = 0; p < pixels; ++p) apply_activation(a, x + p * 16, valid);
}

}  // namespace tessera::linalg
