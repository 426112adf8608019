#include <gtest/gtest.h>

#include "core/error.hpp"
#include "ops/broadcast.hpp"

using namespace tessera;
using namespace tessera::ops;

TEST(OpsBroadcast, ShapesFollowNumpyRules) {
  EXPECT_EQ(broadcast_shapes({Shape{2, 1, 4}, Shape{3, 1}}), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({Shape{}, Shape{5}}), (Shape{5}));
  EXPECT_EQ(broadcast_shapes({Shape{0, 3}, Shape{1, 3}}), (Shape{0, 3}));
  EXPECT_EQ(broadcast_shapes({Shape{1, 1, 1, 1, 1, 6}, Shape{2, 1, 3, 1, 5, 1}}),
            (Shape{2, 1, 3, 1, 5, 6}));
}

TEST(OpsBroadcast, MismatchNamesBothShapes) {
  try {
    broadcast_shapes({Shape{2, 3}, Shape{4}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("[2,3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[4]"), std::string::npos) << m;
  }
}

TEST(OpsBroadcast, IndexerVisitsEveryElementWithTheRightOffsets) {
  // out[i,j,k] = a[i,0,k] + b[j,0]: check every offset against direct indexing.
  Shape a{2, 1, 4}, b{3, 1};
  Shape out = broadcast_shapes({a, b});
  BroadcastIndexer bi({a, b}, out);
  std::vector<int> seen(size_t(out.num_elements()), 0);
  for_each_broadcast_row(bi, 0, bi.num_rows(), [&](int64_t start, const int64_t* off, int64_t n) {
    for (int64_t t = 0; t < n; ++t) {
      int64_t idx = start + t;
      int64_t i = idx / 12, j = (idx / 4) % 3, k = idx % 4;
      EXPECT_EQ(off[0] + t * bi.inner_stride(0), i * 4 + k) << idx;
      EXPECT_EQ(off[1] + t * bi.inner_stride(1), j) << idx;
      ++seen[size_t(idx)];
    }
  });
  for (int c : seen) EXPECT_EQ(c, 1);
}

TEST(OpsBroadcast, ZeroSizedOutputHasNoRows) {
  BroadcastIndexer bi({Shape{0, 3}, Shape{3}}, Shape{0, 3});
  EXPECT_EQ(bi.num_rows() * bi.inner(), 0);
}
