// RoiAlign: one thread per output element, which walks its bin's sample grid
// and takes the bilinear sample of each point (zero more than a pixel
// outside the image), then their average or maximum. The sample positions
// follow the CPU provider's float formulas with explicitly rounded
// operations, so a fused multiply-add cannot move a sample.
#include "providers/cuda/device_math.cuh"
#include "providers/cuda/num_dispatch.cuh"
#include "providers/cuda/roi_align_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

struct Tap {
  int64_t lo = 0, hi = 0;
  float wlo = 0, whi = 0;
  bool valid = false;
};

__device__ Tap tap(float c, int64_t size) {
  Tap t;
  if (size <= 0 || c < -1.f || c > float(size)) return t;
  c = fmaxf(c, 0.f);
  int64_t l = int64_t(c), h;
  if (l >= size - 1) {
    h = l = size - 1;
    c = float(l);
  } else {
    h = l + 1;
  }
  const float f = __fsub_rn(c, float(l));
  t.lo = l;
  t.hi = h;
  t.wlo = __fsub_rn(1.f, f);
  t.whi = f;
  t.valid = true;
  return t;
}

// sh + ph * bh + (iy + 0.5) * bh / g, rounded step by step as on the host.
__device__ float sample_at(float start, int64_t bin, float bin_size, int64_t i, int64_t g) {
  const float a = __fadd_rn(start, __fmul_rn(float(bin), bin_size));
  return __fadd_rn(a, __fdiv_rn(__fmul_rn(__fadd_rn(float(i), 0.5f), bin_size), float(g)));
}

template <typename T>
__global__ void roi_align_kernel(const T* __restrict__ x, const T* __restrict__ rois,
                                 const int64_t* __restrict__ batch_indices, T* __restrict__ y,
                                 int64_t n, RoiAlignParams p, IndexError* bad_index,
                                 IndexError* bad_box) {
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t pw = e % p.out_w, ph = (e / p.out_w) % p.out_h;
    const int64_t c = (e / (p.out_w * p.out_h)) % p.channels;
    const int64_t r = e / (p.out_w * p.out_h * p.channels);
    const int64_t b = batch_indices[r];
    y[e] = Acc<T>::down(typename Acc<T>::type(0.f));
    if (b < 0 || b >= p.batch) {
      if (atomicCAS(reinterpret_cast<int*>(&bad_index->flag), 0, 1) == 0) {
        bad_index->index = b;
        bad_index->dim = p.batch;
      }
      continue;
    }
    float box[4];
    bool finite = true;
    for (int k = 0; k < 4; ++k) {
      box[k] = float(Acc<T>::up(rois[r * 4 + k]));
      finite = finite && fabsf(__fmul_rn(box[k], p.spatial_scale)) <= 0x1p24f;
    }
    if (!finite) {
      if (atomicCAS(reinterpret_cast<int*>(&bad_box->flag), 0, 1) == 0) {
        bad_box->index = r;
        bad_box->dim = 0;
      }
      continue;
    }
    const float offset = p.half_pixel ? 0.5f : 0.f;
    const float sw = __fsub_rn(__fmul_rn(box[0], p.spatial_scale), offset);
    const float sh = __fsub_rn(__fmul_rn(box[1], p.spatial_scale), offset);
    float rw = __fsub_rn(__fsub_rn(__fmul_rn(box[2], p.spatial_scale), offset), sw);
    float rh = __fsub_rn(__fsub_rn(__fmul_rn(box[3], p.spatial_scale), offset), sh);
    if (!p.half_pixel) {
      rw = fmaxf(rw, 1.f);
      rh = fmaxf(rh, 1.f);
    }
    const float bh = __fdiv_rn(rh, float(p.out_h)), bw = __fdiv_rn(rw, float(p.out_w));
    const int64_t gh = p.sampling_ratio > 0 ? p.sampling_ratio : int64_t(ceilf(bh));
    const int64_t gw = p.sampling_ratio > 0 ? p.sampling_ratio : int64_t(ceilf(bw));
    const float count = float(gh * gw > 1 ? gh * gw : 1);
    const T* img = x + (b * p.channels + c) * p.height * p.width;
    float acc = 0.f;
    bool first = true;
    for (int64_t iy = 0; iy < gh; ++iy) {
      const Tap ty = tap(sample_at(sh, ph, bh, iy, gh), p.height);
      for (int64_t ix = 0; ix < gw; ++ix) {
        const Tap tx = tap(sample_at(sw, pw, bw, ix, gw), p.width);
        float v = 0.f;
        if (ty.valid && tx.valid) {
          const auto at = [&](int64_t row, int64_t col) {
            return float(Acc<T>::up(img[row * p.width + col]));
          };
          const float v1 = __fmul_rn(__fmul_rn(ty.wlo, tx.wlo), at(ty.lo, tx.lo));
          const float v2 = __fmul_rn(__fmul_rn(ty.wlo, tx.whi), at(ty.lo, tx.hi));
          const float v3 = __fmul_rn(__fmul_rn(ty.whi, tx.wlo), at(ty.hi, tx.lo));
          const float v4 = __fmul_rn(__fmul_rn(ty.whi, tx.whi), at(ty.hi, tx.hi));
          v = p.max ? fmaxf(fmaxf(v1, v2), fmaxf(v3, v4)) : v1 + v2 + v3 + v4;
        }
        if (p.max) {
          acc = first ? v : fmaxf(acc, v);
          first = false;
        } else {
          acc += v;
        }
      }
    }
    const float out = p.max ? acc : acc / count;
    y[e] = Acc<T>::down(typename Acc<T>::type(out));
  }
}

}  // namespace

cudaError_t launch_roi_align(NumType type, const void* x, const void* rois,
                             const int64_t* batch_indices, void* y, int64_t num_rois,
                             const RoiAlignParams& p, IndexError* bad_index, IndexError* bad_box,
                             cudaStream_t stream) {
  const int64_t n = num_rois * p.channels * p.out_h * p.out_w;
  if (n == 0) return cudaSuccess;
  return with_num_type(type, [&](auto v) {
    using T = decltype(v);
    roi_align_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(rois), batch_indices, static_cast<T*>(y), n,
        p, bad_index, bad_box);
  });
}

}  // namespace tessera::cuda
