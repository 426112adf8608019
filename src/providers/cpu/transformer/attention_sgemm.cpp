#include "providers/cpu/transformer/attention_sgemm.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "linalg/gemm.hpp"
#include "linalg/vec_math.hpp"

namespace tessera::cpu {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

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
  ctx.thread_pool().parallel_for(d.B * d.QH, cost, [&](int64_t t0, int64_t t1) {
    std::vector<float> scores(size_t(d.Sq * d.T));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / d.QH, h = t % d.QH, kh = h / group;
      float* sc = scores.data();
      linalg::sgemm(false, true, d.Sq, d.T, d.D, scale, qd + head(b, h, d.QH, d.Sq, d.D), ldq,
                    kd + head(b, kh, d.KH, d.T, d.D), ldk, 0.0f, sc, d.T);
      for (int64_t i = 0; i < d.Sq; ++i) {
        float* row = sc + i * d.T;
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
      linalg::sgemm(false, false, d.Sq, d.VD, d.T, 1.0f, sc, d.T, vd + head(b, kh, d.KH, d.T, d.VD),
                    ldv, 0.0f, yd + head(b, h, d.QH, d.Sq, d.VD), ldy);
    }
  });
}

}  // namespace tessera::cpu
