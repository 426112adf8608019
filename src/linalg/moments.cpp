#include "linalg/moments.hpp"

#include <cstring>

namespace tessera::linalg {

namespace {

typedef float V8 __attribute__((vector_size(32)));
typedef float V16 __attribute__((vector_size(64)));

// Vectors by reference: one passed or returned by value changes the ABI
// between the builds of different instruction sets.
template <class V>
[[gnu::always_inline]] inline void load(V& v, const float* p) {
  std::memcpy(&v, p, sizeof(V));
}

template <class V>
[[gnu::always_inline]] inline float hsum(const V& v) {
  float s = 0;
  for (size_t q = 0; q < sizeof(V) / sizeof(float); ++q) s += v[q];
  return s;
}

// One chunk (at most kMomentChunk values, so it stays in L1 between the
// passes): the mean m from a first pass, then the deviations d = x - m with
// both sum(d) and sum(d^2), whose correction sum(d)^2 / n removes what the
// rounding of m left (the corrected two-pass formula).
template <class V>
[[gnu::always_inline]] inline Moments chunk_body(const float* x, int64_t n) {
  constexpr int64_t W = sizeof(V) / sizeof(float);
  V s0 = {}, s1 = {}, s2 = {}, s3 = {}, a, b, c, d;
  int64_t j = 0;
  for (; j + 4 * W <= n; j += 4 * W) {
    load(a, x + j);
    load(b, x + j + W);
    load(c, x + j + 2 * W);
    load(d, x + j + 3 * W);
    s0 += a;
    s1 += b;
    s2 += c;
    s3 += d;
  }
  for (; j + W <= n; j += W) {
    load(a, x + j);
    s0 += a;
  }
  float tail = 0;
  for (; j < n; ++j) tail += x[j];
  s0 += s1;
  s2 += s3;
  s0 += s2;
  const float m = (hsum(s0) + tail) / float(n);
  const V vm = V{} + m;
  V d0 = {}, d1 = {}, q0 = {}, q1 = {};
  for (j = 0; j + 2 * W <= n; j += 2 * W) {
    load(a, x + j);
    load(b, x + j + W);
    a -= vm;
    b -= vm;
    d0 += a;
    d1 += b;
    q0 += a * a;
    q1 += b * b;
  }
  for (; j + W <= n; j += W) {
    load(a, x + j);
    a -= vm;
    d0 += a;
    q0 += a * a;
  }
  double dt = 0, qt = 0;
  for (; j < n; ++j) {
    const float e = x[j] - m;
    dt += e;
    qt += double(e) * e;
  }
  d0 += d1;
  q0 += q1;
  const double sd = double(hsum(d0)) + dt;
  const double sq = double(hsum(q0)) + qt;
  Moments r;
  r.count = n;
  r.mean = double(m) + sd / double(n);
  r.m2 = sq - sd * sd / double(n);
  if (r.m2 < 0) r.m2 = 0;
  return r;
}

template <class V>
[[gnu::always_inline]] inline Moments run_body(const float* x, int64_t n) {
  Moments r;
  for (int64_t i = 0; i < n; i += kMomentChunk) {
    const int64_t len = n - i < kMomentChunk ? n - i : kMomentChunk;
    merge_moments(r, chunk_body<V>(x + i, len));
  }
  return r;
}

template <class V>
[[gnu::always_inline]] inline void normalize_body(const float* x, float shift, float scale,
                                                  float bias, float* out, int64_t n) {
  constexpr int64_t W = sizeof(V) / sizeof(float);
  const V vs = V{} + shift, vk = V{} + scale, vb = V{} + bias;
  V a, b;
  int64_t j = 0;
  for (; j + 2 * W <= n; j += 2 * W) {
    load(a, x + j);
    load(b, x + j + W);
    a = (a - vs) * vk + vb;
    b = (b - vs) * vk + vb;
    std::memcpy(out + j, &a, sizeof(V));
    std::memcpy(out + j + W, &b, sizeof(V));
  }
  for (; j + W <= n; j += W) {
    load(a, x + j);
    a = (a - vs) * vk + vb;
    std::memcpy(out + j, &a, sizeof(V));
  }
  for (; j < n; ++j) out[j] = (x[j] - shift) * scale + bias;
}

Moments run_generic(const float* x, int64_t n) { return run_body<V8>(x, n); }
void normalize_generic(const float* x, float s, float k, float b, float* out, int64_t n) {
  normalize_body<V8>(x, s, k, b, out, n);
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) Moments run_avx2(const float* x, int64_t n) {
  return run_body<V8>(x, n);
}
__attribute__((target("avx2,fma"))) void normalize_avx2(const float* x, float s, float k, float b,
                                                        float* out, int64_t n) {
  normalize_body<V8>(x, s, k, b, out, n);
}
__attribute__((target("avx512f"))) Moments run_avx512(const float* x, int64_t n) {
  return run_body<V16>(x, n);
}
__attribute__((target("avx512f"))) void normalize_avx512(const float* x, float s, float k, float b,
                                                         float* out, int64_t n) {
  normalize_body<V16>(x, s, k, b, out, n);
}
#endif

const detail::MomentKernels& table() {
  static const detail::MomentKernels t = [] {
    detail::MomentKernels k{};
    if (!detail::moment_kernels(cpu_isa(), &k)) detail::moment_kernels(Isa::kPortable, &k);
    return k;
  }();
  return t;
}

}  // namespace

void merge_moments(Moments& a, const Moments& b) {
  if (b.count == 0) return;
  if (a.count == 0) {
    a = b;
    return;
  }
  const double na = double(a.count), nb = double(b.count), n = na + nb;
  const double delta = b.mean - a.mean;
  a.mean += delta * (nb / n);
  a.m2 += b.m2 + delta * delta * (na * nb / n);
  a.count += b.count;
}

Moments run_moments(const float* x, int64_t n) { return n > 0 ? table().run(x, n) : Moments{}; }

void normalize_run(const float* x, float shift, float scale, float bias, float* out, int64_t n) {
  if (n > 0) table().normalize(x, shift, scale, bias, out, n);
}

bool detail::moment_kernels(Isa isa, MomentKernels* out) {
  if (isa > cpu_isa_supported()) return false;
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) {
    *out = MomentKernels{run_avx512, normalize_avx512};
    return true;
  }
  if (isa == Isa::kAvx2) {
    *out = MomentKernels{run_avx2, normalize_avx2};
    return true;
  }
#endif
  if (isa != Isa::kPortable) return false;
  *out = MomentKernels{run_generic, normalize_generic};
  return true;
}

}  // namespace tessera::linalg
