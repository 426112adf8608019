// expand_depthwise (see nchwc_fused.hpp): both stages run on the blocked
// kernels of nchwc_avx512.cpp / nchwc_avx2.cpp through conv_row, each given
// a view of the band buffer as its image.
#include "linalg/nchwc_fused.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/host_heap.hpp"
#include "linalg/nchwc_kernel.hpp"

namespace tessera::linalg::nchwc {

namespace {

// The expansion's band buffer is kept to this size (two blocks of the rows
// a band's depthwise window reads), inside L2 beside the input rows; planes
// up to 56 x 56 then take one band per thread, with no row expanded twice.
constexpr int64_t kBandBytes = 512 * 1024;

}  // namespace

bool expand_depthwise_supported(const Conv2dShape& e, const Conv2dShape& d) {
  return e.group == 1 && e.input_blocked && e.KH == 1 && e.KW == 1 && e.sh == 1 && e.sw == 1 &&
         e.ph == 0 && e.pw == 0 && e.OH == e.H && e.OW == e.W && d.depthwise() && d.input_blocked &&
         d.C == e.M && d.M == e.M && d.N == e.N && d.H == e.OH && d.W == e.OW && d.KH == 3 &&
         d.KW == 3 && d.dh == 1 && d.dw == 1 && d.sh >= 1 && d.sw >= 1 &&
         // pads up to 2 (leading, and trailing as implied by the output
         // size): every output row's window then holds an input row.
         d.ph <= 2 && d.pw <= 2 && (d.OH - 1) * d.sh - d.ph + 3 <= d.H + 2 &&
         (d.OW - 1) * d.sw - d.pw + 3 <= d.W + 2;
}

void expand_depthwise(const Conv2dShape& e, const PackedFilter& we, const float* be,
                      const ActivationSpec& act_e, const Conv2dShape& d, const PackedFilter& wd,
                      const float* bd, const ActivationSpec& act_d, const float* x, float* y,
                      ThreadPool* pool) {
  check(expand_depthwise_supported(e, d),
        "expand + depthwise conv: not a 1x1 expansion followed by a depthwise 3x3 of its output");
  check(we.matches(e) && wd.matches(d), "expand + depthwise conv: packed filters do not match");
  const Isa isa = conv_kernel_isa();
  const int64_t CB = blocks(e.C), EB = blocks(e.M), H = e.H, W = e.W;
  const int64_t per_group = conv_out_blocks_per_group(e, isa);
  const int64_t s = d.sh;
  // Output rows per band: as many as keep the buffer within kBandBytes.
  const int64_t rows_max = std::max<int64_t>(3, kBandBytes / (per_group * W * 16 * 4));
  const int64_t band = std::max<int64_t>(1, (rows_max - 3) / s + 1);
#if defined(__x86_64__)
  const bool dw_rows = isa != Isa::kPortable;  // depthwise_rows(_avx2)
#endif

  // Output rows [oh0, oh1) of image n for output blocks [k0, k1).
  auto rows = [&](int64_t n, int64_t oh0, int64_t oh1, int64_t k0, int64_t k1) {
    static thread_local HostVector<float> buf_storage;
    for (int64_t b0 = oh0; b0 < oh1; b0 += band) {
      const int64_t b1 = std::min(oh1, b0 + band);
      // The input rows the band's windows read, clipped to the image.
      const int64_t ih_lo = std::max<int64_t>(0, b0 * s - d.ph);
      const int64_t ih_hi = std::min(H, (b1 - 1) * s - d.ph + 3);
      const int64_t nrows = ih_hi - ih_lo;
      if (buf_storage.size() < size_t(per_group * nrows * W * 16))
        buf_storage.resize(size_t(per_group * nrows * W * 16));
      float* buf = buf_storage.data();
      for (int64_t ob = k0; ob < k1; ob += per_group) {
        const int64_t nb = std::min(per_group, k1 - ob);
        const int64_t channels = std::min(e.M - ob * 16, nb * 16);
        // Expansion of the band's rows, as one long row of pixels.
        Conv2dShape se = e;
        se.M = channels;
        ConvArgs a = pointwise_row_args(se, nrows * W, H * W * 16);
        a.w = we.data() + ob * CB * 16 * 16;
        a.x = x + (n * CB * H + ih_lo) * W * 16;
        a.bias = be ? be + ob * 16 : nullptr;
        a.act = act_e;
        a.y = buf;
        // Fetch the next pair's filters while these tiles run (they come
        // from memory when the model's weights outgrow the caches; cf.
        // PrefetchStream in conv2d).
        PrefetchStream ahead;
        if (const int64_t next = ob + per_group; next < k1) {
          ahead = PrefetchStream::over(we.data() + next * CB * 16 * 16,
                                       std::min(per_group, k1 - next) * CB * 16 * 16 * 4,
                                       (se.OW + kTileWidth - 1) / kTileWidth * CB);
          a.prefetch = &ahead;
        }
        conv_row(a, 0, 0, nb, 0, 0, se.OW);
        // Depthwise of the buffer: its row 0 is input row ih_lo, so the
        // leading pad grows by ih_lo; rows outside it are the image's padding.
        Conv2dShape sd = d;
        sd.N = 1, sd.C = sd.M = sd.group = channels, sd.H = nrows, sd.ph = d.ph + ih_lo;
        ConvArgs b;
        b.s = &sd;
        b.w = wd.data() + ob * 9 * 16;
        b.x = buf;
        b.bias = bd ? bd + ob * 16 : nullptr;
        b.act = act_d;
        b.y = y + (n * EB + ob) * d.OH * d.OW * 16;
        b.in_groups = 1;
        b.in_per_group = 16;
        interior(sd.OW, sd.W, 3, sd.sw, sd.pw, 1, &b.ow_lo, &b.ow_hi);
        for (int64_t k = 0; k < nb; ++k) {
#if defined(__x86_64__)
          if (dw_rows && depthwise_rows_supported(sd)) {
            if (isa == Isa::kAvx2)
              depthwise_rows_avx2(b, 0, k, b0, b1);
            else
              depthwise_rows(b, 0, k, b0, b1);
            continue;
          }
#endif
          for (int64_t oh = b0; oh < b1; ++oh) conv_row(b, 0, k, 1, oh, 0, sd.OW);
        }
      }
    }
  };

  // One static part per thread: a range of output blocks over the whole
  // image (every thread reads all the input, none expands a row twice), or,
  // with too few blocks to share, a range of rows.
  const int64_t parts = pool ? pool->num_threads() : 1;
  const bool by_blocks = EB >= 2 * parts;
  const double cost = 2.0 * double(d.N * H * W) * double(e.C + 9) * double(EB * 16) / double(parts);
  for_range(pool, parts, cost, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      if (by_blocks) {
        for (int64_t n = 0; n < d.N; ++n) rows(n, 0, d.OH, EB * p / parts, EB * (p + 1) / parts);
        continue;
      }
      const int64_t r0 = d.N * d.OH * p / parts, r1 = d.N * d.OH * (p + 1) / parts;
      for (int64_t r = r0; r < r1;) {
        const int64_t n = r / d.OH, end = std::min(r1, (n + 1) * d.OH);
        rows(n, r - n * d.OH, end - n * d.OH, 0, EB);
        r = end;
      }
    }
  });
}

}  // namespace tessera::linalg::nchwc
