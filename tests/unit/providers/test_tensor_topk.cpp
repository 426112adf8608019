// TopK against a stable sort of each line: values from a small set (many
// ties, which go in index order), NaN ranking above every number, k from 0
// to the whole axis (the sorted-array and the heap forms), both orders,
// contiguous and strided axes, lines with and without whole blocks of 16.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "unit/providers/tensor_test_helpers.hpp"

namespace tessera::test {
namespace {

bool ranks_above(float a, float b) {
  if (std::isnan(b)) return false;
  if (std::isnan(a)) return true;
  return a > b;
}

void check_topk(const Shape& s, int64_t axis, int64_t k, bool largest, bool nans, uint32_t seed) {
  SCOPED_TRACE(s.to_string() + " axis " + std::to_string(axis) + " k " + std::to_string(k) +
               (largest ? " largest" : " smallest") + (nans ? " with NaN" : ""));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> u(-20, 20), pick(0, 40);
  std::vector<float> x(static_cast<size_t>(s.num_elements()));
  for (float& v : x) {
    v = float(u(gen)) * 0.25f;
    if (nans && pick(gen) == 0) v = std::numeric_limits<float>::quiet_NaN();
  }
  auto out = run_node("TopK", {f32(x, s), i64v({k})},
                      {attr_int("axis", axis), attr_int("largest", largest ? 1 : 0)}, 11, 2);
  const int64_t a = axis < 0 ? axis + int64_t(s.rank()) : axis;
  const int64_t outer = s.size_to(size_t(a)), dim = s[size_t(a)],
                inner = s.size_from(size_t(a) + 1);
  const auto vals = values_of<float>(out[0]);
  const auto idx = values_of<int64_t>(out[1]);
  ASSERT_EQ(int64_t(idx.size()), outer * k * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> order(static_cast<size_t>(dim));
      std::iota(order.begin(), order.end(), 0);
      auto at = [&](int64_t j) { return x[size_t((o * dim + j) * inner + i)]; };
      std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
        return largest ? ranks_above(at(p), at(q)) : ranks_above(at(q), at(p));
      });
      for (int64_t j = 0; j < k; ++j) {
        const size_t g = size_t((o * k + j) * inner + i);
        ASSERT_EQ(idx[g], order[size_t(j)]) << "line " << o << "," << i << " rank " << j;
        const float want = at(order[size_t(j)]);
        if (std::isnan(want))
          ASSERT_TRUE(std::isnan(vals[g]));
        else
          ASSERT_EQ(vals[g], want);
      }
    }
}

TEST(TensorTopK, MatchesStableSort) {
  uint32_t seed = 1;
  for (bool largest : {true, false})
    for (bool nans : {false, true}) {
      for (int64_t k : {0, 1, 5, 32, 33, 100, 203})
        check_topk(Shape{3, 203}, -1, k, largest, nans, seed++);
      for (int64_t k : {1, 7, 40}) check_topk(Shape{2, 40, 5}, 1, k, largest, nans, seed++);
      // Rows of at least 16k (candidates from chunk bests), sorted-array and
      // heap forms, with a remainder past the last whole chunk.
      check_topk(Shape{1, 1000}, 1, 10, largest, nans, seed++);
      check_topk(Shape{2, 1203}, 1, 40, largest, nans, seed++);
      check_topk(Shape{3, 4099}, -1, 1, largest, nans, seed++);
      check_topk(Shape{17}, 0, 17, largest, nans, seed++);
    }
}

}  // namespace
}  // namespace tessera::test
