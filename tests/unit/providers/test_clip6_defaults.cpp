// Clip before opset 11 takes its bounds as attributes; absent ones stand for
// the schema's defaults, -/+3.402823e+38 (the spec's FLT_MAX), so infinities
// are clamped to them rather than passed through.
#include <limits>

#include "ops/schema.hpp"
#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

TEST(ClipDefaults, Opset6BoundsAreTheSchemaDefaults) {
  const ir::Node clip = make_node("Clip", {"X"}, {"Y"});
  const ops::OpSchema& s = ops::schema_of(clip, 6);
  EXPECT_FLOAT_EQ(s.attr_float(clip, "min"), -3.402823e+38f);
  EXPECT_FLOAT_EQ(s.attr_float(clip, "max"), 3.402823e+38f);
  const float inf = std::numeric_limits<float>::infinity();
  auto r = run1("Clip", {tv<float>({-inf, -2, 0, 2, inf})}, {}, 6);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{-3.402823e+38f, -2, 0, 2, 3.402823e+38f}));
  r = run1("Clip", {tv<float>({-inf, 5, inf})}, {attr_float("max", 1)}, 6);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{-3.402823e+38f, 1, 1}));
}

}  // namespace tessera::test
