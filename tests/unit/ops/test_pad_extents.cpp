// Pad's per-axis rule (ops/pad_extents.hpp), which the CPU and CUDA kernels
// share: which axes the pads land on, the output dims, and the refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "ops/pad_extents.hpp"
#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

std::string pad_error(const Shape& in, const std::vector<int64_t>& pads,
                      const std::vector<int64_t>& axes) {
  const ir::Node n = make_node("Pad", {"X", "pads"}, {"Y"}, {});
  try {
    ops::pad_extents(n, in, pads, axes);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PadExtents, EveryAxisWhenNoAxesAreGiven) {
  const ir::Node n = make_node("Pad", {"X", "pads"}, {"Y"}, {});
  const ops::PadExtents e = ops::pad_extents(n, Shape{2, 5, 7}, {0, 1, -2, 0, 3, 1}, {});
  EXPECT_EQ(e.begin, (std::vector<int64_t>{0, 1, -2}));
  EXPECT_EQ(e.end, (std::vector<int64_t>{0, 3, 1}));
  EXPECT_EQ(e.dims, (std::vector<int64_t>{2, 9, 6}));
}

TEST(PadExtents, AxesPlaceThePadsAndMayBeNegative) {
  const ir::Node n = make_node("Pad", {"X", "pads", "", "axes"}, {"Y"}, {});
  const ops::PadExtents e = ops::pad_extents(n, Shape{2, 5, 7}, {4, 1, 0, 2}, {-1, 0});
  EXPECT_EQ(e.begin, (std::vector<int64_t>{1, 0, 4}));
  EXPECT_EQ(e.end, (std::vector<int64_t>{2, 0, 0}));
  EXPECT_EQ(e.dims, (std::vector<int64_t>{5, 5, 11}));
}

TEST(PadExtents, RefusalsNameWhatIsWrong) {
  EXPECT_NE(pad_error(Shape{2, 3}, {1, 1, 1}, {}).find("should have 4 entries"), std::string::npos);
  EXPECT_NE(pad_error(Shape{2, 3}, {1, 1}, {2}).find("axis 2 is out of range"), std::string::npos);
  EXPECT_NE(pad_error(Shape{2, 3}, {0, -2, 0, -2}, {}).find("remove more than axis 1"),
            std::string::npos);
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_NE(pad_error(Shape{2, 3}, {0, big, 0, 0}, {}).find("overflow axis 1"), std::string::npos);
  const int64_t least = std::numeric_limits<int64_t>::min();
  EXPECT_NE(pad_error(Shape{2, 3}, {least, 0, 0, 0}, {}).find("overflow axis 0"),
            std::string::npos);
  EXPECT_EQ(pad_error(Shape{2, 3}, {0, 0, 0, 0}, {}), "");
}

}  // namespace tessera::test
