// Concat's shape rule, which the CPU and CUDA kernels and the optimizer's
// static shapes share.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/error.hpp"
#include "ops/shape_rules.hpp"

namespace tessera::test {

namespace {

std::string concat_error(const std::vector<Shape>& shapes, int64_t axis) {
  std::vector<const Shape*> in;
  for (const Shape& s : shapes) in.push_back(&s);
  try {
    size_t k = 0;
    ops::concat_shape(in, axis, &k);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ShapeRules, ConcatSumsTheAxisFromEitherEnd) {
  const Shape a{2, 3, 4}, b{2, 5, 4};
  size_t k = 9;
  EXPECT_EQ(ops::concat_shape({&a, &b}, 1, &k), (Shape{2, 8, 4}));
  EXPECT_EQ(k, 1u);
  EXPECT_EQ(ops::concat_shape({&a, &b}, -2, &k), (Shape{2, 8, 4}));
  EXPECT_EQ(k, 1u);
  const Shape empty{2, 0, 4};
  EXPECT_EQ(ops::concat_shape({&empty, &a}, 1, &k), (Shape{2, 3, 4}));
}

TEST(ShapeRules, ConcatErrorsNameTheShapes) {
  EXPECT_NE(concat_error({Shape{2, 3}, Shape{3, 3}}, 1).find("differ outside the concatenation"),
            std::string::npos);
  const std::string range = concat_error({Shape{2, 3}}, 2);
  EXPECT_NE(range.find("axis 2 is out of range"), std::string::npos) << range;
  EXPECT_NE(range.find("[2,3]"), std::string::npos) << range;
  EXPECT_NE(concat_error({Shape{}}, 0).find("scalars"), std::string::npos);
  EXPECT_NE(concat_error({Shape{2}, Shape{2, 1}}, 0).find("differ"), std::string::npos);
  constexpr int64_t kBig = std::numeric_limits<int64_t>::max() / 2 + 1;
  EXPECT_NE(concat_error({Shape{kBig}, Shape{kBig}}, 0).find("overflow"), std::string::npos);
}

}  // namespace tessera::test
