// Ops whose output length depends on the values of their data, not only on
// shapes: NonZero, Compress, Unique, NonMaxSuppression, Range, StringSplit and
// ImageDecoder. Their types follow from the entries like any op's; their
// shape rules give what the shapes do fix.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

// Range's length from constant integer inputs: ceil((limit - start) /
// delta), at least 0.
OutShapes range(const ShapeQuery& q) {
  for (size_t i = 0; i < 3; ++i) {
    const Shape* s = shape_of(q, i);
    if (s && s->rank() != 0) q.fail("Range takes scalars: ", q.input_desc(i));
  }
  auto start = q.ints(0), limit = q.ints(1), delta = q.ints(2);
  if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 || delta->size() != 1)
    return {};
  const int64_t d = (*delta)[0];
  if (d == 0) q.fail("delta is 0");
  const __int128 span = __int128((*limit)[0]) - (*start)[0];
  __int128 n = span / d;
  if (n * d != span) ++n;  // span and d of one sign: round the quotient up
  return {Shape{int64_t(n < 0 ? 0 : n)}};
}

}  // namespace

void add_data_dependent_schemas(std::vector<OpSchema>& t) {
  const TypeParam i64_out{"I", {}, {0}, int64_type()};
  t.push_back(
      {"", "NonZero", 9, {}, {{"T", {0}, {}, all_types()}, i64_out}, nullptr, unknown_shapes});
  t.push_back({"",
               "Compress",
               9,
               {optional_attr("axis", AttrType::kInt)},
               {{"T", {0}, {0}, all_types()}, {"T1", {1}, {}, bool_type()}},
               nullptr,
               unknown_shapes});
  // Y like X; indices, inverse_indices and counts int64.
  t.push_back({"",
               "Unique",
               11,
               {optional_attr("axis", AttrType::kInt), int_attr("sorted", 1)},
               {{"T", {0}, {0}, all_types()}, {"I", {}, {1, 2, 3}, int64_type()}},
               nullptr,
               unknown_shapes});
  t.push_back({"",
               "NonMaxSuppression",
               10,
               {int_attr("center_point_box", 0)},
               {{"F", {0, 1, 3, 4}, {}, float_type()}, {"M", {2}, {}, int64_type()}, i64_out},
               nullptr,
               unknown_shapes});
  std::vector<DataType> range_types = {DataType::kFloat, DataType::kDouble, DataType::kInt16,
                                       DataType::kInt32, DataType::kInt64};
  t.push_back({"", "Range", 11, {}, {{"T", {0, 1, 2}, {0}, range_types}}, nullptr, range});
  // 27 adds float16 and bfloat16, computed in stash_type.
  range_types.insert(range_types.end(), {DataType::kFloat16, DataType::kBFloat16});
  t.push_back({"",
               "Range",
               27,
               {int_attr("stash_type", 1)},
               {{"T", {0, 1, 2}, {0}, range_types}},
               nullptr,
               range});
  // Y the substrings, Z the number of substrings of each element.
  t.push_back(
      {"",
       "StringSplit",
       20,
       {optional_attr("delimiter", AttrType::kString), optional_attr("maxsplit", AttrType::kInt)},
       {{"T1", {0}, {}, string_type()},
        {"T2", {}, {0}, string_type()},
        {"T3", {}, {1}, int64_type()}},
       nullptr,
       unknown_shapes});
  t.push_back({"",
               "ImageDecoder",
               20,
               {string_attr("pixel_format", "RGB")},
               {{"T1", {0}, {}, {DataType::kUInt8}}, {"T2", {}, {0}, {DataType::kUInt8}}},
               nullptr,
               unknown_shapes});
}

}  // namespace tessera::ops
