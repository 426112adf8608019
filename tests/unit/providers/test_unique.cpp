// Unique against a plain reference: unique values in ascending order (or in
// order of first occurrence), the index of each first occurrence, the
// inverse indices and the counts. Integer inputs without an axis take the
// direct (value, position) sort; float inputs the slice comparison.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::run_node;

struct UniqueRef {
  std::vector<double> y;
  std::vector<int64_t> first, inverse, counts;
};

UniqueRef reference(const std::vector<double>& x, bool sorted) {
  std::map<double, int64_t> first_at;  // value -> first position
  for (size_t i = 0; i < x.size(); ++i) first_at.emplace(x[i], int64_t(i));
  std::vector<std::pair<int64_t, double>> groups;  // (first position, value)
  for (const auto& [v, i] : first_at) groups.push_back({i, v});
  if (!sorted) std::sort(groups.begin(), groups.end());
  UniqueRef r;
  std::map<double, int64_t> slot;
  for (const auto& [i, v] : groups) {
    slot[v] = int64_t(r.y.size());
    r.y.push_back(v);
    r.first.push_back(i);
    r.counts.push_back(int64_t(std::count(x.begin(), x.end(), v)));
  }
  for (double v : x) r.inverse.push_back(slot[v]);
  return r;
}

std::vector<int64_t> ints(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
}

std::vector<double> doubles(const Value& v) {
  std::vector<double> out;
  for (int64_t i = 0; i < v.tensor().num_elements(); ++i)
    out.push_back(v.tensor().element_as_double(i));
  return out;
}

TEST(Unique, MatchesPlainReferenceForIntegersAndFloats) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> pick(-40, 40);
  const int64_t n = 2000;
  std::vector<int64_t> i64(n);
  std::vector<int32_t> i32(n);
  std::vector<uint8_t> u8(n);
  std::vector<float> f32(n);
  std::vector<double> as_double(n);
  for (int64_t i = 0; i < n; ++i) {
    const int v = pick(rng);
    i64[size_t(i)] = int64_t(v) * 1000003;  // beyond int32, negative too
    i32[size_t(i)] = v;
    u8[size_t(i)] = uint8_t(v + 40);
    f32[size_t(i)] = float(v) * 0.5f;
  }
  const std::vector<std::pair<const char*, Tensor>> inputs = {
      {"int64", Tensor::from_vector<int64_t>(i64, Shape{n})},
      {"int32 2-D, flattened", Tensor::from_vector<int32_t>(i32, Shape{40, n / 40})},
      {"uint8", Tensor::from_vector<uint8_t>(u8, Shape{n})},
      {"float", Tensor::from_vector<float>(f32, Shape{n})}};
  for (const auto& [what, x] : inputs)
    for (int sorted : {1, 0}) {
      SCOPED_TRACE(std::string(what) + (sorted ? " sorted" : " first-occurrence order"));
      auto out = run_node("Unique", {x}, {attr_int("sorted", sorted)}, 11, 4);
      const UniqueRef want = reference(doubles(x), sorted != 0);
      EXPECT_EQ(doubles(out[0]), want.y);
      EXPECT_EQ(ints(out[1]), want.first);
      EXPECT_EQ(ints(out[2]), want.inverse);
      EXPECT_EQ(ints(out[3]), want.counts);
    }
}

}  // namespace
}  // namespace tessera
