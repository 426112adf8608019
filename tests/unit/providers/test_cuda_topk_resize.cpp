// The CUDA TopK, Resize and RoiAlign kernels against the CPU provider. TopK: rows that
// fit the per-row shared-memory sort and longer ones (the sort in global
// memory), any axis, largest and smallest, ties (by lower index), NaN and
// -0, k from 0 to the whole axis, several element types; values and indices
// must match bit for bit. Resize: every mode, nearest_mode and
// coordinate_transformation_mode, scales or sizes, roi and extrapolation,
// exclude_outside and cubic_coeff_a, axes and keep_aspect_ratio_policy, on
// opsets 10, 11, 13, 18 and 19; nearest must match bit for bit, linear and
// cubic within float rounding (stated per case). RoiAlign: avg and max,
// both coordinate modes, fixed and adaptive sampling, boxes across and
// beyond the image, within float rounding. Needs a CUDA device:
// without one every test here is skipped and says why.
#include <limits>

#include "unit/providers/cuda_index_test_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

// Values drawn from a few integers (many ties), with NaN, -0 and +0 mixed in
// for the float types.
Tensor tied_values(DataType t, std::vector<int64_t> dims, uint32_t seed, bool specials) {
  const int64_t n = count(dims);
  std::mt19937 gen(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) {
    const uint32_t r = gen() % 100;
    if (specials && r < 3)
      x = std::numeric_limits<float>::quiet_NaN();
    else if (specials && r < 8)
      x = r % 2 ? -0.f : 0.f;
    else
      x = float(int(gen() % 9) - 4);
  }
  if (t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16)
    return make_tensor(t, dims, v);
  Tensor out(t, Shape(dims));
  for (int64_t i = 0; i < n; ++i) {
    const float x = std::isnan(v[size_t(i)]) ? 0.f : v[size_t(i)];
    if (t == DataType::kInt64)
      out.mutable_data<int64_t>()[i] = int64_t(x);
    else if (t == DataType::kInt32)
      out.mutable_data<int32_t>()[i] = int32_t(x);
    else if (t == DataType::kDouble)
      out.mutable_data<double>()[i] = double(v[size_t(i)]);
    else if (t == DataType::kUInt8)
      out.mutable_data<uint8_t>()[i] = uint8_t(x + 4);
  }
  return out;
}

OneNode topk(const Tensor& x, int64_t k, int64_t axis, int64_t largest, int64_t opset = 11) {
  OneNode m("TopK", opset, {attr_int("axis", axis), attr_int("largest", largest)});
  if (opset < 10) m = OneNode("TopK", opset, {attr_int("axis", axis), attr_int("k", k)});
  m.input("x", x);
  if (opset >= 10) m.input("k", i64s({k}));
  m.output("v").output("i");
  return m;
}

Tensor floats(std::vector<float> v) {
  return Tensor::from_vector<float>(v, Shape{int64_t(v.size())});
}

}  // namespace

TEST(CudaTopK, ShortAndLongRowsAnyAxisTiesAndNaN) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  struct Case {
    std::vector<int64_t> dims;
    int64_t axis, k;
  };
  const std::vector<Case> cases = {{{4, 37}, -1, 5},       {{4, 37}, 1, 37},  {{7, 50, 3}, 1, 10},
                                   {{3, 1}, 1, 1},         {{2, 2048}, 1, 9}, {{2, 2049}, 1, 17},
                                   {{3, 5000, 2}, 1, 100}, {{5000}, 0, 5000}, {{6, 4}, 0, 0},
                                   {{1, 3, 300}, -1, 300}};
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kInt64, DataType::kDouble})
    for (const Case& c : cases)
      for (int64_t largest : {1, 0}) {
        const std::string what = "TopK " + Shape(c.dims).to_string() + " axis " +
                                 std::to_string(c.axis) + " k " + std::to_string(c.k) +
                                 (largest ? " largest " : " smallest ") +
                                 std::string(data_type_name(t));
        expect_cpu_result(topk(tied_values(t, c.dims, 1, true), c.k, c.axis, largest), what);
      }
  for (DataType t : {DataType::kInt32, DataType::kUInt8})
    expect_cpu_result(topk(tied_values(t, {5, 300}, 2, false), 7, 1, 1),
                      "TopK " + std::string(data_type_name(t)));
  expect_cpu_result(topk(tied_values(DataType::kFloat, {3, 8}, 3, true), 4, 1, 1, 1),
                    "TopK opset 1 (k as an attribute)");
  expect_cpu_result(topk(tied_values(DataType::kFloat, {3, 8}, 4, true), 4, -1, 1, 10),
                    "TopK opset 10");
}

TEST(CudaTopK, KOutOfRangeFailsTheNode) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  expect_has(cuda_error(topk(tied_values(DataType::kFloat, {2, 3}, 1, false), 4, 1, 1)),
             "k = 4 is out of range [0, 3]");
}

namespace {

// A Resize node of opset >= 11 with scales (sizes empty) or sizes.
OneNode resize(int64_t opset, std::vector<ir::Attribute> attrs, const Tensor& x,
               std::vector<float> scales, std::vector<int64_t> sizes = {},
               std::vector<float> roi = {}) {
  OneNode m("Resize", opset, std::move(attrs));
  m.input("x", x);
  if (roi.empty())
    m.omitted();
  else
    m.input("roi", floats(roi), true);
  if (!scales.empty())
    m.input("scales", floats(scales), true);
  else
    m.omitted();
  if (!sizes.empty()) m.input("sizes", i64s(sizes), true);
  m.output("y");
  return m;
}

}  // namespace

TEST(CudaResize, NearestEveryModeBitForBit) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const Tensor x = random_tensor(DataType::kFloat, {1, 2, 5, 7}, 1);
  const Tensor u8 = random_tensor(DataType::kUInt8, {1, 2, 5, 7}, 2);
  for (const char* nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})
    for (const char* coord : {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                              "align_corners", "asymmetric", "tf_half_pixel_for_nn"})
      for (const auto& scales : std::vector<std::vector<float>>{
               {1, 1, 2, 3}, {1, 1, 0.6f, 0.5f}, {1, 1, 1.5f, 1.3f}, {1, 1, 1, 1}}) {
        const std::string what = std::string("Resize nearest ") + nearest + " " + coord +
                                 " scales " + std::to_string(scales[2]) + "," +
                                 std::to_string(scales[3]);
        const std::vector<ir::Attribute> attrs = {
            attr_string("mode", "nearest"), attr_string("nearest_mode", nearest),
            attr_string("coordinate_transformation_mode", coord)};
        expect_cpu_result(resize(13, attrs, x, scales), what);
        expect_cpu_result(resize(19, attrs, u8, scales), what + " uint8");
      }
  expect_cpu_result(resize(13, {attr_string("mode", "nearest")}, x, {}, {1, 2, 9, 4}),
                    "Resize nearest with sizes");
  OneNode v10("Resize", 10, {attr_string("mode", "nearest")});
  v10.input("x", x).input("s", floats({1, 1, 0.5f, 2.5f}), true).output("y");
  expect_cpu_result(v10, "Resize-10 nearest");
  expect_cpu_result(resize(11,
                           {attr_string("mode", "nearest"),
                            attr_string("coordinate_transformation_mode", "tf_crop_and_resize"),
                            attr_float("extrapolation_value", 7.5f)},
                           x, {}, {1, 2, 6, 6}, {0, 0, 0.2f, -0.3f, 1, 1, 1.2f, 0.9f}),
                    "Resize nearest tf_crop_and_resize with extrapolation");
}

TEST(CudaResize, LinearAndCubicWithinFloatRounding) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const Tensor x = random_tensor(DataType::kFloat, {2, 3, 6, 5}, 3);
  for (const char* mode : {"linear", "cubic"})
    for (const char* coord : {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                              "align_corners", "asymmetric"})
      for (const auto& scales : std::vector<std::vector<float>>{
               {1, 1, 2, 3}, {1, 1, 0.5f, 0.6f}, {1, 1, 1.7f, 1}, {1, 1, 1, 1}}) {
        const std::string what = std::string("Resize ") + mode + " " + coord + " scales " +
                                 std::to_string(scales[2]) + "," + std::to_string(scales[3]);
        expect_cpu_result(resize(13,
                                 {attr_string("mode", mode),
                                  attr_string("coordinate_transformation_mode", coord)},
                                 x, scales),
                          what, 1e-5);
      }
  expect_cpu_result(resize(13,
                           {attr_string("mode", "cubic"), attr_float("cubic_coeff_a", -0.5f),
                            attr_int("exclude_outside", 1)},
                           x, {}, {2, 3, 11, 4}),
                    "Resize cubic a=-0.5 exclude_outside with sizes", 1e-5);
  expect_cpu_result(resize(11,
                           {attr_string("mode", "linear"),
                            attr_string("coordinate_transformation_mode", "tf_crop_and_resize"),
                            attr_float("extrapolation_value", -2.f)},
                           x, {}, {2, 3, 7, 7}, {0, 0, 0.1f, -0.2f, 1, 1, 1.1f, 0.8f}),
                    "Resize linear tf_crop_and_resize with extrapolation", 1e-5);
  OneNode v10("Resize", 10, {attr_string("mode", "linear")});
  v10.input("x", x).input("s", floats({1, 1, 2, 0.5f}), true).output("y");
  expect_cpu_result(v10, "Resize-10 linear", 1e-5);
  // Trilinear over three axes, and float16 (rounded once on both sides, so
  // within one float16 step), and uint8 (truncated: within 1).
  const Tensor vol = random_tensor(DataType::kFloat, {1, 1, 4, 5, 3}, 4);
  expect_cpu_result(resize(13, {attr_string("mode", "linear")}, vol, {1, 1, 1.5f, 2, 2.5f}),
                    "Resize trilinear", 1e-5);
  expect_cpu_result(resize(13, {attr_string("mode", "linear")},
                           random_tensor(DataType::kFloat16, {1, 3, 6, 5}, 5), {1, 1, 2, 1.5f}),
                    "Resize linear float16", 2e-3);
  expect_cpu_result(resize(13, {attr_string("mode", "cubic")},
                           random_tensor(DataType::kUInt8, {1, 3, 6, 5}, 6), {1, 1, 2, 1.5f}),
                    "Resize cubic uint8", 1);
}

TEST(CudaResize, AxesAndKeepAspectRatio) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const Tensor x = random_tensor(DataType::kFloat, {1, 2, 6, 9}, 7);
  for (const char* policy : {"stretch", "not_larger", "not_smaller"})
    for (const char* mode : {"nearest", "linear"}) {
      OneNode m("Resize", 18,
                {attr_string("mode", mode), attr_ints("axes", {-1, 2}),
                 attr_string("keep_aspect_ratio_policy", policy)});
      m.input("x", x).omitted().omitted().input("sizes", i64s({4, 5}), true).output("y");
      expect_cpu_result(m, std::string("Resize 18 axes [-1, 2] sizes ") + policy + " " + mode,
                        std::string(mode) == "nearest" ? 0 : 1e-5);
    }
  OneNode s("Resize", 19, {attr_string("mode", "linear"), attr_ints("axes", {3})});
  s.input("x", x).omitted().input("scales", floats({0.7f}), true).output("y");
  expect_cpu_result(s, "Resize 19 scales on axis 3 only", 1e-5);
}

TEST(CudaRoiAlign, AvgAndMaxEveryCoordinateMode) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Boxes inside, across the edge and beyond the image, a degenerate one,
  // on two images; fixed and adaptive sampling. Sample positions are rounded
  // as on the host, so only the sums' rounding differs (1e-5).
  const Tensor rois = floats({1.f,  2.f,  7.5f, 6.f, -3.f, -2.f, 4.f, 5.f, 0.f,  0.f,
                              15.f, 11.f, 5.f,  5.f, 5.f,  5.f,  8.f, 1.f, 30.f, 9.f})
                          .reshaped(Shape{5, 4});
  const Tensor bidx = i64s({0, 1, 1, 0, 1});
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kDouble})
    for (int64_t opset : {10, 16})
      for (const char* ctm : {"half_pixel", "output_half_pixel"})
        for (const char* mode : {"avg", "max"})
          for (int64_t ratio : {0, 2}) {
            if (opset == 10 && std::string(ctm) == "half_pixel") continue;  // 16+
            std::vector<ir::Attribute> attrs = {
                attr_string("mode", mode), attr_int("output_height", 3),
                attr_int("output_width", 4), attr_int("sampling_ratio", ratio),
                attr_float("spatial_scale", 0.5f)};
            if (opset >= 16) attrs.push_back(attr_string("coordinate_transformation_mode", ctm));
            OneNode m("RoiAlign", opset, attrs);
            Tensor x = t == DataType::kDouble
                           ? random_tensor(t, {2, 3, 9, 11}, 1)
                           : make_tensor(t, {2, 3, 9, 11}, random_values(594, 1, -4, 4));
            Tensor r(t, Shape{5, 4});
            for (int64_t i = 0; i < 20; ++i) {
              const float v = rois.data<float>()[i];
              if (t == DataType::kFloat)
                r.mutable_data<float>()[i] = v;
              else if (t == DataType::kFloat16)
                r.mutable_data<Float16>()[i] = Float16(v);
              else
                r.mutable_data<double>()[i] = double(v);
            }
            m.input("x", x).input("rois", r).input("b", bidx).output("y");
            expect_cpu_result(m,
                              "RoiAlign " + std::to_string(opset) + " " + ctm + " " + mode +
                                  " ratio " + std::to_string(ratio) + " " +
                                  std::string(data_type_name(t)),
                              t == DataType::kFloat16 ? 2e-3 : 1e-5);
          }
  OneNode bad("RoiAlign", 16);
  bad.input("x", random_tensor(DataType::kFloat, {1, 1, 4, 4}, 2))
      .input("rois", floats({0, 0, 2, 2}).reshaped(Shape{1, 4}))
      .input("b", i64s({3}))
      .output("y");
  expect_has(cuda_error(bad), "batch_indices: index 3 is out of range [0, 0]");
}
