// String and text ops: RegexFullMatch, StringConcat, StringNormalizer and
// TfIdfVectorizer.
#include <algorithm>

#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

std::vector<ir::TypeInfo> string_outputs(const ir::Node& n, int64_t,
                                         const std::vector<ir::TypeInfo>&) {
  return std::vector<ir::TypeInfo>(n.outputs.size(), ir::TypeInfo::tensor(DataType::kString));
}

std::vector<ir::TypeInfo> float_outputs(const ir::Node& n, int64_t,
                                        const std::vector<ir::TypeInfo>&) {
  return std::vector<ir::TypeInfo>(n.outputs.size(), ir::TypeInfo::tensor(DataType::kFloat));
}

// X is [C] or [1, C]. Without stopwords every string stays (an empty X
// gives one empty string); with them the count depends on the strings.
OutShapes string_normalizer(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  const bool two_dim = x->rank() == 2;
  if (!(x->rank() == 1 || (two_dim && (*x)[0] == 1)))
    q.fail("X must be [C] or [1, C]: ", q.input_desc(0));
  const ir::Attribute* stop = q.node().attr("stopwords");
  if (stop && !stop->strings.empty()) return {std::nullopt};
  const int64_t c = std::max<int64_t>((*x)[x->rank() - 1], 1);
  return {two_dim ? Shape{1, c} : Shape{c}};
}

// [C] -> [size], [N, C] -> [N, size]; size = the largest ngram index + 1.
OutShapes tfidf(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  if (x->rank() != 1 && x->rank() != 2) q.fail("X must be 1-D or 2-D: ", q.input_desc(0));
  int64_t size = 0;
  for (int64_t i : q.attr_ints("ngram_indexes")) {
    if (i < 0 || i == INT64_MAX) q.fail("ngram index ", i, " is out of range");
    size = std::max(size, i + 1);
  }
  return {x->rank() == 1 ? Shape{size} : Shape{(*x)[0], size}};
}

}  // namespace

void add_string_schemas(std::vector<OpSchema>& t) {
  t.push_back({"",
               "RegexFullMatch",
               20,
               {optional_attr("pattern", AttrType::kString)},
               {{"T1", {0}, {}, string_type()}, {"T2", {}, {0}, bool_type()}},
               bool_outputs,
               same_shape_as_input0});
  t.push_back({"",
               "StringConcat",
               20,
               {},
               {{"T", {0, 1}, {0}, string_type()}},
               string_outputs,
               broadcast_inputs});
  t.push_back(
      {"",
       "StringNormalizer",
       10,
       {string_attr("case_change_action", "NONE"), int_attr("is_case_sensitive", 0),
        optional_attr("locale", AttrType::kString), optional_attr("stopwords", AttrType::kStrings)},
       {{"X", {0}, {0}, string_type()}},
       string_outputs,
       string_normalizer});
  t.push_back(
      {"",
       "TfIdfVectorizer",
       9,
       {required_attr("max_gram_length", AttrType::kInt),
        required_attr("max_skip_count", AttrType::kInt),
        required_attr("min_gram_length", AttrType::kInt), required_attr("mode", AttrType::kString),
        required_attr("ngram_counts", AttrType::kInts),
        required_attr("ngram_indexes", AttrType::kInts),
        optional_attr("pool_int64s", AttrType::kInts),
        optional_attr("pool_strings", AttrType::kStrings),
        optional_attr("weights", AttrType::kFloats)},
       {{"T", {0}, {}, {DataType::kString, DataType::kInt32, DataType::kInt64}}},
       float_outputs,
       tfidf});
}

}  // namespace tessera::ops
