// Resize's float path for the last two axes (resize_planes_float) against
// the same node on double inputs, which takes the generic separable path:
// linear and cubic, up and down, antialiased, align_corners, a batch of
// planes, and a leading axis resized too (float then takes the generic path);
// and a resize to the same size, which is a copy.
#include <random>
#include <string>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

TEST(ResizeFloat, LastTwoAxesMatchTheGenericPath) {
  struct Case {
    Shape in;
    std::vector<int64_t> sizes;
    const char* mode;
    const char* coord;
    int64_t antialias;
  };
  const Case cases[] = {
      {Shape{2, 3, 7, 9}, {2, 3, 28, 36}, "linear", "half_pixel", 0},
      {Shape{1, 4, 10, 12}, {1, 4, 5, 7}, "linear", "half_pixel", 1},
      {Shape{1, 2, 6, 5}, {1, 2, 13, 11}, "cubic", "align_corners", 0},
      {Shape{1, 2, 9, 9}, {1, 2, 4, 4}, "cubic", "pytorch_half_pixel", 1},
      {Shape{3, 8}, {5, 17}, "linear", "asymmetric", 0},
      {Shape{2, 3, 4, 5}, {4, 3, 8, 10}, "linear", "half_pixel", 0},  // N resized: generic
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-2, 2);
  for (const Case& c : cases) {
    std::vector<double> xd(size_t(c.in.num_elements()));
    for (auto& v : xd) v = float(u(rng));
    const std::vector<float> xf(xd.begin(), xd.end());
    const Shape ss{int64_t(c.sizes.size())};
    std::vector<ir::Attribute> attrs = {attr_string("mode", c.mode),
                                        attr_string("coordinate_transformation_mode", c.coord),
                                        attr_int("antialias", c.antialias)};
    auto rf = run1("Resize", {tv<float>(xf, c.in), Value(), Value(), tv<int64_t>(c.sizes, ss)},
                   attrs, 19);
    auto rd = run1("Resize", {tv<double>(xd, c.in), Value(), Value(), tv<int64_t>(c.sizes, ss)},
                   attrs, 19);
    const std::string at = std::string(c.mode) + " " + c.coord + " " + c.in.to_string();
    ASSERT_EQ(rf.shape(), Shape(c.sizes)) << at;
    auto vf = vec<float>(rf);
    auto vd = vec<double>(rd);
    for (size_t i = 0; i < vf.size(); ++i)
      ASSERT_NEAR(double(vf[i]), vd[i], 1e-5 * (1 + std::abs(vd[i]))) << at << " at " << i;
  }
}

// A resize to the input's own size (a detector's input transform) is the
// input itself, bit for bit, in every mode.
TEST(ResizeFloat, SameSizeIsACopy) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-100, 100);
  std::vector<float> x(size_t(2 * 3 * 17 * 13));
  for (auto& v : x) v = u(rng);
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    auto r = run1(
        "Resize",
        {tv<float>(x, Shape{2, 3, 17, 13}), Value(), Value(),
         tv<int64_t>({2, 3, 17, 13}, Shape{4})},
        {attr_string("mode", mode), attr_string("coordinate_transformation_mode", "half_pixel")},
        19);
    ASSERT_EQ(r.shape(), (Shape{2, 3, 17, 13})) << mode;
    EXPECT_EQ(vec<float>(r), x) << mode;
  }
}

}  // namespace tessera::test
