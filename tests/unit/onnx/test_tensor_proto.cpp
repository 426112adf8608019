// TensorProto decoding for every element type, from raw_data and from the
// typed fields; the count and size checks; sequences, maps and optionals.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>

#include "onnx/model_reader.hpp"
#include "onnx/model_writer.hpp"
#include "onnx_test_util.hpp"

using namespace tessera;
using test::expect_error;
using test::Msg;

namespace {

Tensor parse(const Msg& m) { return onnx::parse_tensor(m.bytes.data(), m.bytes.size(), "t.pb"); }

Msg header(DataType dt, std::vector<int64_t> dims) {
  Msg m;
  for (int64_t d : dims) m.varint(1, uint64_t(d));
  m.varint(2, uint64_t(dt)).str(8, "t");
  return m;
}

std::string bytes_of(const Tensor& t) {
  return std::string(static_cast<const char*>(t.raw_data()), t.byte_size());
}

}  // namespace

// Every numeric type: a pattern of bytes through raw_data comes back exactly.
TEST(OnnxTensorProto, EveryTypeFromRawData) {
  for (int32_t v = 1; v <= kMaxDataType; ++v) {
    auto dt = static_cast<DataType>(v);
    if (dt == DataType::kString) continue;
    Tensor t(dt, Shape{2, 3});
    auto* p = static_cast<uint8_t*>(t.mutable_raw_data());
    for (size_t i = 0; i < t.byte_size(); ++i) p[i] = uint8_t(i * 37 + 1);
    if (dt == DataType::kBool)
      for (size_t i = 0; i < t.byte_size(); ++i) p[i] &= 1;
    std::string wire = onnx::serialize_tensor(t, "x");
    Tensor back = onnx::parse_tensor(wire.data(), wire.size());
    EXPECT_EQ(back.dtype(), dt) << data_type_name(dt);
    EXPECT_EQ(back.shape(), t.shape()) << data_type_name(dt);
    EXPECT_EQ(bytes_of(back), bytes_of(t)) << data_type_name(dt);
  }
}

TEST(OnnxTensorProto, RawDataSizeMustMatch) {
  Msg m = header(DataType::kFloat, {2});
  m.str(9, std::string(7, '\0'));
  expect_error([&] { parse(m); }, ErrorCode::kInvalidProtobuf, "raw_data has 7 bytes, expected 8");
  Msg i4 = header(DataType::kInt4, {3});  // 3 nibbles need 2 bytes
  i4.str(9, std::string(1, '\0'));
  expect_error([&] { parse(i4); }, ErrorCode::kInvalidProtobuf, "expected 2");
}

TEST(OnnxTensorProto, FloatDoubleAndComplexFields) {
  std::vector<float> f = {1.5f, -2};
  Msg m = header(DataType::kFloat, {2});
  m.packed_raw(4, f.data(), 8);
  EXPECT_EQ(parse(m).data<float>()[1], -2.0f);

  Msg unpacked = header(DataType::kFloat, {2});
  unpacked.f32(4, 1.5f).f32(4, -2.0f);
  EXPECT_EQ(parse(unpacked).data<float>()[0], 1.5f);

  std::vector<double> d = {0.25, 8};
  Msg md = header(DataType::kDouble, {2});
  md.packed_raw(10, d.data(), 16);
  EXPECT_EQ(parse(md).data<double>()[1], 8.0);

  std::vector<float> c = {1, 2, 3, 4};
  Msg mc = header(DataType::kComplex64, {2});
  mc.packed_raw(4, c.data(), 16);
  Tensor tc = parse(mc);
  EXPECT_EQ(tc.data<std::complex<float>>()[1], std::complex<float>(3, 4));

  Msg mz = header(DataType::kComplex128, {1});
  mz.f64(10, 5).f64(10, -6);
  EXPECT_EQ(parse(mz).data<std::complex<double>>()[0], std::complex<double>(5, -6));

  Msg bad = header(DataType::kComplex64, {2});
  bad.packed_raw(4, c.data(), 12);
  expect_error([&] { parse(bad); }, ErrorCode::kInvalidProtobuf, "float_data has 3 values, expected 4");
}

TEST(OnnxTensorProto, Int32DataCarriesSmallTypes) {
  struct Case {
    DataType dt;
    std::vector<int32_t> wire;
    std::vector<uint8_t> expect;  // storage bytes
  };
  std::vector<Case> cases = {
      {DataType::kInt32, {-1, 7}, {0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0}},
      {DataType::kInt8, {-2, 5}, {0xfe, 5}},
      {DataType::kUInt8, {255, 1}, {255, 1}},
      {DataType::kInt16, {-2, 300}, {0xfe, 0xff, 0x2c, 0x01}},
      {DataType::kUInt16, {65535, 1}, {0xff, 0xff, 1, 0}},
      {DataType::kBool, {1, 0}, {1, 0}},
      {DataType::kFloat16, {0x3c00, 0xc000}, {0x00, 0x3c, 0x00, 0xc0}},
      {DataType::kBFloat16, {0x3f80, 0x4000}, {0x80, 0x3f, 0x00, 0x40}},
      {DataType::kFloat8E4M3FN, {0x38, 0x7e}, {0x38, 0x7e}},
      {DataType::kFloat8E4M3FNUZ, {0x40, 1}, {0x40, 1}},
      {DataType::kFloat8E5M2, {0x3c, 0x7c}, {0x3c, 0x7c}},
      {DataType::kFloat8E5M2FNUZ, {0x40, 2}, {0x40, 2}},
      {DataType::kFloat8E8M0, {127, 128}, {127, 128}},
  };
  for (const auto& c : cases) {
    Msg m = header(c.dt, {2});
    m.packed(5, c.wire);
    Tensor t = parse(m);
    ASSERT_EQ(t.dtype(), c.dt);
    EXPECT_EQ(bytes_of(t), std::string(c.expect.begin(), c.expect.end())) << data_type_name(c.dt);
  }
  EXPECT_EQ(float([] {
              Msg m = header(DataType::kFloat16, {1});
              m.packed(5, std::vector<int32_t>{0x3c00});
              return parse(m).data<Float16>()[0];
            }()),
            1.0f);
}

TEST(OnnxTensorProto, Int32DataPacksSubByteTypes) {
  // Three 4-bit elements: two int32_data values, each one packed byte.
  for (DataType dt : {DataType::kInt4, DataType::kUInt4, DataType::kFloat4E2M1}) {
    Msg m = header(dt, {3});
    m.packed(5, std::vector<int32_t>{0x21, 0x03});
    EXPECT_EQ(bytes_of(parse(m)), std::string("\x21\x03", 2)) << data_type_name(dt);
    Msg wrong = header(dt, {3});
    wrong.packed(5, std::vector<int32_t>{1, 2, 3});
    expect_error([&] { parse(wrong); }, ErrorCode::kInvalidProtobuf, "int32_data has 3 values, expected 2");
  }
  Msg i4 = header(DataType::kInt4, {2});
  i4.packed(5, std::vector<int32_t>{0x7f});
  Tensor t = parse(i4);
  EXPECT_EQ(t.element_as_int64(0), -1);
  EXPECT_EQ(t.element_as_int64(1), 7);
  // Five 2-bit elements: two bytes.
  for (DataType dt : {DataType::kInt2, DataType::kUInt2}) {
    Msg m = header(dt, {5});
    m.packed(5, std::vector<int32_t>{0xe4, 0x01});
    EXPECT_EQ(bytes_of(parse(m)), std::string("\xe4\x01", 2)) << data_type_name(dt);
  }
}

TEST(OnnxTensorProto, Int64Uint64AndStringFields) {
  Msg m = header(DataType::kInt64, {3});
  m.packed(7, std::vector<int64_t>{-1, int64_t(1) << 50, 3});
  Tensor t = parse(m);
  EXPECT_EQ(t.data<int64_t>()[0], -1);
  EXPECT_EQ(t.data<int64_t>()[1], int64_t(1) << 50);

  Msg un = header(DataType::kInt64, {2});
  un.varint(7, 5).varint(7, uint64_t(-6));
  EXPECT_EQ(parse(un).data<int64_t>()[1], -6);

  Msg u32 = header(DataType::kUInt32, {2});
  u32.packed(11, std::vector<uint64_t>{4000000000u, 1});
  EXPECT_EQ(parse(u32).data<uint32_t>()[0], 4000000000u);

  Msg u64 = header(DataType::kUInt64, {1});
  u64.packed(11, std::vector<uint64_t>{~uint64_t(0)});
  EXPECT_EQ(parse(u64).data<uint64_t>()[0], ~uint64_t(0));

  Msg s = header(DataType::kString, {2});
  s.str(6, "hello").str(6, std::string("a\0b", 3));
  Tensor ts = parse(s);
  EXPECT_EQ(ts.data<std::string>()[0], "hello");
  EXPECT_EQ(ts.data<std::string>()[1], std::string("a\0b", 3));

  Msg few = header(DataType::kString, {3});
  few.str(6, "x");
  expect_error([&] { parse(few); }, ErrorCode::kInvalidProtobuf, "string_data has 1 values, expected 3");
  Msg raw_string = header(DataType::kString, {1});
  raw_string.str(9, "x");
  expect_error([&] { parse(raw_string); }, ErrorCode::kInvalidProtobuf, "raw_data");
}

TEST(OnnxTensorProto, MissingDataAndBadHeaders) {
  expect_error([&] { parse(header(DataType::kFloat, {4})); }, ErrorCode::kInvalidProtobuf,
               "float_data has 0 values, expected 4");
  Tensor empty = parse(header(DataType::kFloat, {0, 5}));
  EXPECT_EQ(empty.num_elements(), 0);
  Msg none;
  none.varint(1, 2);
  expect_error([&] { parse(none); }, ErrorCode::kInvalidProtobuf, "no data_type");
  Msg bad_type;
  bad_type.varint(2, 99);
  expect_error([&] { parse(bad_type); }, ErrorCode::kInvalidProtobuf, "99 is not a valid data type");
  Msg neg = header(DataType::kFloat, {2, -3});
  expect_error([&] { parse(neg); }, ErrorCode::kInvalidProtobuf, "dims[1] is negative (-3)");
  // Huge dims with no data must fail on the count, not try to allocate.
  Msg huge = header(DataType::kFloat, {int64_t(1) << 40, int64_t(1) << 40});
  expect_error([&] { parse(huge); }, ErrorCode::kInvalidProtobuf, "overflows");
  Msg big = header(DataType::kFloat, {int64_t(1) << 40});
  big.str(9, "abcd");
  expect_error([&] { parse(big); }, ErrorCode::kInvalidProtobuf, "raw_data has 4 bytes");
  expect_error([&] { onnx::parse_tensor("", 0, "e.pb"); }, ErrorCode::kInvalidProtobuf, "e.pb");
}

TEST(OnnxTensorProto, LoadTensorFromFile) {
  test::TempDir dir;
  Tensor t = Tensor::from_vector<int16_t>({1, -2, 3}, {3, 1});
  test::write_file(dir.file("input_0.pb"), onnx::serialize_tensor(t, "in"));
  Tensor back = onnx::load_tensor(dir.file("input_0.pb"));
  EXPECT_EQ(back.shape(), (Shape{3, 1}));
  EXPECT_EQ(back.data<int16_t>()[1], -2);
  expect_error([&] { onnx::load_tensor(dir.file("nope.pb")); }, ErrorCode::kNoSuchFile,
               "does not exist");
}

TEST(OnnxValue, SequenceMapOptionalRoundTrip) {
  ir::TypeInfo ttype = ir::TypeInfo::tensor(DataType::kFloat);
  ir::TypeInfo seq;
  seq.kind = ir::TypeInfo::Kind::kSequence;
  seq.inner = std::make_shared<ir::TypeInfo>(ttype);

  Value s = Value::sequence({Tensor::from_vector<float>({1, 2}, {2}), Tensor::scalar<float>(3)},
                            DataType::kFloat);
  std::string wire = onnx::serialize_value(s, "s");
  Value back = onnx::parse_value(wire.data(), wire.size(), seq);
  ASSERT_TRUE(back.is_sequence());
  ASSERT_EQ(back.seq().size(), 2u);
  EXPECT_EQ(back.seq_elem_type(), DataType::kFloat);
  EXPECT_EQ(back.seq()[0].tensor().data<float>()[1], 2.0f);

  Value empty = Value::sequence({}, DataType::kFloat);
  wire = onnx::serialize_value(empty);
  back = onnx::parse_value(wire.data(), wire.size(), seq);
  EXPECT_TRUE(back.is_sequence());
  EXPECT_TRUE(back.seq().empty());
  EXPECT_EQ(back.seq_elem_type(), DataType::kFloat);

  ir::TypeInfo opt;
  opt.kind = ir::TypeInfo::Kind::kOptional;
  opt.inner = std::make_shared<ir::TypeInfo>(ttype);
  wire = onnx::serialize_value(Value());
  EXPECT_TRUE(onnx::parse_value(wire.data(), wire.size(), opt).is_none());
  // An optional holding a tensor, as the backend tests write it.
  Msg o;
  o.str(1, "o").varint(2, 1).str(3, onnx::serialize_tensor(Tensor::scalar<float>(4)));
  back = onnx::parse_value(o.bytes.data(), o.bytes.size(), opt);
  ASSERT_TRUE(back.is_tensor());
  EXPECT_EQ(back.tensor().data<float>()[0], 4.0f);

  ir::TypeInfo map;
  map.kind = ir::TypeInfo::Kind::kMap;
  map.elem_type = DataType::kInt64;
  map.inner = std::make_shared<ir::TypeInfo>(ttype);
  MapValue mv{Tensor::from_vector<int64_t>({5, 9}, {2}), Tensor::from_vector<float>({0.5f, 1.5f}, {2})};
  wire = onnx::serialize_value(Value::map(mv), "m");
  back = onnx::parse_value(wire.data(), wire.size(), map);
  ASSERT_TRUE(back.is_map());
  EXPECT_EQ(back.map().keys.data<int64_t>()[1], 9);
  EXPECT_EQ(back.map().values.data<float>()[1], 1.5f);

  MapValue sm{Tensor::from_vector<std::string>({"a", "b"}, {2}),
              Tensor::from_vector<int64_t>({1, 2}, {2})};
  map.elem_type = DataType::kString;
  map.inner = std::make_shared<ir::TypeInfo>(ir::TypeInfo::tensor(DataType::kInt64));
  wire = onnx::serialize_value(Value::map(sm));
  back = onnx::parse_value(wire.data(), wire.size(), map);
  EXPECT_EQ(back.map().keys.data<std::string>()[1], "b");
  EXPECT_EQ(back.map().values.data<int64_t>()[0], 1);

  // Sequence of maps.
  ir::TypeInfo seq_map;
  seq_map.kind = ir::TypeInfo::Kind::kSequence;
  seq_map.inner = std::make_shared<ir::TypeInfo>(map);
  wire = onnx::serialize_value(Value::sequence({Value::map(sm), Value::map(sm)}));
  back = onnx::parse_value(wire.data(), wire.size(), seq_map);
  ASSERT_EQ(back.seq().size(), 2u);
  EXPECT_TRUE(back.seq()[1].is_map());
}

TEST(OnnxValue, MapKeyValueCountMismatch) {
  ir::TypeInfo map;
  map.kind = ir::TypeInfo::Kind::kMap;
  map.elem_type = DataType::kInt64;
  Msg m;
  m.varint(2, 7).packed(3, std::vector<int64_t>{1, 2, 3}).msg(5, Msg().varint(2, 1));
  expect_error([&] { onnx::parse_value(m.bytes.data(), m.bytes.size(), map, "m.pb"); },
               ErrorCode::kInvalidProtobuf, "map has 3 keys but 0 values");
}
