#include "unit/providers/tensor_test_helpers.hpp"

namespace tessera::test {
namespace {

TEST(TensorReshape, InfersAndCopiesDims) {
  Tensor x = f32({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto out = run_node("Reshape", {x, i64v({0, -1})});
  expect_f32(out[0], {1, 2, 3, 4, 5, 6}, Shape{2, 3});
  out = run_node("Reshape", {x, i64v({-1})});
  EXPECT_EQ(out[0].tensor().shape(), Shape{6});
  // zero-copy: the output shares the input buffer
  EXPECT_EQ(out[0].tensor().raw_data(), x.raw_data());
}

TEST(TensorReshape, ImpossibleShapeNamesBoth) {
  Tensor x = f32({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  std::string e = error_of("Reshape", {x, i64v({4, -1})});
  EXPECT_NE(e.find("[2,3]"), std::string::npos) << e;
  EXPECT_NE(e.find("[4,-1]"), std::string::npos) << e;
  EXPECT_NE(error_of("Reshape", {x, i64v({-1, -1})}), "");
}

TEST(TensorReshape, AllowZeroAndOpset1Attr) {
  Tensor x = f32({}, Shape{0, 3});
  auto out = run_node("Reshape", {x, i64v({3, 0})}, {attr_int("allowzero", 1)}, 14);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{3, 0}));
  Tensor y = f32({1, 2, 3, 4}, Shape{4});
  out = run_node("Reshape", {y}, {attr_ints("shape", {2, 2})}, 4);
  expect_f32(out[0], {1, 2, 3, 4}, Shape{2, 2});
}

TEST(TensorReshape, StringsAndScalars) {
  auto out = run_node("Reshape", {strs({"a", "b"}, Shape{2}), i64v({1, 2})});
  EXPECT_EQ(values_of<std::string>(out[0]), (std::vector<std::string>{"a", "b"}));
  out = run_node("Reshape", {f32({7}, Shape{1, 1}), i64({}, Shape{0})});
  EXPECT_EQ(out[0].tensor().shape(), Shape{});
}

TEST(TensorFlatten, NegativeAndZeroAxis) {
  Tensor x = f32(std::vector<float>(24, 1.f), Shape{2, 3, 4});
  EXPECT_EQ(run_node("Flatten", {x}, {attr_int("axis", -1)})[0].tensor().shape(), (Shape{6, 4}));
  EXPECT_EQ(run_node("Flatten", {x}, {attr_int("axis", 0)})[0].tensor().shape(), (Shape{1, 24}));
  EXPECT_NE(error_of("Flatten", {x}, {attr_int("axis", 4)}), "");
}

TEST(TensorSqueeze, AttrAndInputAxes) {
  Tensor x = f32({1, 2, 3}, Shape{1, 3, 1});
  EXPECT_EQ(run_node("Squeeze", {x})[0].tensor().shape(), Shape{3});
  EXPECT_EQ(run_node("Squeeze", {x, i64v({-1})})[0].tensor().shape(), (Shape{1, 3}));
  EXPECT_EQ(run_node("Squeeze", {x}, {attr_ints("axes", {0})}, 11)[0].tensor().shape(),
            (Shape{3, 1}));
  EXPECT_NE(error_of("Squeeze", {x, i64v({1})}), "");
}

TEST(TensorUnsqueeze, NegativeAxesAndScalar) {
  Tensor x = f32({5}, Shape{});
  EXPECT_EQ(run_node("Unsqueeze", {x, i64v({0, -1})})[0].tensor().shape(), (Shape{1, 1}));
  Tensor y = f32({1, 2, 3}, Shape{3});
  EXPECT_EQ(run_node("Unsqueeze", {y}, {attr_ints("axes", {1})}, 11)[0].tensor().shape(),
            (Shape{3, 1}));
  EXPECT_NE(error_of("Unsqueeze", {y, i64v({0, 0})}), "");
}

TEST(TensorIdentity, PassesTensorsAndSequences) {
  Tensor x = strs({"x"}, Shape{1});
  auto out = run_node("Identity", {x});
  EXPECT_EQ(out[0].tensor().raw_data(), x.raw_data());
  Value seq = Value::sequence({Value(f32({1}, Shape{1}))}, DataType::kFloat);
  out = run_node("Identity", {seq});
  ASSERT_TRUE(out[0].is_sequence());
  EXPECT_EQ(out[0].seq().size(), 1u);
}

TEST(TensorShape, StartEndAndSize) {
  Tensor x = f32(std::vector<float>(24, 0.f), Shape{2, 3, 4});
  EXPECT_EQ(values_of<int64_t>(run_node("Shape", {x})[0]), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(values_of<int64_t>(run_node("Shape", {x}, {attr_int("start", -2)})[0]),
            (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(
      values_of<int64_t>(run_node("Shape", {x}, {attr_int("start", 1), attr_int("end", -1)})[0]),
      (std::vector<int64_t>{3}));
  EXPECT_EQ(values_of<int64_t>(run_node("Size", {x})[0]), (std::vector<int64_t>{24}));
  EXPECT_EQ(run_node("Shape", {f32({1}, Shape{})})[0].tensor().shape(), Shape{0});
}

TEST(TensorShape, SubByteTypesReshape) {
  Tensor x(DataType::kInt4, Shape{4});
  auto* b = static_cast<uint8_t*>(x.mutable_raw_data());
  b[0] = 0x21;
  b[1] = 0x43;
  auto out = run_node("Reshape", {x, i64v({2, 2})});
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kInt4);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 2}));
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// DepthToSpace from the spec's reshape-transpose-reshape, written as the
// index each output element reads: DCR y[n, c, h*b+i, w*b+j] = x[n, (i*b+j)*C
// + c, h, w], CRD x[n, c*b*b + i*b + j, h, w]. Block 3 over two images, both
// modes, float and strings; SpaceToDepth (DCR's inverse) gives x back.
TEST(TensorDepthToSpace, BothModesMatchTheDefinition) {
  const int64_t N = 2, C = 2, b = 3, H = 3, W = 4;
  const Shape xs{N, C * b * b, H, W}, ys{N, C, H * b, W * b};
  std::vector<float> x(size_t(xs.num_elements()));
  for (size_t k = 0; k < x.size(); ++k) x[k] = float(k);
  for (const char* mode : {"DCR", "CRD"}) {
    SCOPED_TRACE(mode);
    const bool crd = std::string(mode) == "CRD";
    std::vector<float> want;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t hh = 0; hh < H * b; ++hh)
          for (int64_t ww = 0; ww < W * b; ++ww) {
            const int64_t h = hh / b, i = hh % b, w = ww / b, j = ww % b;
            const int64_t chan = crd ? c * b * b + i * b + j : (i * b + j) * C + c;
            want.push_back(x[size_t(((n * C * b * b + chan) * H + h) * W + w)]);
          }
    const std::vector<ir::Attribute> attrs = {attr_int("blocksize", b), attr_string("mode", mode)};
    auto out = run_node("DepthToSpace", {f32(x, xs)}, attrs, 13);
    expect_f32(out[0], want, ys, 0.f);
    std::vector<std::string> sx, sw;
    for (float v : x) sx.push_back(std::to_string(int(v)));
    for (float v : want) sw.push_back(std::to_string(int(v)));
    auto s_out = run_node("DepthToSpace", {strs(sx, xs)}, attrs, 13);
    EXPECT_EQ(values_of<std::string>(s_out[0]), sw);
    if (!crd) {
      auto back = run_node("SpaceToDepth", {out[0].tensor()}, {attr_int("blocksize", b)}, 13);
      expect_f32(back[0], x, xs, 0.f);
    }
  }
}

}  // namespace
}  // namespace tessera::test
