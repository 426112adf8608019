// ai.onnx.ml transforms, maps and encoders against hand-computed values.
#include <cmath>

#include "unit/providers/ml_test_helpers.hpp"

namespace tessera {
namespace {

using mltest::attr_strings;
using mltest::expect_near;
using mltest::run_ml;
using mltest::strings;
using mltest::values;
using test::attr_float;
using test::attr_floats;
using test::attr_int;
using test::attr_ints;
using test::attr_string;
using test::attr_tensor;

TEST(MlTransforms, ArrayFeatureExtractorPicksLastAxis) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto y = Tensor::from_vector<int64_t>({2, 0}, Shape{2});
  auto out = run_ml("ArrayFeatureExtractor", {x, y}, {}, 1);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{3, 1, 6, 4}));
  auto s = Tensor::from_vector<std::string>({"a", "b", "c"}, Shape{3});
  auto so = run_ml("ArrayFeatureExtractor", {s, Tensor::from_vector<int64_t>({1}, Shape{1})}, {}, 1);
  EXPECT_EQ(so[0].tensor().shape(), (Shape{1, 1}));
  EXPECT_EQ(strings(so[0]), (std::vector<std::string>{"b"}));
  EXPECT_THROW(run_ml("ArrayFeatureExtractor", {x, Tensor::from_vector<int64_t>({3}, Shape{1})}, {}, 1),
               Error);
}

TEST(MlTransforms, BinarizerImputerScaler) {
  auto x = Tensor::from_vector<int32_t>({-1, 0, 2, 5}, Shape{2, 2});
  auto b = run_ml("Binarizer", {x}, {attr_float("threshold", 1.f)}, 1);
  EXPECT_EQ(b[0].tensor().dtype(), DataType::kInt32);
  EXPECT_EQ(values(b[0]), (std::vector<double>{0, 0, 1, 1}));

  auto xf = Tensor::from_vector<float>({NAN, 1, 2, NAN}, Shape{2, 2});
  auto imp = run_ml("Imputer", {xf},
                    {attr_floats("imputed_value_floats", {7, 8}),
                     attr_float("replaced_value_float", NAN)}, 1);
  EXPECT_EQ(values(imp[0]), (std::vector<double>{7, 1, 2, 8}));
  auto xi = Tensor::from_vector<int64_t>({0, 3, 0}, Shape{3});
  auto impi = run_ml("Imputer", {xi}, {attr_ints("imputed_value_int64s", {9})}, 1);
  EXPECT_EQ(values(impi[0]), (std::vector<double>{9, 3, 9}));

  auto sc = run_ml("Scaler", {Tensor::from_vector<double>({1, 2, 3, 4}, Shape{2, 2})},
                   {attr_floats("offset", {1, 2}), attr_floats("scale", {2})}, 1);
  EXPECT_EQ(sc[0].tensor().dtype(), DataType::kFloat);
  expect_near(values(sc[0]), {0, 0, 4, 4});
}

TEST(MlTransforms, NormalizerModes) {
  auto x = Tensor::from_vector<float>({1, -3, 0, 0}, Shape{2, 2});
  expect_near(values(run_ml("Normalizer", {x}, {attr_string("norm", "MAX")}, 1)[0]), {1, -3, 0, 0});
  expect_near(values(run_ml("Normalizer", {x}, {attr_string("norm", "L1")}, 1)[0]),
              {0.25, -0.75, 0, 0});
  double r = std::sqrt(10.0);
  expect_near(values(run_ml("Normalizer", {x}, {attr_string("norm", "L2")}, 1)[0]),
              {1 / r, -3 / r, 0, 0});
}

TEST(MlTransforms, FeatureVectorizerPadsAndTruncates) {
  auto a = Tensor::from_vector<int64_t>({1, 2, 3, 4}, Shape{2, 2});
  auto b = Tensor::from_vector<float>({5, 6, 7, 8, 9, 10}, Shape{2, 3});
  auto out = run_ml("FeatureVectorizer", {a, b}, {attr_ints("inputdimensions", {3, 2})}, 1);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 5}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 2, 0, 5, 6, 3, 4, 0, 8, 9}));
}

TEST(MlTransforms, OneHotEncoder) {
  auto x = Tensor::from_vector<std::string>({"b", "z", "a"}, Shape{3});
  auto out = run_ml("OneHotEncoder", {x}, {attr_strings("cats_strings", {"a", "b"})}, 1);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{3, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 1, 0, 0, 1, 0}));
  auto xd = Tensor::from_vector<double>({3.0}, Shape{1});
  auto od = run_ml("OneHotEncoder", {xd}, {attr_ints("cats_int64s", {1, 3, 5})}, 1);
  EXPECT_EQ(values(od[0]), (std::vector<double>{0, 1, 0}));
  EXPECT_THROW(run_ml("OneHotEncoder", {x}, {attr_strings("cats_strings", {"a"}), attr_int("zeros", 0)}, 1),
               Error);
}

TEST(MlTransforms, CategoryMapperBothWays) {
  std::vector<ir::Attribute> at = {attr_ints("cats_int64s", {1, 2}),
                                   attr_strings("cats_strings", {"x", "y"}),
                                   attr_int("default_int64", 42), attr_string("default_string", "?")};
  auto a = run_ml("CategoryMapper", {Tensor::from_vector<std::string>({"y", "q"}, Shape{2})}, at, 1);
  EXPECT_EQ(values(a[0]), (std::vector<double>{2, 42}));
  auto b = run_ml("CategoryMapper", {Tensor::from_vector<int64_t>({1, 7}, Shape{2})}, at, 1);
  EXPECT_EQ(strings(b[0]), (std::vector<std::string>{"x", "?"}));
}

TEST(MlTransforms, LabelEncoderV1) {
  std::vector<ir::Attribute> at = {attr_strings("classes_strings", {"a", "b", "c"}),
                                   attr_int("default_int64", -7)};
  auto a = run_ml("LabelEncoder", {Tensor::from_vector<std::string>({"c", "x"}, Shape{2})}, at, 1);
  EXPECT_EQ(values(a[0]), (std::vector<double>{2, -7}));
  at.push_back(attr_string("default_string", "none"));
  auto b = run_ml("LabelEncoder", {Tensor::from_vector<int64_t>({1, 5}, Shape{2})}, at, 1);
  EXPECT_EQ(strings(b[0]), (std::vector<std::string>{"b", "none"}));
}

TEST(MlTransforms, LabelEncoderV2Lists) {
  auto a = run_ml("LabelEncoder", {Tensor::from_vector<std::string>({"Dori", "Amy", "Sally"}, Shape{3})},
                  {attr_strings("keys_strings", {"Amy", "Sally"}), attr_ints("values_int64s", {5, 6})},
                  2);
  EXPECT_EQ(a[0].tensor().dtype(), DataType::kInt64);
  EXPECT_EQ(values(a[0]), (std::vector<double>{-1, 5, 6}));
  auto b = run_ml("LabelEncoder", {Tensor::from_vector<float>({NAN, 1.5f, 2}, Shape{3})},
                  {attr_floats("keys_floats", {1.5f, NAN}), attr_strings("values_strings", {"x", "nan"}),
                   attr_string("default_string", "d")},
                  2);
  EXPECT_EQ(strings(b[0]), (std::vector<std::string>{"nan", "x", "d"}));
}

TEST(MlTransforms, LabelEncoderV4Tensors) {
  auto keys = Tensor::from_vector<int16_t>({3, 4}, Shape{2});
  auto vals = Tensor::from_vector<double>({0.5, 0.25}, Shape{2});
  auto def = Tensor::from_vector<double>({9.0}, Shape{1});
  auto out = run_ml("LabelEncoder", {Tensor::from_vector<int16_t>({4, 3, 1}, Shape{3})},
                    {attr_tensor("keys_tensor", keys), attr_tensor("values_tensor", vals),
                     attr_tensor("default_tensor", def)},
                    4);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kDouble);
  EXPECT_EQ(values(out[0]), (std::vector<double>{0.25, 0.5, 9}));
  // Without default_tensor an integral value type defaults to -1.
  auto iv = Tensor::from_vector<int32_t>({10, 20}, Shape{2});
  auto o2 = run_ml("LabelEncoder", {Tensor::from_vector<int16_t>({4, 0}, Shape{2})},
                   {attr_tensor("keys_tensor", keys), attr_tensor("values_tensor", iv)}, 4);
  EXPECT_EQ(o2[0].tensor().dtype(), DataType::kInt32);
  EXPECT_EQ(values(o2[0]), (std::vector<double>{20, -1}));
  // Mismatched key/value lengths are rejected at load.
  EXPECT_THROW(run_ml("LabelEncoder", {Tensor::from_vector<int16_t>({4}, Shape{1})},
                      {attr_tensor("keys_tensor", keys),
                       attr_tensor("values_tensor", Tensor::from_vector<double>({1}, Shape{1}))},
                      4),
               Error);
}

TEST(MlTransforms, CastMapDenseAndSparse) {
  MapValue m{Tensor::from_vector<int64_t>({3, 1}, Shape{2}),
             Tensor::from_vector<float>({30.f, 10.5f}, Shape{2})};
  auto d = run_ml("CastMap", {Value::map(m)}, {attr_string("cast_to", "TO_INT64")}, 1);
  EXPECT_EQ(d[0].tensor().shape(), (Shape{1, 2}));
  EXPECT_EQ(values(d[0]), (std::vector<double>{10, 30}));
  auto s = run_ml("CastMap", {Value::map(m)},
                  {attr_string("map_form", "SPARSE"), attr_int("max_map", 5)}, 1);
  EXPECT_EQ(values(s[0]), (std::vector<double>{0, 10.5, 0, 30, 0}));
  EXPECT_THROW(run_ml("CastMap", {Value::map(m)},
                      {attr_string("map_form", "SPARSE"), attr_int("max_map", 2)}, 1),
               Error);
}

TEST(MlTransforms, DictVectorizer) {
  MapValue m{Tensor::from_vector<std::string>({"a", "c"}, Shape{2}),
             Tensor::from_vector<double>({4, 8}, Shape{2})};
  auto out = run_ml("DictVectorizer", {Value::map(m)},
                    {attr_strings("string_vocabulary", {"a", "c", "b", "z"})}, 1);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kDouble);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{1, 4}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{4, 8, 0, 0}));
}

TEST(MlTransforms, ZipMapMakesSequenceOfMaps) {
  auto x = Tensor::from_vector<float>({0.25f, 0.75f, 1.f, 0.f}, Shape{2, 2});
  auto out = run_ml("ZipMap", {x}, {attr_ints("classlabels_int64s", {10, 20})}, 1);
  ASSERT_TRUE(out[0].is_sequence());
  ASSERT_EQ(out[0].seq().size(), 2u);
  const MapValue& m1 = out[0].seq()[1].map();
  EXPECT_EQ(m1.keys.to_int64_vector(), (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(values(Value(m1.values)), (std::vector<double>{1, 0}));
  EXPECT_THROW(run_ml("ZipMap", {x}, {attr_strings("classlabels_strings", {"a"})}, 1), Error);
}

}  // namespace
}  // namespace tessera
