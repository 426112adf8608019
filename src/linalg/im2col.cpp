#include "linalg/im2col.hpp"

#include <algorithm>

namespace tessera::linalg {

namespace {

int64_t product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= v[i];
  return p;
}

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Walks one (channel, kernel offset) row: for every window position calls
// seg(img_offset_or_-1, col_offset, count, step) over runs of the innermost
// dimension. A run either maps to in-bounds pixels img[off + t*step] or
// (off == -1) lies in padding.
template <typename Seg>
void walk_row(const ConvGeometry& g, const std::vector<int64_t>& koff, Seg&& seg) {
  const size_t r = g.in.size();
  const size_t last = r - 1;
  const int64_t outer = product(g.out, 0, last);
  const int64_t w_out = g.out[last], w_in = g.in[last], s = g.strides[last];
  const int64_t off_last = koff[last] * g.dilations[last] - g.pads_begin[last];
  // Valid o: 0 <= o*s + off_last < w_in.
  const int64_t lo = std::clamp<int64_t>(floor_div(-off_last + s - 1, s), 0, w_out);
  const int64_t hi = std::clamp<int64_t>(floor_div(w_in - 1 - off_last, s) + 1, lo, w_out);
  std::vector<int64_t> o(r, 0);
  for (int64_t ob = 0; ob < outer; ++ob) {
    int64_t rem = ob, base = 0;
    bool valid = true;
    for (size_t d = last; d-- > 0;) {
      o[d] = rem % g.out[d];
      rem /= g.out[d];
    }
    int64_t instride = g.in[last];
    for (size_t d = last; d-- > 0;) {
      const int64_t ix = o[d] * g.strides[d] + koff[d] * g.dilations[d] - g.pads_begin[d];
      if (ix < 0 || ix >= g.in[d]) {
        valid = false;
        break;
      }
      base += ix * instride;
      instride *= g.in[d];
    }
    const int64_t col_off = ob * w_out;
    if (!valid) {
      seg(int64_t(-1), col_off, w_out, s);
      continue;
    }
    if (lo > 0) seg(int64_t(-1), col_off, lo, s);
    if (hi > lo) seg(base + lo * s + off_last, col_off + lo, hi - lo, s);
    if (w_out > hi) seg(int64_t(-1), col_off + hi, w_out - hi, s);
  }
}

template <typename Fn>
void for_rows(int64_t channels, const ConvGeometry& g, ThreadPool* pool, Fn&& fn) {
  const int64_t ks = g.kernel_size();
  const size_t r = g.in.size();
  auto body = [&](int64_t b, int64_t e) {
    std::vector<int64_t> koff(r);
    for (int64_t row = b; row < e; ++row) {
      int64_t rem = row % ks;
      for (size_t d = r; d-- > 0;) {
        koff[d] = rem % g.kernel[d];
        rem /= g.kernel[d];
      }
      fn(row / ks, row, koff);
    }
  };
  if (pool)
    pool->parallel_for(channels * ks, double(g.out_size()), body);
  else
    body(0, channels * ks);
}

}  // namespace

int64_t ConvGeometry::in_size() const { return product(in, 0, in.size()); }
int64_t ConvGeometry::out_size() const { return product(out, 0, out.size()); }
int64_t ConvGeometry::kernel_size() const { return product(kernel, 0, kernel.size()); }

template <typename T>
void im2col(const T* img, int64_t channels, const ConvGeometry& g, T* col, ThreadPool* pool) {
  const int64_t in_size = g.in_size(), out_size = g.out_size();
  for_rows(channels, g, pool, [&](int64_t c, int64_t row, const std::vector<int64_t>& koff) {
    const T* src = img + c * in_size;
    T* dst = col + row * out_size;
    walk_row(g, koff, [&](int64_t off, int64_t co, int64_t n, int64_t s) {
      T* d = dst + co;
      if (off < 0) {
        std::fill(d, d + n, T(0));
      } else if (s == 1) {
        std::copy(src + off, src + off + n, d);
      } else {
        for (int64_t t = 0; t < n; ++t) d[t] = src[off + t * s];
      }
    });
  });
}

void im2col_columns(const float* img, int64_t channels, const ConvGeometry& g, int64_t j0,
                    int64_t n, float* col) {
  const int64_t in_size = g.in_size(), j1 = j0 + n;
  for_rows(channels, g, nullptr, [&](int64_t c, int64_t row, const std::vector<int64_t>& koff) {
    const float* src = img + c * in_size;
    float* dst = col + row * n;
    walk_row(g, koff, [&](int64_t off, int64_t co, int64_t len, int64_t s) {
      // The part of this run inside [j0, j1), written at its column in the slice.
      const int64_t b = std::max(co, j0), e = std::min(co + len, j1);
      if (b >= e) return;
      float* d = dst + (b - j0);
      if (off < 0) {
        std::fill(d, d + (e - b), 0.f);
        return;
      }
      const float* p = src + off + (b - co) * s;
      if (s == 1)
        std::copy(p, p + (e - b), d);
      else
        for (int64_t t = 0; t < e - b; ++t) d[t] = p[t * s];
    });
  });
}

// dst[t * s] += src[t] for t < n; the two never overlap (the image and the
// columns are separate buffers), which lets the unit stride vectorise.
template <typename T>
inline void add_strided(T* __restrict dst, const T* __restrict src, int64_t n, int64_t s) {
  if (s == 1) {
    for (int64_t t = 0; t < n; ++t) dst[t] += src[t];
    return;
  }
  for (int64_t t = 0; t < n; ++t) dst[t * s] += src[t];
}

template <typename T>
void col2im(const T* col, int64_t channels, const ConvGeometry& g, T* img, ThreadPool* pool) {
  const int64_t in_size = g.in_size(), out_size = g.out_size();
  const int64_t ks = g.kernel_size();
  // Rows of one channel write the same image plane, so split by channel.
  auto body = [&](int64_t c0, int64_t c1) {
    const size_t r = g.in.size();
    std::vector<int64_t> koff(r);
    for (int64_t c = c0; c < c1; ++c) {
      T* dst_img = img + c * in_size;
      for (int64_t k = 0; k < ks; ++k) {
        int64_t rem = k;
        for (size_t d = r; d-- > 0;) {
          koff[d] = rem % g.kernel[d];
          rem /= g.kernel[d];
        }
        const T* src = col + (c * ks + k) * out_size;
        walk_row(g, koff, [&](int64_t off, int64_t co, int64_t n, int64_t s) {
          if (off >= 0) add_strided(dst_img + off, src + co, n, s);
        });
      }
    }
  };
  if (pool)
    pool->parallel_for(channels, double(ks * out_size), body);
  else
    body(0, channels);
}

template void im2col<float>(const float*, int64_t, const ConvGeometry&, float*, ThreadPool*);
template void im2col<double>(const double*, int64_t, const ConvGeometry&, double*, ThreadPool*);
template void col2im<float>(const float*, int64_t, const ConvGeometry&, float*, ThreadPool*);
template void col2im<double>(const double*, int64_t, const ConvGeometry&, double*, ThreadPool*);

}  // namespace tessera::linalg
