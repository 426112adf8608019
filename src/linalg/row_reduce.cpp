#include "linalg/row_reduce.hpp"

#include <cstring>

#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

namespace {

typedef float V8 __attribute__((vector_size(32)));
typedef int32_t M8 __attribute__((vector_size(32)));

template <bool kMax>
[[gnu::always_inline]] inline void lanes_body(const float* x, int64_t n, float* acc) {
  V8 a;
  std::memcpy(&a, acc, sizeof(V8));
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    V8 v;
    std::memcpy(&v, x + j, sizeof(V8));
    const M8 take = (kMax ? v > a : v < a) | (v != v);
    a = take ? v : a;
  }
  std::memcpy(acc, &a, sizeof(V8));
  for (; j < n; ++j) {
    const float v = x[j];
    if ((kMax ? v > acc[0] : v < acc[0]) || v != v) acc[0] = v;
  }
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

struct Table {
  void (*max)(const float*, int64_t, float*);
  void (*min)(const float*, int64_t, float*);
  float (*sum)(const float*, int64_t);
  int64_t (*find)(const float*, int64_t, float, bool);
};

void max_generic(const float* x, int64_t n, float* acc) { lanes_body<true>(x, n, acc); }
void min_generic(const float* x, int64_t n, float* acc) { lanes_body<false>(x, n, acc); }
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
__attribute__((target("avx2"))) float sum_avx2(const float* x, int64_t n) { return sum_body(x, n); }
__attribute__((target("avx2"))) int64_t find_avx2(const float* x, int64_t n, float v, bool last) {
  return find_body(x, n, v, last);
}
#endif

const Table& table() {
  static const Table t = [] {
#if defined(__x86_64__)
    if (cpu_isa() >= Isa::kAvx2) return Table{max_avx2, min_avx2, sum_avx2, find_avx2};
#endif
    return Table{max_generic, min_generic, sum_generic, find_generic};
  }();
  return t;
}

}  // namespace

void max_lanes(const float* x, int64_t n, float acc[8]) { table().max(x, n, acc); }
void min_lanes(const float* x, int64_t n, float acc[8]) { table().min(x, n, acc); }
float sum_row(const float* x, int64_t n) { return table().sum(x, n); }
int64_t find_value(const float* x, int64_t n, float v, bool last) {
  return table().find(x, n, v, last);
}

}  // namespace tessera::linalg
