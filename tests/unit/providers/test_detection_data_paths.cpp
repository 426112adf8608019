// The data movement around a detector's box head: Concat stacking boxes'
// coordinates along a new last axis (rows of one element), Expand of
// per-box indices over [C, H, W] (a broadcast tail), ScatterElements of
// pooled features, and RoiAlign, each against its element-by-element
// definition.
#include <cmath>
#include <random>

#include "unit/providers/tensor_test_helpers.hpp"

namespace tessera::test {
namespace {

TEST(DetectionDataPaths, ConcatOfShortRows) {
  // Four [N, 5, 1] coordinates stacked along the last axis, and inputs of
  // unequal row lengths (1, 3 and 2 elements) along axis 1 of [N, k].
  const int64_t N = 700;
  std::vector<Value> ins;
  for (int k = 0; k < 4; ++k) {
    std::vector<float> v(size_t(N * 5));
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i) + 0.25f * float(k);
    ins.push_back(f32(v, Shape{N, 5, 1}));
  }
  auto out = run_node("Concat", ins, {attr_int("axis", 2)});
  ASSERT_EQ(out[0].tensor().shape(), (Shape{N, 5, 4}));
  const float* y = out[0].tensor().data<float>();
  for (int64_t i = 0; i < N * 5; ++i)
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(y[i * 4 + k], float(i) + 0.25f * float(k)) << i << " " << k;

  std::vector<Value> parts;
  const int64_t widths[] = {1, 3, 2};
  for (int k = 0; k < 3; ++k) {
    std::vector<int64_t> v(size_t(N * widths[k]));
    for (size_t i = 0; i < v.size(); ++i) v[i] = int64_t(i) * 10 + k;
    parts.push_back(i64(v, Shape{N, widths[k]}));
  }
  out = run_node("Concat", parts, {attr_int("axis", -1)});
  ASSERT_EQ(out[0].tensor().shape(), (Shape{N, 6}));
  const int64_t* yi = out[0].tensor().data<int64_t>();
  for (int64_t r = 0; r < N; ++r) {
    int64_t col = 0;
    for (int k = 0; k < 3; ++k)
      for (int64_t j = 0; j < widths[k]; ++j, ++col)
        ASSERT_EQ(yi[r * 6 + col], (r * widths[k] + j) * 10 + k) << r << " " << col;
  }
  // Strings take the same path.
  out = run_node("Concat", {strs({"a", "b"}, Shape{2, 1}), strs({"c", "d"}, Shape{2, 1})},
                 {attr_int("axis", 1)});
  EXPECT_EQ(values_of<std::string>(out[0]), (std::vector<std::string>{"a", "c", "b", "d"}));
}

TEST(DetectionDataPaths, ExpandOverABroadcastTail) {
  // [N, 1, 1, 1] -> [N, C, H, W], and [2, 1, 3, 1] -> [2, 4, 3, 5] (a
  // broadcast tail of one axis under a broadcast middle axis).
  const int64_t N = 300, C = 16, H = 7, W = 7;
  std::vector<int64_t> v(static_cast<size_t>(N));
  for (size_t i = 0; i < v.size(); ++i) v[i] = int64_t(i) * 3 - 7;
  auto out = run_node("Expand", {i64(v, Shape{N, 1, 1, 1}), i64v({N, C, H, W})}, {}, 13);
  ASSERT_EQ(out[0].tensor().shape(), (Shape{N, C, H, W}));
  const int64_t* y = out[0].tensor().data<int64_t>();
  for (int64_t i = 0; i < N * C * H * W; ++i) ASSERT_EQ(y[i], v[size_t(i / (C * H * W))]) << i;

  out =
      run_node("Expand", {f32({1, 2, 3, 4, 5, 6}, Shape{2, 1, 3, 1}), i64v({2, 4, 3, 5})}, {}, 13);
  ASSERT_EQ(out[0].tensor().shape(), (Shape{2, 4, 3, 5}));
  const float* yf = out[0].tensor().data<float>();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t w = 0; w < 5; ++w)
          ASSERT_EQ(yf[((n * 4 + c) * 3 + h) * 5 + w], float(n * 3 + h + 1)) << n << c << h << w;
}

// out[idx[i]] along `axis` = upd[i], in index order (the last duplicate wins).
template <typename T>
std::vector<T> scatter_reference(std::vector<T> data, const Shape& ds,
                                 const std::vector<int64_t>& idx, const Shape& is,
                                 const std::vector<T>& upd, size_t axis) {
  std::vector<int64_t> pos(is.rank(), 0);
  for (size_t i = 0; i < idx.size(); ++i) {
    int64_t off = 0;
    for (size_t k = 0; k < is.rank(); ++k) {
      const int64_t c = k == axis ? (idx[i] < 0 ? idx[i] + ds[k] : idx[i]) : pos[k];
      off = off * ds[k] + c;
    }
    data[size_t(off)] = upd[i];
    for (size_t k = is.rank(); k-- > 0;) {
      if (++pos[k] < is[k]) break;
      pos[k] = 0;
    }
  }
  return data;
}

TEST(DetectionDataPaths, ScatterElementsMatchesDefinition) {
  std::mt19937 rng(7);
  const Shape ds{5, 4, 6}, is{3, 4, 5};  // indices smaller than data on the other axes
  std::vector<float> data(size_t(ds.num_elements()));
  for (size_t i = 0; i < data.size(); ++i) data[i] = float(i);
  std::vector<float> upd(size_t(is.num_elements()));
  for (size_t i = 0; i < upd.size(); ++i) upd[i] = -1.f - float(i);
  for (size_t axis = 0; axis < 3; ++axis) {
    std::uniform_int_distribution<int64_t> pick(-ds[axis], ds[axis] - 1);  // negatives too
    std::vector<int64_t> idx(upd.size());
    for (auto& v : idx) v = pick(rng);
    auto out = run_node("ScatterElements", {f32(data, ds), i64(idx, is), f32(upd, is)},
                        {attr_int("axis", int64_t(axis))}, 18);
    EXPECT_EQ(values_of<float>(out[0]), scatter_reference(data, ds, idx, is, upd, axis))
        << "axis " << axis;
    // int32 indices address the same places.
    std::vector<int32_t> idx32(idx.begin(), idx.end());
    out = run_node("ScatterElements",
                   {f32(data, ds), Tensor::from_vector<int32_t>(idx32, is), f32(upd, is)},
                   {attr_int("axis", int64_t(axis) - 3)}, 18);
    EXPECT_EQ(values_of<float>(out[0]), scatter_reference(data, ds, idx, is, upd, axis))
        << "axis " << axis << " int32";
  }
  // Strings, and a reduction (which keeps its own path).
  auto out = run_node(
      "ScatterElements",
      {strs({"a", "b", "c"}, Shape{3}), i64({2, 0}, Shape{2}), strs({"x", "y"}, Shape{2})}, {}, 18);
  EXPECT_EQ(values_of<std::string>(out[0]), (std::vector<std::string>{"y", "b", "x"}));
  out = run_node("ScatterElements",
                 {f32({1, 2, 3}, Shape{3}), i64({2, 2}, Shape{2}), f32({10, 20}, Shape{2})},
                 {attr_string("reduction", "add")}, 18);
  EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{1, 2, 33}));
  const std::string msg =
      error_of("ScatterElements",
               {f32({1, 2, 3}, Shape{3}), i64({1, 3}, Shape{2}), f32({0, 0}, Shape{2})}, {}, 18);
  EXPECT_NE(msg.find("index 3 is out of range [-3, 2]"), std::string::npos) << msg;
}

// RoiAlign written from the spec, one sample at a time, in double.
std::vector<double> roi_align_reference(const std::vector<float>& x, int64_t C, int64_t H,
                                        int64_t W, const std::vector<float>& rois,
                                        const std::vector<int64_t>& bi, int64_t oh, int64_t ow,
                                        int64_t ratio, float scale, bool half_pixel, bool max) {
  const int64_t R = int64_t(bi.size());
  std::vector<double> out;
  const double off = half_pixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < R; ++r) {
    const double x0 = rois[size_t(r * 4)] * scale - off, y0 = rois[size_t(r * 4 + 1)] * scale - off;
    double rw = rois[size_t(r * 4 + 2)] * scale - off - x0;
    double rh = rois[size_t(r * 4 + 3)] * scale - off - y0;
    if (!half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bh = rh / double(oh), bw = rw / double(ow);
    const int64_t gh = ratio > 0 ? ratio : int64_t(std::ceil(rh / double(oh)));
    const int64_t gw = ratio > 0 ? ratio : int64_t(std::ceil(rw / double(ow)));
    for (int64_t c = 0; c < C; ++c) {
      const float* img = x.data() + (bi[size_t(r)] * C + c) * H * W;
      for (int64_t ph = 0; ph < oh; ++ph)
        for (int64_t pw = 0; pw < ow; ++pw) {
          double acc = max ? -1e300 : 0.0;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              double yy = y0 + ph * bh + (iy + 0.5) * bh / double(gh);
              double xx = x0 + pw * bw + (ix + 0.5) * bw / double(gw);
              double v = 0.0;
              if (!(yy < -1.0 || yy > double(H) || xx < -1.0 || xx > double(W))) {
                yy = std::max(yy, 0.0);
                xx = std::max(xx, 0.0);
                int64_t yl = int64_t(yy), xl = int64_t(xx), yh = yl + 1, xh = xl + 1;
                if (yl >= H - 1) yh = yl = H - 1, yy = double(yl);
                if (xl >= W - 1) xh = xl = W - 1, xx = double(xl);
                const double ly = yy - double(yl), lx = xx - double(xl);
                const double c1 = (1 - ly) * (1 - lx) * img[yl * W + xl];
                const double c2 = (1 - ly) * lx * img[yl * W + xh];
                const double c3 = ly * (1 - lx) * img[yh * W + xl];
                const double c4 = ly * lx * img[yh * W + xh];
                v = max ? std::max(std::max(c1, c2), std::max(c3, c4)) : c1 + c2 + c3 + c4;
              }
              acc = max ? std::max(acc, v) : acc + v;
            }
          // A box too small for one sample (adaptive count 0) pools to 0.
          if (gh * gw == 0) acc = 0.0;
          out.push_back(max ? acc : acc / double(std::max<int64_t>(gh * gw, 1)));
        }
    }
  }
  return out;
}

TEST(DetectionDataPaths, RoiAlignMatchesDefinition) {
  const int64_t N = 2, C = 3, H = 9, W = 11;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::vector<float> x(size_t(N * C * H * W));
  for (auto& v : x) v = u(rng);
  // Boxes inside, across the border, beyond it, degenerate, and large (the
  // adaptive sample count), in image coordinates at scale 0.5.
  const std::vector<float> rois = {2,  3,  12, 14, -6, -4, 8,  6,  18, 10, 30, 26,
                                   10, 10, 10, 10, 0,  0,  21, 17, 30, 25, 40, 34};
  const std::vector<int64_t> bi = {0, 1, 1, 0, 1, 0};
  const Shape xs{N, C, H, W};
  // Ratio 40 makes 19200 samples a box: average pooling then takes the
  // per-sample path, as huge adaptive boxes do.
  for (int64_t ratio : {0, 2, 3, 40})
    for (const char* mode : {"avg", "max"})
      for (const char* ctm : {"half_pixel", "output_half_pixel"}) {
        auto out = run_node(
            "RoiAlign", {f32(x, xs), f32(rois, Shape{6, 4}), i64(bi, Shape{6})},
            {attr_int("output_height", 3), attr_int("output_width", 4),
             attr_int("sampling_ratio", ratio), attr_float("spatial_scale", 0.5f),
             attr_string("mode", mode), attr_string("coordinate_transformation_mode", ctm)},
            16);
        ASSERT_EQ(out[0].tensor().shape(), (Shape{6, C, 3, 4}));
        const auto want =
            roi_align_reference(x, C, H, W, rois, bi, 3, 4, ratio, 0.5f,
                                std::string(ctm) == "half_pixel", std::string(mode) == "max");
        const auto got = values_of<float>(out[0]);
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_NEAR(got[i], want[i], 1e-5)
              << mode << " " << ctm << " ratio " << ratio << " at " << i;
      }
}

}  // namespace
}  // namespace tessera::test
