// TfIdfVectorizer: pool a, b, c (1-grams) and (a, b) (2-gram) over
// "a b a c b" with skips up to 1: counts a 2, b 2, c 1, (a b) 1 + 1 (skip 1).
#include <gtest/gtest.h>

#include <limits>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

ir::Attribute strs(const std::string& name, std::vector<std::string> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(v);
  return a;
}

std::vector<ir::Attribute> attrs(const std::string& mode, bool strings) {
  std::vector<ir::Attribute> a = {attr_int("min_gram_length", 1),
                                  attr_int("max_gram_length", 2),
                                  attr_int("max_skip_count", 1),
                                  attr_string("mode", mode),
                                  attr_ints("ngram_counts", {0, 3}),
                                  attr_ints("ngram_indexes", {0, 1, 2, 3}),
                                  attr_floats("weights", {0.1f, 0.2f, 0.3f, 0.4f})};
  if (strings)
    a.push_back(strs("pool_strings", {"a", "b", "c", "a", "b"}));
  else
    a.push_back(attr_ints("pool_int64s", {1, 2, 3, 1, 2}));
  return a;
}

void expect_floats(const Value& v, const std::vector<float>& e, const Shape& s) {
  const Tensor& t = v.tensor();
  ASSERT_EQ(t.dtype(), DataType::kFloat);
  ASSERT_EQ(t.shape(), s);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    EXPECT_FLOAT_EQ(t.data<float>()[i], e[size_t(i)]) << i;
}

}  // namespace

TEST(TextTfIdf, StringInputModes) {
  Value x = Tensor::from_vector<std::string>({"a", "b", "a", "c", "b"}, {5});
  expect_floats(run_node("TfIdfVectorizer", {x}, attrs("TF", true), 9)[0], {2, 2, 1, 2}, {4});
  expect_floats(run_node("TfIdfVectorizer", {x}, attrs("IDF", true), 9)[0],
                {0.1f, 0.2f, 0.3f, 0.4f}, {4});
  expect_floats(run_node("TfIdfVectorizer", {x}, attrs("TFIDF", true), 9)[0],
                {0.2f, 0.4f, 0.3f, 0.8f}, {4});
}

TEST(TextTfIdf, IntegerRowsAndUnknownTokens) {
  Value x = Tensor::from_vector<int32_t>({1, 2, 1, 3, 2, 7, 7, 7, 7, 1}, {2, 5});
  expect_floats(run_node("TfIdfVectorizer", {x}, attrs("TF", false), 9)[0],
                {2, 2, 1, 2, 1, 0, 0, 0}, {2, 4});
  Value y = Tensor::from_vector<int64_t>({1, 2}, {2});
  expect_floats(run_node("TfIdfVectorizer", {y}, attrs("TF", false), 9)[0], {1, 1, 0, 1}, {4});
}

TEST(TextTfIdf, RejectsMismatchedInputAndPool) {
  Value x = Tensor::from_vector<int64_t>({1, 2}, {2});
  EXPECT_THROW(run_node("TfIdfVectorizer", {x}, attrs("TF", true), 9), Error);
  auto bad = attrs("TF", false);
  bad[4] = attr_ints("ngram_counts", {0, 4});  // leaves one item, not a whole 2-gram
  EXPECT_THROW(run_node("TfIdfVectorizer", {x}, bad, 9), Error);
  EXPECT_THROW(run_node("TfIdfVectorizer", {x}, attrs("TF", false), 8), Error);
}

// Gram lengths and skips far beyond the row count what the row holds, and
// return (a loop up to the attributes themselves would not end).
TEST(TextTfIdf, HugeGramLengthAndSkipCountAreBoundedByTheRow) {
  Value x = Tensor::from_vector<std::string>({"a", "b", "a", "c", "b"}, {5});
  const int64_t huge = std::numeric_limits<int64_t>::max();
  auto a = attrs("TF", true);
  a[1] = attr_int("max_gram_length", huge);
  a[2] = attr_int("max_skip_count", huge);
  // "a b a c b": (a b) at skip 0 (positions 0, 1), skip 1 (2, 4) and skip 3 (0, 4).
  expect_floats(run_node("TfIdfVectorizer", {x}, a, 9)[0], {2, 2, 1, 3}, {4});
  a[5] = attr_ints("ngram_indexes", {0, 1, 2, huge});
  EXPECT_THROW(run_node("TfIdfVectorizer", {x}, a, 9), Error);
}

}  // namespace tessera::test
