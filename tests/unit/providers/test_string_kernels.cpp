#include <gtest/gtest.h>

#include "unit/kernel_test_util.hpp"
#include "providers/cpu/string/string_kernels.hpp"
#include "providers/cpu/string/utf8_case.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::attr_string;
using test::run_node;

Value strs(std::vector<std::string> v, Shape s) {
  return Tensor::from_vector<std::string>(v, std::move(s));
}
std::vector<std::string> all(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.num_elements());
}
ir::Attribute stopwords(std::vector<std::string> w) {
  ir::Attribute a;
  a.name = "stopwords";
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(w);
  return a;
}

TEST(StringKernels, NormalizerStopwordsAndCase) {
  auto x = strs({"monday", "tuesday", "Wednesday"}, {3});
  auto y = run_node("StringNormalizer", {x},
                    {attr_string("case_change_action", "UPPER"), attr_int("is_case_sensitive", 1),
                     stopwords({"monday"})},
                    10)[0];
  EXPECT_EQ(all(y), (std::vector<std::string>{"TUESDAY", "WEDNESDAY"}));
  EXPECT_EQ(y.tensor().shape(), (Shape{2}));
}

TEST(StringKernels, NormalizerCaseInsensitiveTwoDim) {
  auto x = strs({"Monday", "tuesday", "MONDAY"}, {1, 3});
  auto y = run_node("StringNormalizer", {x},
                    {attr_string("case_change_action", "LOWER"), stopwords({"monday"})}, 10)[0];
  EXPECT_EQ(y.tensor().shape(), (Shape{1, 1}));
  EXPECT_EQ(all(y), std::vector<std::string>{"tuesday"});
}

TEST(StringKernels, NormalizerAllRemoved) {
  auto y = run_node("StringNormalizer", {strs({"monday", "monday"}, {2})},
                    {attr_int("is_case_sensitive", 1), stopwords({"monday"})}, 10)[0];
  EXPECT_EQ(y.tensor().shape(), (Shape{1}));
  EXPECT_EQ(all(y), std::vector<std::string>{""});
  auto y2 = run_node("StringNormalizer", {strs({"monday"}, {1, 1})}, {stopwords({"monday"})}, 10)[0];
  EXPECT_EQ(y2.tensor().shape(), (Shape{1, 1}));
  EXPECT_THROW(run_node("StringNormalizer", {strs({"a", "b"}, {2, 1})}, {}, 10), Error);
  EXPECT_THROW(
      run_node("StringNormalizer", {strs({"a"}, {1})}, {attr_string("case_change_action", "X")}, 10),
      Error);
}

TEST(StringKernels, Utf8CaseMapping) {
  EXPECT_EQ(cpu::text::utf8_to_upper("straße çé ÿ"), "STRAßE ÇÉ Ÿ");
  EXPECT_EQ(cpu::text::utf8_to_lower("ÀÉÎ ĄĆ ΑΒΓ АБВ Ё"), "àéî ąć αβγ абв ё");
  EXPECT_EQ(cpu::text::utf8_to_upper("αβγ абв"), "ΑΒΓ АБВ");
  EXPECT_EQ(cpu::text::utf8_to_upper(std::string("a\xff" "b")), std::string("A\xff" "B"));
}

TEST(StringKernels, SplitWithDelimiter) {
  auto out = run_node("StringSplit", {strs({"o-n-n--x-", "a"}, {2})},
                      {attr_string("delimiter", "-")}, 20, 2);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 6}));
  EXPECT_EQ(all(out[0]),
            (std::vector<std::string>{"o", "n", "n", "", "x", "", "a", "", "", "", "", ""}));
  EXPECT_EQ(out[1].tensor().to_int64_vector(), (std::vector<int64_t>{6, 1}));
}

TEST(StringKernels, SplitWhitespaceAndMaxsplit) {
  auto out = run_node("StringSplit", {strs({"  hello   world ! ", "o n n x", ""}, {3})},
                      {attr_int("maxsplit", 2)}, 20, 2);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{3, 3}));
  EXPECT_EQ(all(out[0]), (std::vector<std::string>{"hello", "world", "! ", "o", "n", "n x", "",
                                                   "", ""}));
  EXPECT_EQ(out[1].tensor().to_int64_vector(), (std::vector<int64_t>{3, 3, 0}));
  auto d = run_node("StringSplit", {strs({"a.b.c"}, {1})},
                    {attr_string("delimiter", "."), attr_int("maxsplit", 1)}, 20, 2);
  EXPECT_EQ(all(d[0]), (std::vector<std::string>{"a", "b.c"}));
}

TEST(StringKernels, SplitEmptyTensor) {
  auto out = run_node("StringSplit", {strs({}, {0})}, {}, 20, 2);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{0, 0}));
  EXPECT_EQ(out[1].tensor().shape(), (Shape{0}));
}

TEST(StringKernels, ConcatBroadcasts) {
  auto y = run_node("StringConcat", {strs({"a", "b"}, {2, 1}), strs({"x", "y", "z"}, {3})}, {},
                    20)[0];
  EXPECT_EQ(y.tensor().shape(), (Shape{2, 3}));
  EXPECT_EQ(all(y), (std::vector<std::string>{"ax", "ay", "az", "bx", "by", "bz"}));
  auto s = run_node("StringConcat", {strs({"π"}, {}), strs({"", "😀"}, {2})}, {}, 20)[0];
  EXPECT_EQ(all(s), (std::vector<std::string>{"π", "π😀"}));
  EXPECT_THROW(run_node("StringConcat", {strs({"a", "b"}, {2}), strs({"x", "y", "z"}, {3})}, {}, 20),
               Error);
}

TEST(StringKernels, RegexFullMatch) {
  auto x = strs({"www.google.com", "www.facebook.com", "www.bbc.co.uk"}, {3});
  auto y = run_node("RegexFullMatch", {x}, {attr_string("pattern", R"(www\.[\w.-]+\.\bcom\b)")}, 20)[0];
  EXPECT_EQ(y.tensor().dtype(), DataType::kBool);
  const bool* b = y.tensor().data<bool>();
  EXPECT_TRUE(b[0]);
  EXPECT_TRUE(b[1]);
  EXPECT_FALSE(b[2]);
  auto e = run_node("RegexFullMatch", {strs({}, {2, 0})},
                    {attr_string("pattern", R"((\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$))")}, 20)[0];
  EXPECT_EQ(e.tensor().shape(), (Shape{2, 0}));
  EXPECT_THROW(run_node("RegexFullMatch", {x}, {attr_string("pattern", "(")}, 20), Error);
}

TEST(StringKernels, RegexRe2Spellings) {
  auto x = strs({"ABC-12", "abc-12", "abc"}, {3});
  auto y = run_node("RegexFullMatch", {x},
                    {attr_string("pattern", R"((?i)\A(?P<word>[a-z]+)-[[:digit:]]+\z)")}, 20)[0];
  const bool* b = y.tensor().data<bool>();
  EXPECT_TRUE(b[0]);
  EXPECT_TRUE(b[1]);
  EXPECT_FALSE(b[2]);
  bool icase = false;
  EXPECT_EQ(cpu::text::re2_to_ecmascript(R"(\Qa.b\E+)", icase), R"(a\.b+)");
  EXPECT_THROW(cpu::text::re2_to_ecmascript(R"(\pL)", icase), Error);
}

}  // namespace
}  // namespace tessera
