#include "linalg/igemm_conv.hpp"

#include <cstring>
#include <vector>

#include "core/host_heap.hpp"
#include "linalg/igemm_kernel.hpp"
#include "linalg/igemm_tiles.hpp"
#include "linalg/nhwc_bytes.hpp"

namespace tessera::linalg {

namespace {

// A window's runs: with unit dilation along a row, a filter row's kw taps
// are adjacent pixels, one run of kw C bytes; otherwise one run a tap.
bool row_is_one_run(const ConvShape& s) { return s.dil_w == 1; }
int64_t run_bytes(const ConvShape& s) { return row_is_one_run(s) ? s.kw * s.C : s.C; }

}  // namespace

bool igemm_conv_fits(const ConvShape& s) {
  return detail::igemm_vnni512_available() && run_bytes(s) % 4 == 0 && s.C > 0 && s.M > 0 &&
         s.C * s.kh * s.kw <= 16384;
}

PackedConvFilters::PackedConvFilters(const void* w, bool w_signed, int64_t M, int64_t C, int64_t kh,
                                     int64_t kw) {
  const int64_t taps = kh * kw, K = C * taps;
  // The filters (M rows of K bytes, k = c * taps + t) transposed to K x M
  // in 16 x 16 blocks, then the
  // rows reordered to k = t * C + c. (A byte at a time, strided, it took
  // half of a quantized ResNet-50's session creation.)
  HostBuffer<uint8_t> by_c(size_t(K * M)), rows(size_t(K * M));
  transpose_bytes(static_cast<const uint8_t*>(w), M, K, by_c.data());
  for (int64_t c = 0; c < C; ++c)
    for (int64_t t = 0; t < taps; ++t)
      std::memcpy(rows.data() + (t * C + c) * M, by_c.data() + (c * taps + t) * M, size_t(M));
  b_ = PackedBInt8(K, M, rows.data(), M, w_signed);
}

bool igemm_conv_requantize_fits(int64_t K, int64_t M, ZeroPoints w_zero,
                                const ConvRequantize& out) {
  // One weight zero point for every channel, or the row terms would need a
  // product per output.
  for (int64_t m = 1; m < w_zero.count && m < M; ++m)
    if (w_zero.at(m) != w_zero.at(0)) return false;
  return detail::requant_in_registers_fits(K, out.y_scale, out.mult, out.bias, M);
}

bool igemm_conv_requantize(const ConvShape& s, int64_t images, const uint8_t* x, bool x_signed,
                           int32_t x_zero, const PackedConvFilters& filters, ZeroPoints w_zero,
                           const ConvRequantize& out, ThreadPool* pool) {
  const PackedBInt8& b = filters.b();
  const int64_t K = b.depth(), P = s.OH * s.OW;
  if (P <= 0 || images <= 0) return true;
  if (!igemm_conv_requantize_fits(K, s.M, w_zero, out)) return false;
  // The weights' zero point as the kernel sees B' (B - 128 for uint8).
  const uint32_t zb = uint32_t(w_zero.at(0)) - (b.b_signed() ? 0u : 128u);

  // The image as pixel rows of A' (uint8: int8 flipped by 0x80, its zero
  // point by +128), the border holding the zero point (it adds nothing).
  const uint8_t flip = x_signed ? 0x80 : 0;
  const uint32_t za = uint32_t(x_zero) + (x_signed ? 128u : 0u);
  const int64_t PH = std::max(s.pad_top + s.H, (s.OH - 1) * s.stride_h + (s.kh - 1) * s.dil_h + 1);
  const int64_t PW = std::max(s.pad_left + s.W, (s.OW - 1) * s.stride_w + (s.kw - 1) * s.dil_w + 1);
  // One grid, filled image by image (the window runs below point into it).
  HostBuffer<uint8_t> grid(size_t(PH * PW * s.C));
  const PaddedPixels layout{s.C, s.H, s.W, s.pad_top, s.pad_left, PH, PW, uint8_t(za), flip};

  // Each output position's first byte, and the runs of its window.
  HostVector<const uint8_t*> rows(static_cast<size_t>(P));
  for (int64_t oy = 0; oy < s.OH; ++oy)
    for (int64_t ox = 0; ox < s.OW; ++ox)
      rows[size_t(oy * s.OW + ox)] = grid.data() + ((oy * s.stride_h) * PW + ox * s.stride_w) * s.C;
  std::vector<int64_t> seg_off;
  for (int64_t ky = 0; ky < s.kh; ++ky)
    for (int64_t kx = 0; kx < (row_is_one_run(s) ? 1 : s.kw); ++kx)
      seg_off.push_back((ky * s.dil_h * PW + kx * s.dil_w) * s.C);
  const int64_t seg_groups = run_bytes(s) / 4;

  // sum = raw - zb' rowsum(A')[p] - za' colsum(B')[m] + K za' zb' + bias[m]
  // = raw - row_off[p] - col_off[m], wrapping.
  const int64_t cols = b.panels() * PackedBInt8::kPanel;
  HostVector<int32_t> col_off(size_t(cols), 0);
  HostVector<float> mult(size_t(cols), 0.0f);
  for (int64_t m = 0; m < s.M; ++m) {
    col_off[size_t(m)] = int32_t(za * uint32_t(b.col_sums()[m]) - uint32_t(K) * za * zb -
                                 uint32_t(out.bias ? out.bias[m] : 0));
    mult[size_t(m)] = out.mult[m];
  }
  const float inv = 1.0f / out.y_scale;
  const detail::IgemmSaturate saturate =
      detail::igemm_saturate_for(out.lo, out.hi, out.y_scale, out.mult, s.M);
  // zb' rowsum(A')[p], per image, where the weights' zero point is not 0:
  // each grid pixel's channel sum, then each window's sum of those.
  HostVector<int32_t> row_off;
  HostVector<uint32_t> pixel_sums;
  auto make_row_off = [&] {
    pixel_sums.resize(size_t(PH * PW));
    for (int64_t i = 0; i < PH * PW; ++i) {
      uint32_t sum = 0;
      for (int64_t c = 0; c < s.C; ++c) sum += grid.data()[i * s.C + c];
      pixel_sums[size_t(i)] = sum;
    }
    row_off.resize(size_t(P));
    for (int64_t p = 0; p < P; ++p) {
      const int64_t first = (rows[size_t(p)] - grid.data()) / s.C;
      uint32_t sum = 0;
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx)
          sum += pixel_sums[size_t(first + ky * s.dil_h * PW + kx * s.dil_w)];
      row_off[size_t(p)] = int32_t(zb * sum);
    }
  };
  const int64_t in_image = s.C * s.H * s.W, out_image = s.M * P;
  for (int64_t image = 0; image < images; ++image) {
    to_padded_nhwc(x + image * in_image, layout, grid.data());
    if (zb != 0) make_row_off();
    uint8_t* y = out.y + image * out_image;
    detail::for_each_tile(
        P, b, pool, [&](int64_t panel, int64_t p0, int n, int64_t m0, int64_t width) {
          const detail::IgemmConvRows a{rows.data() + p0, seg_off.data(), int64_t(seg_off.size()),
                                        seg_groups};
          const detail::IgemmColumnRequant q{col_off.data() + m0,
                                             row_off.empty() ? nullptr : row_off.data() + p0,
                                             mult.data() + m0,
                                             out.y_scale,
                                             inv,
                                             out.y_zero,
                                             out.lo,
                                             out.hi,
                                             saturate};
          detail::igemm_conv_tile_vnni512(a, n, b.panel(panel), q, y + m0 * P + p0, P, int(width));
        });
  }
  return true;
}

}  // namespace tessera::linalg
