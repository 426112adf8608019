#include "linalg/pool2d.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "core/host_heap.hpp"
#include "linalg/cpu_isa.hpp"
#include "linalg/strided_bytes.hpp"

namespace tessera::linalg {

namespace {

// out[oh * pitch + i] = max over the taps of rows[tap row][tap column + i]
// for every i < pitch, rows `pitch` apart: each tap is one loop over the
// whole output (OH * pitch values, columns past OW included), long enough
// to run in full vectors whatever OW is (a 56-wide row left a 64-byte loop
// to its scalar remainder). column_of(kw) gives the tap's source: its plane
// and first column. Sources hold (rows + 1) * pitch values.
// 64 bytes of T: the unit of the flat loops (GCC's vector extension,
// whatever the target: AVX-512 in the AVX-512 build, split where narrower).
template <typename T>
constexpr int64_t kLanes = 64 / int64_t(sizeof(T));

// The border and starting value of a window: padding never wins a max and
// adds nothing to a sum.
template <typename T, bool kSum>
constexpr T kBorder = kSum ? T(0) : std::numeric_limits<T>::lowest();

// o[i] = max(o[i], src[i]) (or o[i] + src[i]) for i < n, n a multiple of
// kLanes<T>, in vectors of kBytes: the widest the build's target has
// registers for. GCC lowers a select (the max) on a wider vector type one
// element at a time.
template <typename T, bool kSum, int kBytes>
[[gnu::always_inline]] inline void combine_into(T* o, const T* src, int64_t n) {
  typedef T V __attribute__((vector_size(kBytes)));
  for (int64_t i = 0; i < n; i += kBytes / int64_t(sizeof(T))) {
    V a, b;
    std::memcpy(&a, o + i, sizeof(V));
    std::memcpy(&b, src + i, sizeof(V));
    if constexpr (kSum)
      a = a + b;
    else
      a = a > b ? a : b;
    std::memcpy(o + i, &a, sizeof(V));
  }
}

// out[oh * pitch + i] = max over the taps of the source rows at
// column_of(kw) for every i < pitch (a multiple of kLanes), rows `pitch`
// apart: each output row is whole vectors, columns past OW included (a
// 56-wide row left a 64-byte loop to its scalar remainder). column_of(kw)
// gives the tap's source: its plane and first column; sources hold one row
// of slack past their last.
template <typename T, bool kSum, int kBytes, typename ColumnOf>
[[gnu::always_inline]] inline void pool_flat(const DepthwiseGeometry& g, int64_t pitch,
                                             const ColumnOf& column_of, T* out) {
  if constexpr (!kSum) {
    // A max is separable: each source row's max over the KW taps once, then
    // each output row's max over KH of those rows; KW + KH passes per row
    // instead of KW * KH where windows overlap in rows (YOLO's 5x5/1: 220
    // row passes instead of 500). Sums keep the window's own order.
    const int64_t rows = (g.OH - 1) * g.sh + (g.KH - 1) * g.dh + 1;
    if (g.KW > 1 && g.KH > 1 && rows * g.KW + g.OH * g.KH < g.OH * g.KH * g.KW) {
      static thread_local HostVector<T> across;
      if (across.size() < size_t(rows * pitch)) across.resize(size_t(rows * pitch));
      T* h = across.data();
      for (int64_t r = 0; r < rows; ++r) {
        const T* first = column_of(0) + r * pitch;
        for (int64_t i = 0; i < pitch; ++i) h[r * pitch + i] = first[i];
        for (int64_t kw = 1; kw < g.KW; ++kw)
          combine_into<T, false, kBytes>(h + r * pitch, column_of(kw) + r * pitch, pitch);
      }
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        T* o = out + oh * pitch;
        const T* first = h + oh * g.sh * pitch;
        for (int64_t i = 0; i < pitch; ++i) o[i] = first[i];
        for (int64_t kh = 1; kh < g.KH; ++kh)
          combine_into<T, false, kBytes>(o, h + (oh * g.sh + kh * g.dh) * pitch, pitch);
      }
      return;
    }
  }
  const int64_t n = g.OH * pitch;
  for (int64_t i = 0; i < n; ++i) out[i] = kBorder<T, kSum>;
  for (int64_t oh = 0; oh < g.OH; ++oh)
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const int64_t r = (oh * g.sh + kh * g.dh) * pitch;
      for (int64_t kw = 0; kw < g.KW; ++kw)
        combine_into<T, kSum, kBytes>(out + oh * pitch, column_of(kw) + r, pitch);
    }
}

template <typename T, bool kSum, int kBytes>
[[gnu::always_inline]] inline void pool_body(const T* __restrict x, const DepthwiseGeometry& geo,
                                             T* __restrict y) {
  // A local copy: byte stores may alias anything, and the compiler would
  // reload the geometry after each one (no vector loops).
  const DepthwiseGeometry g = geo;
  constexpr T kPad = kBorder<T, kSum>;
  auto whole = [](int64_t v) { return (v + kLanes<T> - 1) / kLanes<T> * kLanes<T>; };
  // The plane in a buffer bordered with the type's lowest value, so taps
  // need no tests; rows of whole vectors, and one row of slack past the
  // last for the flat loops' columns past OW.
  static thread_local HostVector<T> buf, flat;
  const int64_t Hp = std::max(g.ph + g.H, (g.OH - 1) * g.sh + (g.KH - 1) * g.dh + 1);
  const int64_t Wp = std::max(g.pw + g.W, (g.OW - 1) * g.sw + (g.KW - 1) * g.dw + 1);
  const int64_t P = g.sw == 1 ? whole(Wp) : Wp;  // the buffer's row pitch
  if (buf.size() < size_t((Hp + 1) * P)) buf.resize(size_t((Hp + 1) * P));
  T* __restrict p = buf.data();
  for (int64_t i = 0; i < (Hp + 1) * P; ++i) p[i] = kPad;
  for (int64_t h = 0; h < g.H; ++h) {
    T* row = p + (g.ph + h) * P + g.pw;
    for (int64_t i = 0; i < g.W; ++i) row[i] = x[h * g.W + i];
  }
  // The flat loops' output, OW columns of each row then copied out.
  auto copy_out = [&](int64_t pitch) {
    for (int64_t oh = 0; oh < g.OH; ++oh)
      std::memcpy(y + oh * g.OW, flat.data() + oh * pitch, size_t(g.OW) * sizeof(T));
  };
  if (g.sw == 1) {
    if (flat.size() < size_t(g.OH * P)) flat.resize(size_t(g.OH * P));
    pool_flat<T, kSum, kBytes>(
        g, P, [&](int64_t kw) { return p + kw * g.dw; }, flat.data());
    copy_out(P);
    return;
  }
  if (g.sw == 2 && g.dw == 1) {
    // Values at stride 2 would be read one by one: each padded row is split
    // into its even and odd columns, rows E apart, and tap kw reads column
    // 2 ow + kw as even[ow + kw / 2] or odd[ow + kw / 2].
    const int64_t We = (Wp + 1) / 2, E = whole(We);
    static thread_local HostVector<T> split;
    if (split.size() < size_t(2 * (Hp + 1) * E)) split.resize(size_t(2 * (Hp + 1) * E));
    T* __restrict even = split.data();
    T* __restrict odd = even + (Hp + 1) * E;
    for (int64_t r = 0; r < Hp; ++r) {
      const T* src = p + r * P;
      if constexpr (sizeof(T) == 1) {
        auto* bytes = reinterpret_cast<const uint8_t*>(src);
        gather_strided_bytes(bytes, 0, 2, 1, We, reinterpret_cast<uint8_t*>(even + r * E));
        if (Wp > 1)
          gather_strided_bytes(bytes + 1, 0, 2, 1, Wp / 2, reinterpret_cast<uint8_t*>(odd + r * E));
      } else {
        for (int64_t i = 0; i < We; ++i) even[r * E + i] = src[2 * i];
        for (int64_t i = 0; i < Wp / 2; ++i) odd[r * E + i] = src[2 * i + 1];
      }
    }
    // (Columns past each row's values, and the slack row, hold what earlier
    // planes left: only outputs past OW read them.)
    if (flat.size() < size_t(g.OH * E)) flat.resize(size_t(g.OH * E));
    pool_flat<T, kSum, kBytes>(
        g, E, [&](int64_t kw) { return (kw % 2 == 0 ? even : odd) + kw / 2; }, flat.data());
    copy_out(E);
    return;
  }
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    T* yrow = y + oh * g.OW;
    for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] = kPad;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const T* xrow = p + (oh * g.sh + kh * g.dh) * P;
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const T* xs = xrow + kw * g.dw;
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          if constexpr (kSum)
            yrow[ow] += xs[ow * g.sw];
          else
            yrow[ow] = xs[ow * g.sw] > yrow[ow] ? xs[ow * g.sw] : yrow[ow];
        }
      }
    }
  }
}

template <typename T, bool kSum>
__attribute__((TESSERA_NO_LIBCALLS)) void pool_generic(const T* x, const DepthwiseGeometry& g,
                                                       T* y) {
  pool_body<T, kSum, 16>(x, g, y);
}

#if defined(__x86_64__)
template <typename T, bool kSum>
__attribute__((target("avx512f,avx512bw"), TESSERA_NO_LIBCALLS)) void pool_avx512(
    const T* x, const DepthwiseGeometry& g, T* y) {
  pool_body<T, kSum, 64>(x, g, y);
}

template <typename T, bool kSum>
__attribute__((target("avx2"), TESSERA_NO_LIBCALLS)) void pool_avx2(const T* x,
                                                                    const DepthwiseGeometry& g,
                                                                    T* y) {
  pool_body<T, kSum, 32>(x, g, y);
}
#endif

template <typename T>
using PlaneFn = void (*)(const T*, const DepthwiseGeometry&, T*);

template <typename T, bool kSum = false>
PlaneFn<T> pick(Isa isa) {
#if defined(__x86_64__)
  if (isa >= Isa::kAvx512) return pool_avx512<T, kSum>;
  if (isa >= Isa::kAvx2) return pool_avx2<T, kSum>;
#endif
  (void)isa;
  return pool_generic<T, kSum>;
}

// The set in use, or a narrower one the caller asks for (never wider than
// the CPU's).
Isa usable(Isa want) { return want < cpu_isa_supported() ? want : cpu_isa_supported(); }

}  // namespace

void max_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y) {
  static const PlaneFn<float> fn = pick<float>(cpu_isa());
  fn(x, g, y);
}
void max_pool2d_plane(const uint8_t* x, const DepthwiseGeometry& g, uint8_t* y) {
  static const PlaneFn<uint8_t> fn = pick<uint8_t>(cpu_isa());
  fn(x, g, y);
}
void max_pool2d_plane(const int8_t* x, const DepthwiseGeometry& g, int8_t* y) {
  static const PlaneFn<int8_t> fn = pick<int8_t>(cpu_isa());
  fn(x, g, y);
}

void sum_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y) {
  static const PlaneFn<float> fn = pick<float, true>(cpu_isa());
  fn(x, g, y);
}

void max_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y, Isa isa) {
  pick<float>(usable(isa))(x, g, y);
}
void max_pool2d_plane(const uint8_t* x, const DepthwiseGeometry& g, uint8_t* y, Isa isa) {
  pick<uint8_t>(usable(isa))(x, g, y);
}
void max_pool2d_plane(const int8_t* x, const DepthwiseGeometry& g, int8_t* y, Isa isa) {
  pick<int8_t>(usable(isa))(x, g, y);
}
void sum_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y, Isa isa) {
  pick<float, true>(usable(isa))(x, g, y);
}

}  // namespace tessera::linalg
