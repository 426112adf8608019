#include "unit/providers/nn_test_helpers.hpp"

namespace tessera::test::nn {
namespace {

std::vector<float> iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[size_t(i)] = float(i);
  return v;
}

TEST(NnPool, MaxPoolCeilModeAddsPartialWindow) {
  // 4x4 input, kernel 3, stride 2: floor gives 1x1, ceil gives 2x2.
  auto x = f32(iota(16), Shape{1, 1, 4, 4});
  std::vector<ir::Attribute> a = {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2})};
  expect_near(run_node("MaxPool", {x}, a, 22)[0], {10}, Shape{1, 1, 1, 1});
  a.push_back(attr_int("ceil_mode", 1));
  expect_near(run_node("MaxPool", {x}, a, 22)[0], {10, 11, 14, 15}, Shape{1, 1, 2, 2});
}

TEST(NnPool, MaxPoolIndicesRowAndColumnMajor) {
  auto x = f32(iota(2 * 9), Shape{1, 2, 3, 3});
  std::vector<ir::Attribute> a = {attr_ints("kernel_shape", {2, 2})};
  auto out = run_node("MaxPool", {x}, a, 12, 2);
  expect_near(out[0], {4, 5, 7, 8, 13, 14, 16, 17}, Shape{1, 2, 2, 2});
  ASSERT_EQ(out[1].tensor().dtype(), DataType::kInt64);
  const int64_t* idx = out[1].tensor().data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(idx, idx + 8), (std::vector<int64_t>{4, 5, 7, 8, 13, 14, 16, 17}));
  a.push_back(attr_int("storage_order", 1));
  out = run_node("MaxPool", {x}, a, 12, 2);
  idx = out[1].tensor().data<int64_t>();
  // Column-major within each plane: (h, w) -> h + w * H.
  EXPECT_EQ(std::vector<int64_t>(idx, idx + 4), (std::vector<int64_t>{4, 7, 5, 8}));
}

TEST(NnPool, MaxPoolUInt8AndDilation) {
  std::vector<uint8_t> v(25);
  for (int i = 0; i < 25; ++i) v[size_t(i)] = uint8_t(i * 3);
  auto out = run_node("MaxPool", {Tensor::from_vector(v, Shape{1, 1, 5, 5})},
                      {attr_ints("kernel_shape", {2, 2}), attr_ints("dilations", {2, 2})}, 12);
  const uint8_t* y = out[0].tensor().data<uint8_t>();
  EXPECT_EQ(std::vector<uint8_t>(y, y + 9),
            (std::vector<uint8_t>{36, 39, 42, 51, 54, 57, 66, 69, 72}));
}

// 2-D MaxPool (the vector plane kernel) against the definition: the
// largest element of each window's part inside the image, for both
// signednesses and float (the border is each type's lowest value), windows that
// hang over every edge, and rows wider than a vector.
TEST(NnPool, MaxPoolPlanesMatchTheDefinition) {
  struct Geo {
    int64_t k, s, pad, dil, ceil;
  };
  struct Size {
    int64_t H, W;  // odd and even padded widths; rows wider than a vector
  };
  for (Geo geo : {Geo{3, 2, 1, 1, 0}, Geo{2, 1, 0, 1, 0}, Geo{3, 1, 1, 2, 0}, Geo{3, 2, 1, 1, 1},
                  Geo{5, 3, 2, 1, 1}, Geo{2, 2, 0, 1, 0}})
    for (Size size : {Size{11, 13}, Size{9, 70}, Size{6, 130}})
      for (DataType t : {DataType::kUInt8, DataType::kInt8, DataType::kFloat}) {
        const int64_t H = size.H, W = size.W;
        std::vector<uint8_t> v(size_t(2 * H * W));
        for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t((i * 97 + 31) % 251);
        auto value = [&](uint8_t b) {
          return t == DataType::kInt8    ? double(int8_t(b))
                 : t == DataType::kUInt8 ? double(b)
                                         : (double(b) - 100.0) * 0.5;
        };
        Tensor x(t, Shape{1, 2, H, W});
        for (size_t i = 0; i < v.size(); ++i) {
          if (t == DataType::kFloat)
            x.mutable_data<float>()[i] = float(value(v[i]));
          else
            static_cast<uint8_t*>(x.mutable_raw_data())[i] = v[i];
        }
        auto out = run_node(
            "MaxPool", {x},
            {attr_ints("kernel_shape", {geo.k, geo.k}), attr_ints("strides", {geo.s, geo.s}),
             attr_ints("pads", {geo.pad, geo.pad, geo.pad, geo.pad}),
             attr_ints("dilations", {geo.dil, geo.dil}), attr_int("ceil_mode", geo.ceil)},
            12);
        const Tensor& y = out[0].tensor();
        const int64_t OH = y.shape()[2], OW = y.shape()[3];
        for (int64_t c = 0; c < 2; ++c)
          for (int64_t oh = 0; oh < OH; ++oh)
            for (int64_t ow = 0; ow < OW; ++ow) {
              double best = -1e9;
              for (int64_t i = 0; i < geo.k; ++i)
                for (int64_t j = 0; j < geo.k; ++j) {
                  const int64_t r = oh * geo.s - geo.pad + i * geo.dil;
                  const int64_t q = ow * geo.s - geo.pad + j * geo.dil;
                  if (r >= 0 && r < H && q >= 0 && q < W)
                    best = std::max(best, value(v[size_t((c * H + r) * W + q)]));
                }
              ASSERT_EQ(y.element_as_double((c * OH + oh) * OW + ow), best)
                  << "k " << geo.k << " s " << geo.s << " pad " << geo.pad << " dil " << geo.dil
                  << " ceil " << geo.ceil << " " << data_type_name(t) << " " << H << "x" << W
                  << " at " << c << "," << oh << "," << ow;
            }
      }
}

TEST(NnPool, AveragePoolPadsWithAndWithoutCountIncludePad) {
  auto x = f32({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  std::vector<ir::Attribute> a = {attr_ints("kernel_shape", {2, 2}),
                                  attr_ints("pads", {1, 1, 1, 1})};
  // Output 3x3; corner windows see one value.
  expect_near(run_node("AveragePool", {x}, a, 19)[0], {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4},
              Shape{1, 1, 3, 3});
  a.push_back(attr_int("count_include_pad", 1));
  expect_near(run_node("AveragePool", {x}, a, 19)[0], {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1},
              Shape{1, 1, 3, 3});
}

TEST(NnPool, SameUpperPadsAtTheEnd) {
  auto x = f32(iota(5), Shape{1, 1, 5});
  auto out = run_node("MaxPool", {x},
                      {attr_ints("kernel_shape", {2}), attr_ints("strides", {2}),
                       attr_string("auto_pad", "SAME_UPPER")},
                      22);
  expect_near(out[0], {1, 3, 4}, Shape{1, 1, 3});
}

TEST(NnPool, LpPoolAndGlobalPools) {
  auto x = f32({3, 4, 0, 0}, Shape{1, 1, 2, 2});
  expect_near(run_node("LpPool", {x}, {attr_ints("kernel_shape", {2, 2}), attr_int("p", 2)}, 18)[0],
              {5}, Shape{1, 1, 1, 1});
  expect_near(run_node("GlobalAveragePool", {x})[0], {1.75}, Shape{1, 1, 1, 1});
  expect_near(run_node("GlobalMaxPool", {x})[0], {4}, Shape{1, 1, 1, 1});
  expect_near(run_node("GlobalLpPool", {x}, {}, 2)[0], {5}, Shape{1, 1, 1, 1});
}

TEST(NnPool, MaxUnpoolInvertsMaxPool) {
  auto out = run_node("MaxUnpool",
                      {f32({1, 2, 3, 4}, Shape{1, 1, 2, 2}),
                       Tensor::from_vector<int64_t>({5, 7, 13, 15}, Shape{1, 1, 2, 2})},
                      {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}, 22);
  expect_near(out[0], {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}, Shape{1, 1, 4, 4});
}

TEST(NnPool, MaxUnpoolRejectsOutOfRangeIndex) {
  auto err = error_of([] {
    run_node("MaxUnpool",
             {f32({1}, Shape{1, 1, 1, 1}), Tensor::from_vector<int64_t>({99}, Shape{1, 1, 1, 1})},
             {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}, 22);
  });
  EXPECT_NE(err.find("index 99"), std::string::npos) << err;
}

TEST(NnPool, MaxRoiPool) {
  auto x = f32(iota(16), Shape{1, 1, 4, 4});
  auto out = run_node("MaxRoiPool", {x, f32({0, 0, 0, 3, 3}, Shape{1, 5})},
                      {attr_ints("pooled_shape", {2, 2})}, 22);
  expect_near(out[0], {5, 7, 13, 15}, Shape{1, 1, 2, 2});
}

TEST(NnPool, KernelLargerThanInputIsAnError) {
  auto err = error_of([] {
    run_node("MaxPool", {f32(iota(4), Shape{1, 1, 2, 2})}, {attr_ints("kernel_shape", {3, 3})}, 22);
  });
  EXPECT_NE(err.find("kernel extent"), std::string::npos) << err;
}

// Window attributes past 2^31, and pads whose padded plane would pass 2^40
// positions, are errors for every windowed op (a 2^61 pad with a 2^62
// stride overflowed the padded copies' sizes and crashed Conv).
TEST(NnPool, HugeWindowsAreErrorsNotCrashes) {
  const int64_t big = int64_t(1) << 62, edge = (int64_t(1) << 31) - 1;
  const Tensor x = f32(iota(16), Shape{1, 1, 4, 4});
  const Tensor w = f32(iota(9), Shape{1, 1, 3, 3});
  for (const char* op : {"MaxPool", "AveragePool", "Conv"}) {
    std::vector<Value> in = {x};
    if (std::string(op) == "Conv") in.push_back(w);
    auto err = error_of([&] {
      run_node(op, in,
               {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {big, big}),
                attr_ints("pads", {1, 1, 1, 1})},
               11);
    });
    EXPECT_NE(err.find("above 2147483647"), std::string::npos) << op << ": " << err;
    err = error_of([&] {
      run_node(op, in,
               {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {edge, edge}),
                attr_ints("pads", {edge, edge, edge, edge})},
               11);
    });
    EXPECT_NE(err.find("larger than 2^40 positions"), std::string::npos) << op << ": " << err;
  }
}

}  // namespace
}  // namespace tessera::test::nn
