#include "linalg/pool2d.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/host_heap.hpp"
#include "linalg/cpu_isa.hpp"
#include "linalg/strided_bytes.hpp"

namespace tessera::linalg {

namespace {

template <typename T>
[[gnu::always_inline]] inline void max_body(const T* __restrict x, const DepthwiseGeometry& geo,
                                            T* __restrict y) {
  // A local copy: byte stores may alias anything, and the compiler would
  // reload the geometry after each one (no vector loops).
  const DepthwiseGeometry g = geo;
  constexpr T kLowest = std::numeric_limits<T>::lowest();
  // The plane in a buffer bordered with the type's lowest value, so taps
  // need no tests.
  static thread_local HostVector<T> buf;
  const int64_t Hp = std::max(g.ph + g.H, (g.OH - 1) * g.sh + (g.KH - 1) * g.dh + 1);
  const int64_t Wp = std::max(g.pw + g.W, (g.OW - 1) * g.sw + (g.KW - 1) * g.dw + 1);
  if (buf.size() < size_t(Hp * Wp)) buf.resize(size_t(Hp * Wp));
  T* __restrict p = buf.data();
  for (int64_t i = 0; i < Hp * Wp; ++i) p[i] = kLowest;
  for (int64_t h = 0; h < g.H; ++h) {
    T* row = p + (g.ph + h) * Wp + g.pw;
    for (int64_t i = 0; i < g.W; ++i) row[i] = x[h * g.W + i];
  }
  if constexpr (sizeof(T) == 1) {
    if (g.sw == 2 && g.dw == 1) {
      // Bytes at stride 2 would be read one by one: each padded row is
      // split into its even and odd columns (masked vector moves), and
      // tap kw reads column 2 ow + kw as even[ow + kw / 2] or odd[ow + kw / 2].
      const int64_t We = (Wp + 1) / 2, Wo = Wp / 2;
      static thread_local HostVector<T> split;
      if (split.size() < size_t(Hp * (We + Wo))) split.resize(size_t(Hp * (We + Wo)));
      T* __restrict even = split.data();
      T* __restrict odd = even + Hp * We;
      auto* bytes = reinterpret_cast<const uint8_t*>(p);
      gather_strided_bytes(bytes, Wp, 2, Hp, We, reinterpret_cast<uint8_t*>(even));
      if (Wo > 0) gather_strided_bytes(bytes + 1, Wp, 2, Hp, Wo, reinterpret_cast<uint8_t*>(odd));
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        T* __restrict yrow = y + oh * g.OW;
        for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] = kLowest;
        for (int64_t kh = 0; kh < g.KH; ++kh) {
          const int64_t r = oh * g.sh + kh * g.dh;
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            const T* __restrict xs = (kw % 2 == 0 ? even + r * We : odd + r * Wo) + kw / 2;
            for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] = xs[ow] > yrow[ow] ? xs[ow] : yrow[ow];
          }
        }
      }
      return;
    }
  }
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    T* yrow = y + oh * g.OW;
    for (int64_t ow = 0; ow < g.OW; ++ow) yrow[ow] = kLowest;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const T* xrow = p + (oh * g.sh + kh * g.dh) * Wp;
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const T* xs = xrow + kw * g.dw;
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

template <typename T>
__attribute__((TESSERA_NO_LIBCALLS)) void max_generic(const T* x, const DepthwiseGeometry& g,
                                                      T* y) {
  max_body(x, g, y);
}

#if defined(__x86_64__)
template <typename T>
__attribute__((target("avx512f,avx512bw"), TESSERA_NO_LIBCALLS)) void max_avx512(
    const T* x, const DepthwiseGeometry& g, T* y) {
  max_body(x, g, y);
}
#endif

template <typename T>
using MaxFn = void (*)(const T*, const DepthwiseGeometry&, T*);

template <typename T>
MaxFn<T> pick() {
#if defined(__x86_64__)
  if (cpu_isa() >= Isa::kAvx512) return max_avx512<T>;
#endif
  return max_generic<T>;
}

}  // namespace

void max_pool2d_plane(const float* x, const DepthwiseGeometry& g, float* y) {
  static const MaxFn<float> fn = pick<float>();
  fn(x, g, y);
}
void max_pool2d_plane(const uint8_t* x, const DepthwiseGeometry& g, uint8_t* y) {
  static const MaxFn<uint8_t> fn = pick<uint8_t>();
  fn(x, g, y);
}
void max_pool2d_plane(const int8_t* x, const DepthwiseGeometry& g, int8_t* y) {
  static const MaxFn<int8_t> fn = pick<int8_t>();
  fn(x, g, y);
}

}  // namespace tessera::linalg
