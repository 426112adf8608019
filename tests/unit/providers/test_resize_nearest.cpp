// Nearest Resize goes through the axis-map copy, whose last-axis loop copies
// a row that reads the same input row as the one before it (the repeated
// rows of an upsampling) and fills columns that repeat each input element
// by runs. Checked against the spec's formula: factors 2 and 3, fractional
// factors (columns gathered), a shrink (no repeats), and an extrapolated
// (filled) border with tf_crop_and_resize.
#include <cmath>
#include <string>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

TEST(ResizeNearest, RepeatedRowsMatchTheFormula) {
  struct Case {
    Shape in;
    std::vector<int64_t> sizes;
  };
  const Case cases[] = {{Shape{1, 3, 5, 7}, {1, 3, 10, 14}},
                        {Shape{2, 2, 4, 6}, {2, 2, 11, 9}},
                        {Shape{1, 2, 9, 8}, {1, 2, 4, 3}},
                        {Shape{1, 1, 3, 4}, {1, 1, 9, 12}},
                        {Shape{1, 2, 3, 1}, {1, 2, 6, 2}}};
  for (const Case& c : cases) {
    std::vector<float> x(size_t(c.in.num_elements()));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) * 0.5f - 3.0f;
    const Shape ss{int64_t(c.sizes.size())};
    auto r =
        vec<float>(run1("Resize", {tv<float>(x, c.in), Value(), Value(), tv<int64_t>(c.sizes, ss)},
                        {attr_string("mode", "nearest"),
                         attr_string("coordinate_transformation_mode", "asymmetric"),
                         attr_string("nearest_mode", "floor")},
                        19));
    const int64_t H = c.in[2], W = c.in[3], OH = c.sizes[2], OW = c.sizes[3];
    ASSERT_EQ(int64_t(r.size()), c.sizes[0] * c.sizes[1] * OH * OW);
    for (int64_t p = 0; p < c.sizes[0] * c.sizes[1]; ++p)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const auto ih = int64_t(std::floor(double(oh) * double(H) / double(OH)));
          const auto iw = int64_t(std::floor(double(ow) * double(W) / double(OW)));
          ASSERT_EQ(r[size_t((p * OH + oh) * OW + ow)], x[size_t((p * H + ih) * W + iw)])
              << c.in.to_string() << " plane " << p << " at " << oh << "," << ow;
        }
  }
}

TEST(ResizeNearest, FilledRowsAreNotRepeatedFromTheirNeighbours) {
  // Crop beyond the input: rows and columns outside take the extrapolation
  // value; rows inside that read the same input row repeat it.
  std::vector<float> x = {1, 2, 3, 4};
  auto roi = tv<float>({0, 0, -0.25f, 0, 1, 1, 1.25f, 1}, Shape{8});
  auto r = vec<float>(
      run1("Resize",
           {tv<float>(x, Shape{1, 1, 2, 2}), roi, Value(), tv<int64_t>({1, 1, 7, 2}, Shape{4})},
           {attr_string("mode", "nearest"),
            attr_string("coordinate_transformation_mode", "tf_crop_and_resize"),
            attr_float("extrapolation_value", -7.0f)},
           19));
  ASSERT_EQ(r.size(), 14u);
  // in_y = -0.25 + oh * 1.5 / 6: -0.25 (outside), 0, 0.25, 0.5 (row 0 by
  // round_prefer_floor), 0.75, 1 (row 1), 1.25 (outside).
  const std::vector<float> want = {-7, -7, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, -7, -7};
  EXPECT_EQ(r, want);
}

}  // namespace tessera::test
