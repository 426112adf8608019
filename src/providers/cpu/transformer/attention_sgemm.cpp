#include "providers/cpu/transformer/attention_sgemm.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "linalg/gemm.hpp"
#include "linalg/vec_math.hpp"

namespace tessera::cpu {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The scores of one block of query rows: 64 Ki floats (256 KB).
constexpr int64_t kScoreBlockFloats = 64 * 1024;

// Element strides of a mask broadcast to [B, QH, Sq, T] (0 along a size-1 axis).
struct MaskStrides {
  int64_t s[4] = {0, 0, 0, 0};
};

MaskStrides mask_strides(const Tensor& m) {
  MaskStrides r;
  int64_t stride = 1;
  for (int a = 3; a >= 0; --a) {
    const int i = int(m.rank()) - 4 + a;
    const int64_t d = i >= 0 ? m.shape()[size_t(i)] : 1;
    r.s[a] = d == 1 ? 0 : stride;
    stride *= d;
  }
  return r;
}

}  // namespace

void attention_sgemm(ep::KernelContext& ctx, const AttentionDims& d, const Tensor& q,
                     const Tensor& k, const Tensor& v, const Tensor* mask, float scale, bool causal,
                     Tensor& y) {
  const int64_t group = d.QH / d.KH;
  // Row 0 of head h of batch b, and the step between that head's rows.
  auto head = [&](int64_t b, int64_t h, int64_t H, int64_t S, int64_t size) {
    return d.three_d ? b * S * H * size + h * size : (b * H + h) * S * size;
  };
  const int64_t ldq = d.three_d ? d.QH * d.D : d.D, ldk = d.three_d ? d.KH * d.D : d.D;
  const int64_t ldv = d.three_d ? d.KH * d.VD : d.VD, ldy = d.three_d ? d.QH * d.VD : d.VD;
  const float* qd = q.data<float>();
  const float* kd = k.data<float>();
  const float* vd = v.data<float>();
  float* yd = y.mutable_data<float>();
  const MaskStrides ms = mask ? mask_strides(*mask) : MaskStrides{};
  const float* mf = mask && mask->dtype() == DataType::kFloat ? mask->data<float>() : nullptr;
  const bool* mb = mask && mask->dtype() == DataType::kBool ? mask->data<bool>() : nullptr;
  const double cost = double(d.Sq * d.T * (2 * d.D + d.VD + 20));
  // Query rows in blocks whose scores (rows x T) fit in about 256 KB, so
  // they stay in L2 between the two products and the softmax.
  const int64_t rows_per_block = std::min(d.Sq, std::max<int64_t>(16, kScoreBlockFloats / d.T));
  ctx.thread_pool().parallel_for(d.B * d.QH, cost, [&](int64_t t0, int64_t t1) {
    std::vector<float> scores(size_t(rows_per_block * d.T));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / d.QH, h = t % d.QH, kh = h / group;
      float* sc = scores.data();
      const float* qh = qd + head(b, h, d.QH, d.Sq, d.D);
      const float* kh_data = kd + head(b, kh, d.KH, d.T, d.D);
      const float* vh = vd + head(b, kh, d.KH, d.T, d.VD);
      float* yh = yd + head(b, h, d.QH, d.Sq, d.VD);
      // With several row blocks, K^T and V are packed once for all of them.
      linalg::PackedB kt, vp;
      if (rows_per_block < d.Sq) {
        kt = linalg::PackedB(true, d.D, d.T, kh_data, ldk);
        vp = linalg::PackedB(false, d.T, d.VD, vh, ldv);
      }
      for (int64_t i0 = 0; i0 < d.Sq; i0 += rows_per_block) {
        const int64_t rows = std::min(rows_per_block, d.Sq - i0);
        if (kt.empty())
          linalg::sgemm(false, true, rows, d.T, d.D, scale, qh + i0 * ldq, ldq, kh_data, ldk, 0.0f,
                        sc, d.T);
        else
          linalg::sgemm_packed_b(false, rows, scale, qh + i0 * ldq, ldq, kt, 0.0f, sc, d.T);
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = i0 + r;
          float* row = sc + r * d.T;
          const int64_t m0 = b * ms.s[0] + h * ms.s[1] + i * ms.s[2];
          if (mf) {
            for (int64_t j = 0; j < d.T; ++j) row[j] += mf[m0 + j * ms.s[3]];
          } else if (mb) {
            for (int64_t j = 0; j < d.T; ++j)
              if (!mb[m0 + j * ms.s[3]]) row[j] = kNegInf;
          }
          if (causal && i + 1 < d.T) std::fill(row + i + 1, row + d.T, kNegInf);
          // A row masked throughout has no distribution: zeros, as the double path gives.
          if (std::all_of(row, row + d.T, [](float x) { return x == kNegInf; }))
            std::fill(row, row + d.T, 0.0f);
          else
            linalg::vec_softmax_row(row, row, d.T);
        }
        if (vp.empty())
          linalg::sgemm(false, false, rows, d.VD, d.T, 1.0f, sc, d.T, vh, ldv, 0.0f, yh + i0 * ldy,
                        ldy);
        else
          linalg::sgemm_packed_b(false, rows, 1.0f, sc, d.T, vp, 0.0f, yh + i0 * ldy, ldy);
      }
    }
  });
}

}  // namespace tessera::cpu
