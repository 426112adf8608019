// Concat's shape rule in the schema table, which the CPU and CUDA kernels and
// the optimizer's static shapes share.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/error.hpp"
#include "ops/schema.hpp"
#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

ir::Node concat_node(size_t inputs, int64_t axis) {
  static const std::vector<std::string> kIn = {"X0", "X1", "X2"};
  return make_node("Concat", {kIn.begin(), kIn.begin() + int64_t(inputs)}, {"Y"},
                   {attr_int("axis", axis)});
}

// Concat-13's output for inputs of `shapes` (metadata-only tensors).
Shape concat(const std::vector<Shape>& shapes, int64_t axis) {
  std::vector<Tensor> in;
  for (const Shape& s : shapes) in.push_back(Tensor::metadata_only(DataType::kFloat, s));
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : in) ptrs.push_back(&t);
  const ir::Node n = concat_node(shapes.size(), axis);
  return ops::output_shape(ops::schema_of(n, 13), n, 13, ptrs);
}

std::string concat_error(const std::vector<Shape>& shapes, int64_t axis) {
  try {
    concat(shapes, axis);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ShapeRules, ConcatSumsTheAxisFromEitherEnd) {
  const Shape a{2, 3, 4}, b{2, 5, 4};
  EXPECT_EQ(concat({a, b}, 1), (Shape{2, 8, 4}));
  EXPECT_EQ(concat({a, b}, -2), (Shape{2, 8, 4}));
  EXPECT_EQ(concat({Shape{2, 0, 4}, a}, 1), (Shape{2, 3, 4}));
}

TEST(ShapeRules, ConcatErrorsNameTheNodeAndShapes) {
  const std::string differ = concat_error({Shape{2, 3}, Shape{3, 3}}, 1);
  EXPECT_NE(differ.find("differ outside the concatenation"), std::string::npos) << differ;
  EXPECT_NE(differ.find("Concat"), std::string::npos) << differ;
  const std::string range = concat_error({Shape{2, 3}}, 2);
  EXPECT_NE(range.find("axis 2 is out of range"), std::string::npos) << range;
  EXPECT_NE(range.find("[2,3]"), std::string::npos) << range;
  EXPECT_NE(concat_error({Shape{}}, 0).find("scalars"), std::string::npos);
  EXPECT_NE(concat_error({Shape{2}, Shape{2, 1}}, 0).find("differ"), std::string::npos);
  constexpr int64_t kBig = std::numeric_limits<int64_t>::max() / 2 + 1;
  EXPECT_NE(concat_error({Shape{kBig}, Shape{kBig}}, 0).find("overflow"), std::string::npos);
}

}  // namespace tessera::test
