// Float ReduceMax/ReduceMin over contiguous runs and float ArgMax/ArgMin run
// vector loops; double inputs keep the generic loops, so the same node in
// both types checks one against the other (NaN, infinities and ties included).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::run_node;

// Values from a small set, so ties are common; NaN and infinities sprinkled
// in when `specials`.
std::vector<float> values(int64_t n, uint32_t seed, bool specials) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> u(-6, 6), pick(0, 60);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) {
    x = float(u(gen)) * 0.5f;
    if (!specials) continue;
    const int p = pick(gen);
    if (p == 0) x = std::numeric_limits<float>::quiet_NaN();
    if (p == 1) x = std::numeric_limits<float>::infinity();
    if (p == 2) x = -std::numeric_limits<float>::infinity();
  }
  return v;
}

void expect_same(const Tensor& f, const Tensor& g) {
  ASSERT_EQ(f.shape(), g.shape());
  for (int64_t i = 0; i < f.num_elements(); ++i) {
    const double a = f.element_as_double(i), b = g.element_as_double(i);
    if (std::isnan(b))
      ASSERT_TRUE(std::isnan(a)) << "at " << i;
    else
      ASSERT_EQ(a, b) << "at " << i;
  }
}

void check(const std::string& op, const Shape& s, const std::vector<ir::Attribute>& attrs,
           bool specials, uint32_t seed, std::vector<Value> extra = {}) {
  SCOPED_TRACE(op + " " + s.to_string() + (specials ? " with NaN/inf" : ""));
  const std::vector<float> v = values(s.num_elements(), seed, specials);
  std::vector<Value> fin{Tensor::from_vector(v, s)},
      din{Tensor::from_vector(std::vector<double>(v.begin(), v.end()), s)};
  for (const Value& e : extra) {
    fin.push_back(e);
    din.push_back(e);
  }
  const Value f = run_node(op, fin, attrs, 18)[0];
  const Value g = run_node(op, din, attrs, 18)[0];
  expect_same(f.tensor(), g.tensor());
}

TEST(ReduceMinMaxFast, MatchesGeneric) {
  uint32_t seed = 1;
  for (const char* op : {"ReduceMax", "ReduceMin"})
    for (bool specials : {false, true}) {
      // Lengths around the four interleaved chains of 32 and their tails.
      for (int64_t n : {1, 7, 8, 9, 31, 32, 33, 64, 100, 130, 257}) {
        const Value axes = Tensor::from_vector<int64_t>({-1}, Shape{1});
        check(op, Shape{5, 3, n}, {}, specials, seed++, {axes});
      }
      // Spatial axes (one long run) and a kept axis between reduced ones
      // (several runs per output).
      check(op, Shape{2, 6, 11, 13}, {}, specials, seed++,
            {Tensor::from_vector<int64_t>({2, 3}, Shape{2})});
      check(op, Shape{3, 4, 21}, {attr_int("keepdims", 0)}, specials, seed++,
            {Tensor::from_vector<int64_t>({0, 2}, Shape{2})});
    }
}

TEST(ReduceMinMaxFast, ArgMatchesGeneric) {
  uint32_t seed = 100;
  for (const char* op : {"ArgMax", "ArgMin"})
    for (bool specials : {false, true})
      for (int64_t last : {0, 1}) {
        for (int64_t n : {1, 5, 8, 17, 1000})
          check(op, Shape{4, n}, {attr_int("axis", -1), attr_int("select_last_index", last)},
                specials, seed++);
        check(op, Shape{2, 21, 7, 9}, {attr_int("axis", 1), attr_int("select_last_index", last)},
              specials, seed++);
        // Strided, more columns than a tile of 512 (the second one with a
        // tail of 91 columns, not a multiple of the vector width).
        check(op, Shape{2, 6, 603}, {attr_int("axis", -2), attr_int("select_last_index", last)},
              specials, seed++);
        check(op, Shape{3, 5, 2},
              {attr_int("axis", 0), attr_int("select_last_index", last), attr_int("keepdims", 0)},
              specials, seed++);
      }
}

}  // namespace
}  // namespace tessera
