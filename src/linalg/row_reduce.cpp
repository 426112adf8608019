#include "linalg/row_reduce.hpp"

#include <cstring>

#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

namespace {

typedef float V8 __attribute__((vector_size(32)));
typedef int32_t M8 __attribute__((vector_size(32)));

// By reference: a V8 passed by value changes the ABI between the AVX2 and
// portable builds of the callers.
template <bool kMax>
[[gnu::always_inline]] inline void fold8(V8& a, const V8& v) {
  const M8 take = (kMax ? v > a : v < a) | (v != v);
  a = take ? v : a;
}

// Four accumulators over blocks of 32 (block b of eight goes to
// accumulator b % 4), folded into `acc` in order at the end: one chain of
// compare-and-blend per eight values is latency-bound, four are not.
template <bool kMax>
[[gnu::always_inline]] inline void lanes_body(const float* x, int64_t n, float* acc) {
  V8 a;
  std::memcpy(&a, acc, sizeof(V8));
  int64_t j = 0;
  if (n >= 32) {
    V8 a1, a2, a3;
    std::memcpy(&a1, x + 8, sizeof(V8));
    std::memcpy(&a2, x + 16, sizeof(V8));
    std::memcpy(&a3, x + 24, sizeof(V8));
    V8 v;
    std::memcpy(&v, x, sizeof(V8));
    fold8<kMax>(a, v);
    for (j = 32; j + 32 <= n; j += 32) {
      V8 v0, v1, v2, v3;
      std::memcpy(&v0, x + j, sizeof(V8));
      std::memcpy(&v1, x + j + 8, sizeof(V8));
      std::memcpy(&v2, x + j + 16, sizeof(V8));
      std::memcpy(&v3, x + j + 24, sizeof(V8));
      fold8<kMax>(a, v0);
      fold8<kMax>(a1, v1);
      fold8<kMax>(a2, v2);
      fold8<kMax>(a3, v3);
    }
    fold8<kMax>(a, a1);
    fold8<kMax>(a, a2);
    fold8<kMax>(a, a3);
  }
  for (; j + 8 <= n; j += 8) {
    V8 v;
    std::memcpy(&v, x + j, sizeof(V8));
    fold8<kMax>(a, v);
  }
  std::memcpy(acc, &a, sizeof(V8));
  for (; j < n; ++j) {
    const float v = x[j];
    if ((kMax ? v > acc[0] : v < acc[0]) || v != v) acc[0] = v;
  }
}

template <bool kMax>
[[gnu::always_inline]] inline void arg_body(const float* row, int32_t k, bool last, float* best,
                                            int32_t* at, int64_t n) {
  const M8 kv = {k, k, k, k, k, k, k, k};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    V8 v, c;
    M8 a;
    std::memcpy(&v, row + j, sizeof(V8));
    std::memcpy(&c, best + j, sizeof(V8));
    std::memcpy(&a, at + j, sizeof(M8));
    const M8 cn = c != c, vn = v != v;
    const M8 better = ~cn & (vn | (kMax ? v > c : v < c));
    const M8 take = last ? (better | (v == c) | (cn & vn)) : better;
    c = take ? v : c;
    a = take ? kv : a;
    std::memcpy(best + j, &c, sizeof(V8));
    std::memcpy(at + j, &a, sizeof(M8));
  }
  for (; j < n; ++j) {
    const float v = row[j], c = best[j];
    const bool cn = c != c, vn = v != v;
    const bool better = !cn && (vn || (kMax ? v > c : v < c));
    if (better || (last && (v == c || (cn && vn)))) best[j] = v, at[j] = k;
  }
}

// The maximum (minimum) of each of `rows` rows of n values: lanes_body from
// -inf (+inf), then the eight lanes folded in order by the same rule.
template <bool kMax>
[[gnu::always_inline]] inline void rows_body(const float* x, int64_t rows, int64_t n, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    float acc[8];
    for (float& a : acc) a = kMax ? -__builtin_inff() : __builtin_inff();
    lanes_body<kMax>(x + r * n, n, acc);
    float m = acc[0];
    for (int q = 1; q < 8; ++q)
      if ((kMax ? acc[q] > m : acc[q] < m) || acc[q] != acc[q]) m = acc[q];
    out[r] = m;
  }
}

// Positions j < n with x[j] >= t or NaN (kAbove) or x[j] <= t, in order;
// blocks of eight with none are skipped after one vector compare.
template <bool kAbove>
[[gnu::always_inline]] inline int64_t collect_body(const float* x, int64_t n, float t,
                                                   int64_t* idx) {
  const V8 tv = {t, t, t, t, t, t, t, t};
  int64_t c = 0, j = 0;
  for (; j + 8 <= n; j += 8) {
    V8 v;
    std::memcpy(&v, x + j, sizeof(V8));
    const M8 m = kAbove ? ((v >= tv) | (v != v)) : (v <= tv);
    uint64_t w[4];
    std::memcpy(w, &m, sizeof(w));
    if ((w[0] | w[1] | w[2] | w[3]) == 0) continue;
    for (int q = 0; q < 8; ++q)
      if (m[q]) idx[c++] = j + q;
  }
  for (; j < n; ++j)
    if (kAbove ? (x[j] >= t || x[j] != x[j]) : x[j] <= t) idx[c++] = j;
  return c;
}

[[gnu::always_inline]] inline float sum_body(const float* x, int64_t n) {
  V8 s0 = {}, s1 = {};
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    V8 a, b;
    std::memcpy(&a, x + j, sizeof(V8));
    std::memcpy(&b, x + j + 8, sizeof(V8));
    s0 += a;
    s1 += b;
  }
  s0 += s1;
  float s = 0;
  for (int q = 0; q < 8; ++q) s += s0[q];
  for (; j < n; ++j) s += x[j];
  return s;
}

// Blocks of eight are tested with one branch-free pass each; only the block
// holding the match is scanned.
[[gnu::always_inline]] inline int64_t find_body(const float* x, int64_t n, float v, bool last) {
  const bool nan = v != v;
  auto hit = [&](float e) { return nan ? e != e : e == v; };
  auto block_hit = [&](int64_t j) {
    bool any = false;
    for (int q = 0; q < 8; ++q) any |= nan ? x[j + q] != x[j + q] : x[j + q] == v;
    return any;
  };
  if (!last) {
    int64_t j = 0;
    for (; j + 8 <= n && !block_hit(j); j += 8) {
    }
    for (; j < n; ++j)
      if (hit(x[j])) return j;
    return -1;
  }
  int64_t j = n;
  for (; j >= 8 && !block_hit(j - 8); j -= 8) {
  }
  while (j-- > 0)
    if (hit(x[j])) return j;
  return -1;
}

using ArgFn = void (*)(const float*, int32_t, bool, float*, int32_t*, int64_t);

struct Table {
  void (*max)(const float*, int64_t, float*);
  void (*min)(const float*, int64_t, float*);
  ArgFn arg_max, arg_min;
  int64_t (*above)(const float*, int64_t, float, int64_t*);
  int64_t (*below)(const float*, int64_t, float, int64_t*);
  void (*max_rows)(const float*, int64_t, int64_t, float*);
  void (*min_rows)(const float*, int64_t, int64_t, float*);
  float (*sum)(const float*, int64_t);
  int64_t (*find)(const float*, int64_t, float, bool);
};

void max_generic(const float* x, int64_t n, float* acc) { lanes_body<true>(x, n, acc); }
void min_generic(const float* x, int64_t n, float* acc) { lanes_body<false>(x, n, acc); }
void arg_max_generic(const float* r, int32_t k, bool l, float* b, int32_t* a, int64_t n) {
  arg_body<true>(r, k, l, b, a, n);
}
void arg_min_generic(const float* r, int32_t k, bool l, float* b, int32_t* a, int64_t n) {
  arg_body<false>(r, k, l, b, a, n);
}
int64_t above_generic(const float* x, int64_t n, float t, int64_t* idx) {
  return collect_body<true>(x, n, t, idx);
}
int64_t below_generic(const float* x, int64_t n, float t, int64_t* idx) {
  return collect_body<false>(x, n, t, idx);
}
void max_rows_generic(const float* x, int64_t rows, int64_t n, float* out) {
  rows_body<true>(x, rows, n, out);
}
void min_rows_generic(const float* x, int64_t rows, int64_t n, float* out) {
  rows_body<false>(x, rows, n, out);
}
float sum_generic(const float* x, int64_t n) { return sum_body(x, n); }
int64_t find_generic(const float* x, int64_t n, float v, bool last) {
  return find_body(x, n, v, last);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) void max_avx2(const float* x, int64_t n, float* acc) {
  lanes_body<true>(x, n, acc);
}
__attribute__((target("avx2"))) void min_avx2(const float* x, int64_t n, float* acc) {
  lanes_body<false>(x, n, acc);
}
__attribute__((target("avx2"))) void arg_max_avx2(const float* r, int32_t k, bool l, float* b,
                                                  int32_t* a, int64_t n) {
  arg_body<true>(r, k, l, b, a, n);
}
__attribute__((target("avx2"))) void arg_min_avx2(const float* r, int32_t k, bool l, float* b,
                                                  int32_t* a, int64_t n) {
  arg_body<false>(r, k, l, b, a, n);
}
__attribute__((target("avx2"))) int64_t above_avx2(const float* x, int64_t n, float t,
                                                   int64_t* idx) {
  return collect_body<true>(x, n, t, idx);
}
__attribute__((target("avx2"))) int64_t below_avx2(const float* x, int64_t n, float t,
                                                   int64_t* idx) {
  return collect_body<false>(x, n, t, idx);
}
__attribute__((target("avx2"))) void max_rows_avx2(const float* x, int64_t rows, int64_t n,
                                                   float* out) {
  rows_body<true>(x, rows, n, out);
}
__attribute__((target("avx2"))) void min_rows_avx2(const float* x, int64_t rows, int64_t n,
                                                   float* out) {
  rows_body<false>(x, rows, n, out);
}
__attribute__((target("avx2"))) float sum_avx2(const float* x, int64_t n) { return sum_body(x, n); }
__attribute__((target("avx2"))) int64_t find_avx2(const float* x, int64_t n, float v, bool last) {
  return find_body(x, n, v, last);
}
#endif

const Table& table() {
  static const Table t = [] {
#if defined(__x86_64__)
    if (cpu_isa() >= Isa::kAvx2)
      return Table{max_avx2,   min_avx2,      arg_max_avx2,  arg_min_avx2, above_avx2,
                   below_avx2, max_rows_avx2, min_rows_avx2, sum_avx2,     find_avx2};
#endif
    return Table{max_generic,   min_generic,      arg_max_generic,  arg_min_generic, above_generic,
                 below_generic, max_rows_generic, min_rows_generic, sum_generic,     find_generic};
  }();
  return t;
}

}  // namespace

void max_lanes(const float* x, int64_t n, float acc[8]) { table().max(x, n, acc); }
void min_lanes(const float* x, int64_t n, float acc[8]) { table().min(x, n, acc); }
void arg_update(bool max, const float* row, int32_t k, bool last, float* best, int32_t* at,
                int64_t n) {
  (max ? table().arg_max : table().arg_min)(row, k, last, best, at, n);
}
int64_t positions_reaching(bool above, const float* x, int64_t n, float t, int64_t* idx) {
  return (above ? table().above : table().below)(x, n, t, idx);
}
void extreme_rows(bool max, const float* x, int64_t rows, int64_t n, float* out) {
  (max ? table().max_rows : table().min_rows)(x, rows, n, out);
}
float sum_row(const float* x, int64_t n) { return table().sum(x, n); }
int64_t find_value(const float* x, int64_t n, float v, bool last) {
  return table().find(x, n, v, last);
}

}  // namespace tessera::linalg
