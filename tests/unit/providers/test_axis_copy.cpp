// The axis-map copy under Slice, Transpose and Pad: trailing axes whose
// source offsets run on are copied as one run (cut into pieces for the
// threads when rows are few), and the results match the element-by-element
// definitions, fills included.
#include "unit/providers/tensor_test_helpers.hpp"

namespace tessera::test {
namespace {

Tensor iota_f32(const Shape& s) {
  std::vector<float> v(size_t(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
  return f32(v, s);
}

// ShuffleNet's channel shuffle: [N, 2, C, H, W] -> [N, C, 2, H, W] keeps
// (H, W) together, a run of H * W per (n, c, g).
TEST(AxisCopy, TransposeKeepingTrailingAxes) {
  const int64_t N = 2, G = 2, C = 5, H = 3, W = 4;
  auto out =
      run_node("Transpose", {iota_f32(Shape{N, G, C, H, W})}, {attr_ints("perm", {0, 2, 1, 3, 4})});
  std::vector<float> want;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t g = 0; g < G; ++g)
        for (int64_t p = 0; p < H * W; ++p)
          want.push_back(float(((n * G + g) * C + c) * H * W + p));
  expect_f32(out[0], want, Shape{N, C, G, H, W}, 0.f);
}

// The tiled 2-D and batched transposes: full tiles of 32, partial tiles at
// both edges, and a page-sized row length.
TEST(AxisCopy, TiledTransposeEdgesAndBatches) {
  for (const Shape& s :
       {Shape{33, 70}, Shape{64, 32}, Shape{1, 5}, Shape{1024, 96}, Shape{3, 31, 65}}) {
    const bool batched = s.rank() == 3;
    const int64_t B = batched ? s[0] : 1, R = s[s.rank() - 2], C = s[s.rank() - 1];
    auto out = run_node(
        "Transpose", {iota_f32(s)},
        {attr_ints("perm", batched ? std::vector<int64_t>{0, 2, 1} : std::vector<int64_t>{1, 0})});
    std::vector<float> want;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t r = 0; r < R; ++r) want.push_back(float((b * R + r) * C + c));
    expect_f32(out[0], want, batched ? Shape{B, C, R} : Shape{C, R}, 0.f);
  }
}

// A channel slice of an image is one run per image; a strided last axis is
// not a run and takes the element path.
TEST(AxisCopy, SliceRunsAndStrides) {
  const Tensor x = iota_f32(Shape{2, 6, 3, 5});
  auto out = run_node("Slice", {x, i64v({2}), i64v({5}), i64v({1})});
  std::vector<float> want;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 2; c < 5; ++c)
      for (int64_t p = 0; p < 15; ++p) want.push_back(float((n * 6 + c) * 15 + p));
  expect_f32(out[0], want, Shape{2, 3, 3, 5}, 0.f);
  out = run_node("Slice", {x, i64v({1, 4}), i64v({3, 0}), i64v({1, 3}), i64v({1, -2})});
  want.clear();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 1; c < 3; ++c)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t w = 4; w > 0; w -= 2) want.push_back(float(((n * 6 + c) * 3 + h) * 5 + w));
  expect_f32(out[0], want, Shape{2, 2, 3, 2}, 0.f);
}

// Rows of 50000 floats, three of them: each row is cut into pieces the two
// threads share, and the padded rows are filled piece by piece too.
TEST(AxisCopy, LongRowsInPiecesWithFills) {
  const int64_t L = 50000;
  const Tensor x = iota_f32(Shape{1, L});
  auto out = run_node("Pad", {x, i64v({1, 0, 1, 0}), f32({7.f}, Shape{})});
  ASSERT_EQ(out[0].tensor().shape(), (Shape{3, L}));
  const float* y = out[0].tensor().data<float>();
  for (int64_t i = 0; i < L; ++i) {
    ASSERT_EQ(y[i], 7.f) << i;
    ASSERT_EQ(y[L + i], float(i)) << i;
    ASSERT_EQ(y[2 * L + i], 7.f) << i;
  }
  // A slice that starts mid-row: one run from an offset, in pieces.
  out = run_node("Slice", {iota_f32(Shape{2, L}), i64v({1, 3}), i64v({2, L}), i64v({0, 1})});
  ASSERT_EQ(out[0].tensor().shape(), (Shape{1, L - 3}));
  y = out[0].tensor().data<float>();
  for (int64_t i = 0; i < L - 3; ++i) ASSERT_EQ(y[i], float(L + 3 + i)) << i;
}

// Slices narrowed on one axis with step 1 are copied as one run per index
// of the axes before it: a gate of a recurrent cell's [1, 3H] projection, a
// middle axis, a whole tensor, and more rows than the runs take (the maps).
TEST(AxisCopy, SliceOfOneAxisAsRuns) {
  struct Case {
    Shape shape;
    int64_t axis, begin, end;
  };
  const Case cases[] = {{Shape{1, 768}, 1, 256, 512},
                        {Shape{3, 7, 4}, 1, 2, 6},
                        {Shape{2, 5}, 0, 0, 2},
                        {Shape{100, 6}, 1, 1, 4},
                        {Shape{70, 3, 2}, 0, 3, 69}};
  for (const Case& c : cases) {
    const Tensor x = iota_f32(c.shape);
    auto out = run_node("Slice", {x, i64v({c.begin}), i64v({c.end}), i64v({c.axis})});
    std::vector<int64_t> dims = c.shape.dims();
    dims[size_t(c.axis)] = c.end - c.begin;
    const Shape ys(dims);
    const int64_t outer = ys.size_to(size_t(c.axis));
    const int64_t inner = ys.num_elements() / (outer * dims[size_t(c.axis)]);
    std::vector<float> want;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = c.begin; i < c.end; ++i)
        for (int64_t t = 0; t < inner; ++t)
          want.push_back(float((o * c.shape[size_t(c.axis)] + i) * inner + t));
    expect_f32(out[0], want, ys, 0.f);
  }
}

// Pads and crops of the last axis: each row is a few runs (fill, copy,
// fill), checked against the element-by-element definition; reflect and a
// map of one-element runs take the gather.
TEST(AxisCopy, LastAxisPadsAsRuns) {
  struct Case {
    int64_t rows, len, begin, end;  // last-axis pads (negative: crop)
    const char* mode;
  };
  const Case cases[] = {{3, 40, 8, 0, "constant"},   {5, 33, 2, 9, "constant"},
                        {2, 50, -3, 12, "constant"}, {4, 20, 10, -5, "constant"},
                        {3, 9, 1, 1, "constant"},    {2, 30, 4, 3, "reflect"},
                        {2, 30, 5, 6, "edge"}};
  for (const Case& c : cases) {
    const Tensor x = iota_f32(Shape{c.rows, c.len});
    std::vector<Value> in = {Value(x), Value(i64v({0, c.begin, 0, c.end}))};
    if (std::string(c.mode) == "constant") in.push_back(Value(f32({-1.f}, Shape{})));
    auto out = run_node("Pad", in, {attr_string("mode", c.mode)});
    const int64_t w = c.len + c.begin + c.end;
    std::vector<float> want;
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t i = 0; i < w; ++i) {
        int64_t k = i - c.begin;
        if (k < 0 || k >= c.len) {
          if (std::string(c.mode) == "constant") {
            want.push_back(-1.f);
            continue;
          }
          if (std::string(c.mode) == "edge")
            k = k < 0 ? 0 : c.len - 1;
          else
            k = k < 0 ? -k : 2 * (c.len - 1) - k;
        }
        want.push_back(float(r * c.len + k));
      }
    expect_f32(out[0], want, Shape{c.rows, w}, 0.f);
  }
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// A Concat (and Split) big enough to be copied in pieces by the threads: two images of
// different channel counts and a batch of two, along the channels, and
// int8 (one-byte elements) the same way.
TEST(AxisCopy, LargeConcatInPieces) {
  const int64_t H = 120, W = 130;
  const Tensor a = iota_f32(Shape{2, 5, H, W});
  std::vector<float> bv(size_t(2 * 3 * H * W));
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = -float(i);
  const Tensor b = f32(bv, Shape{2, 3, H, W});
  auto out = run_node("Concat", {a, b}, {attr_int("axis", 1)});
  ASSERT_EQ(out[0].tensor().shape(), (Shape{2, 8, H, W}));
  const float* y = out[0].tensor().data<float>();
  const int64_t plane = H * W;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 8; ++c)
      for (int64_t p = 0; p < plane; p += 7) {
        const float want =
            c < 5 ? float((n * 5 + c) * plane + p) : -float((n * 3 + c - 5) * plane + p);
        ASSERT_EQ(y[(n * 8 + c) * plane + p], want) << n << " " << c << " " << p;
      }
  // And Split takes it apart again, in pieces too.
  auto parts = run_node("Split", {out[0], i64v({5, 3})}, {attr_int("axis", 1)}, 13, 2);
  ASSERT_EQ(parts[0].tensor().shape(), a.shape());
  ASSERT_EQ(parts[1].tensor().shape(), b.shape());
  for (int k = 0; k < 2; ++k) {
    const Tensor& want = k ? b : a;
    for (int64_t i = 0; i < want.num_elements(); ++i)
      ASSERT_EQ(parts[size_t(k)].tensor().data<float>()[i], want.data<float>()[i]) << k << " " << i;
  }
  std::vector<int8_t> iv(size_t(600000));
  for (size_t i = 0; i < iv.size(); ++i) iv[i] = int8_t(i % 251);
  const Tensor ia = Tensor::from_vector<int8_t>(iv, Shape{1, 600000});
  out = run_node("Concat", {ia, ia}, {attr_int("axis", 0)});
  const int8_t* yi = out[0].tensor().data<int8_t>();
  for (size_t i = 0; i < 1200000; ++i) ASSERT_EQ(yi[i], iv[i % 600000]) << i;
}

}  // namespace
}  // namespace tessera::test
