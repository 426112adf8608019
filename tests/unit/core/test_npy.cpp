#include <gtest/gtest.h>

#include <complex>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/npy.hpp"

using namespace tessera;

namespace {

// Builds .npy bytes by hand so malformed variants can be made.
std::string make_npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += char(0);
  size_t n = dict.size();
  out += char(n & 0xff);
  out += char((n >> 8) & 0xff);
  if (major >= 2) {
    out += char((n >> 16) & 0xff);
    out += char((n >> 24) & 0xff);
  }
  return out + dict + data;
}

std::string error_of(const std::string& bytes) {
  try {
    parse_npy(bytes.data(), bytes.size(), "x.npy");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

template <typename T>
void expect_round_trip(std::vector<T> values, Shape shape, const char* descr) {
  Tensor t = Tensor::from_vector<T>(values, shape);
  std::string bytes = serialize_npy(t);
  EXPECT_NE(bytes.find(descr), std::string::npos) << descr;
  Tensor back = parse_npy(bytes.data(), bytes.size());
  ASSERT_EQ(back.dtype(), t.dtype()) << descr;
  ASSERT_EQ(back.shape(), t.shape()) << descr;
  ASSERT_EQ(back.byte_size(), t.byte_size());
  EXPECT_EQ(std::memcmp(back.raw_data(), t.raw_data(), t.byte_size()), 0) << descr;
}

}  // namespace

TEST(NpyRoundTrip, EveryDtype) {
  expect_round_trip<float>({1.5f, -2.f, 3.25f, 0.f, 1e30f, -1e-30f}, Shape{2, 3}, "'<f4'");
  expect_round_trip<double>({1.5, -2e300}, Shape{2}, "'<f8'");
  expect_round_trip<Float16>({Float16(1.f), Float16(-0.5f)}, Shape{1, 2}, "'<f2'");
  expect_round_trip<int8_t>({-128, 127, 0}, Shape{3}, "'|i1'");
  expect_round_trip<int16_t>({-32768, 32767}, Shape{2}, "'<i2'");
  expect_round_trip<int32_t>({-5, 7, 1 << 30}, Shape{3, 1}, "'<i4'");
  expect_round_trip<int64_t>({int64_t(1) << 62, -1}, Shape{2}, "'<i8'");
  expect_round_trip<uint8_t>({0, 255}, Shape{2}, "'|u1'");
  expect_round_trip<uint16_t>({0, 65535}, Shape{2}, "'<u2'");
  expect_round_trip<uint32_t>({0, 4000000000u}, Shape{2}, "'<u4'");
  expect_round_trip<uint64_t>({0, ~uint64_t(0)}, Shape{2}, "'<u8'");
  expect_round_trip<bool>({true, false, true}, Shape{3}, "'|b1'");
  expect_round_trip<std::complex<float>>({{1.f, 2.f}}, Shape{1}, "'<c8'");
  expect_round_trip<std::complex<double>>({{1., -2.}}, Shape{1}, "'<c16'");
}

TEST(NpyRoundTrip, ScalarAndEmpty) {
  expect_round_trip<float>({42.f}, Shape{}, "'shape': ()");
  expect_round_trip<int64_t>({}, Shape{0, 5}, "'shape': (0, 5)");
  expect_round_trip<float>({1.f}, Shape{1}, "'shape': (1,)");
}

TEST(NpyRoundTrip, HeaderIsPaddedTo64Bytes) {
  std::string bytes = serialize_npy(Tensor::from_vector<float>({1, 2, 3}, Shape{3}));
  size_t header_len = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_EQ(bytes[10 + header_len - 1], '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 12);
}

TEST(NpyRoundTrip, FileReadWrite) {
  auto path = std::filesystem::temp_directory_path() / "tessera_npy_test.npy";
  Tensor t = Tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  write_npy(path.string(), t);
  Tensor back = read_npy(path.string());
  EXPECT_EQ(back.shape(), t.shape());
  EXPECT_EQ(back.data<int32_t>()[5], 6);
  std::filesystem::remove(path);
}

TEST(NpyRead, AcceptsVersions2And3AndNumpyStyleHeaders) {
  std::string data(8, '\0');
  data[0] = 1;
  data[4] = 2;
  for (int major : {1, 2, 3}) {
    // Double quotes, Python 2 long suffix, keys in any order, no trailing comma.
    std::string bytes = make_npy(
        "{ \"shape\" : ( 2L , ) ,'fortran_order':False,\"descr\":'<i4'}   \n", data, major);
    Tensor t = parse_npy(bytes.data(), bytes.size());
    EXPECT_EQ(t.dtype(), DataType::kInt32);
    EXPECT_EQ(t.shape(), Shape{2});
    EXPECT_EQ(t.data<int32_t>()[1], 2);
  }
  // No byte-order mark and the native '=' mark both mean little-endian here.
  for (const char* descr : {"i4", "=i4"}) {
    std::string bytes = make_npy(std::string("{'descr': '") + descr +
                                     "', 'fortran_order': False, 'shape': (2,), }\n",
                                 data);
    EXPECT_EQ(parse_npy(bytes.data(), bytes.size()).data<int32_t>()[0], 1);
  }
}

TEST(NpyRead, BoolBytesAreNormalised) {
  std::string bytes = make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }\n",
                               std::string("\x00\x07", 2));
  Tensor t = parse_npy(bytes.data(), bytes.size());
  EXPECT_EQ(t.data<bool>()[0], false);
  EXPECT_EQ(t.data<bool>()[1], true);
}

TEST(NpyRead, MalformedFilesGiveClearErrors) {
  const std::string data(8, '\0');
  auto with = [&](const std::string& dict, const std::string& d) { return error_of(make_npy(dict, d)); };
  auto dict = [](const std::string& descr, const std::string& fortran, const std::string& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n";
  };
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos;
  };
  std::string e;
  e = error_of("not an npy file at all");
  EXPECT_TRUE(has(e, "x.npy") && has(e, "magic")) << e;
  e = error_of(std::string("\x93NUMPY\x01", 7));
  EXPECT_TRUE(has(e, "magic") || has(e, "truncated")) << e;
  e = error_of(make_npy(dict("<f4", "False", "(2,)"), data, 4));
  EXPECT_TRUE(has(e, "version 4.0")) << e;
  // Header length pointing past the end of the file.
  std::string bytes = make_npy(dict("<f4", "False", "(2,)"), data);
  bytes.resize(20);
  e = error_of(bytes);
  EXPECT_TRUE(has(e, "runs past the end")) << e;
  e = with(dict("<f4", "True", "(2,)"), data);
  EXPECT_TRUE(has(e, "Fortran-order")) << e;
  e = with(dict(">f4", "False", "(2,)"), data);
  EXPECT_TRUE(has(e, "big-endian")) << e;
  e = with(dict("<U4", "False", "(2,)"), data);
  EXPECT_TRUE(has(e, "'<U4'") && has(e, "not supported")) << e;
  e = with(dict("<f3", "False", "(2,)"), data);
  EXPECT_TRUE(has(e, "not supported")) << e;
  e = with("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }\n", data);
  EXPECT_TRUE(has(e, "structured")) << e;
  e = with(dict("<f4", "False", "(3,)"), data);
  EXPECT_TRUE(has(e, "needs 12 data bytes but the file has 8")) << e;
  e = with(dict("<f4", "False", "(1,)"), data);
  EXPECT_TRUE(has(e, "4 unexpected bytes")) << e;
  e = with(dict("<f4", "False", "(-1,)"), data);
  EXPECT_TRUE(has(e, "non-negative dimension")) << e;
  e = with(dict("<f4", "False", "(99999999999, 99999999999, 99999999999)"), data);
  EXPECT_TRUE(has(e, "too large")) << e;
  e = with(dict("<f4", "False", "(99999999999999999999999,)"), data);
  EXPECT_TRUE(has(e, "too large")) << e;
  e = with("{'descr': '<f4', 'shape': (2,), }\n", data);
  EXPECT_TRUE(has(e, "no 'fortran_order'")) << e;
  e = with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}\n", data);
  EXPECT_TRUE(has(e, "unexpected header key 'extra'")) << e;
  e = with("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n", data);
  EXPECT_TRUE(has(e, "appears twice")) << e;
  e = with("{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}\n", data);
  EXPECT_TRUE(has(e, "malformed .npy header")) << e;
  e = with("{'descr': '<f4', 'fortran_order': maybe, 'shape': (2,)}\n", data);
  EXPECT_TRUE(has(e, "True or False")) << e;
  e = with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} trailing\n", data);
  EXPECT_TRUE(has(e, "after the header")) << e;
  e = with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,\n", data);
  EXPECT_TRUE(has(e, "malformed")) << e;
}

TEST(NpyRead, MissingFileNamesThePath) {
  try {
    read_npy("/nonexistent/dir/in.npy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNoSuchFile);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/in.npy"), std::string::npos);
  }
}

TEST(NpyWrite, TypesWithoutANumpyDtypeAreRefused) {
  EXPECT_FALSE(npy_supports(DataType::kBFloat16));
  EXPECT_TRUE(npy_supports(DataType::kFloat16));
  Tensor bf = Tensor::from_vector<BFloat16>({BFloat16(1.f)}, Shape{1});
  try {
    serialize_npy(bf);
    FAIL() << "bfloat16 must not be written silently as another dtype";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bfloat16"), std::string::npos) << e.what();
  }
  Tensor s = Tensor::from_vector<std::string>({"a"}, Shape{1});
  EXPECT_THROW(serialize_npy(s), Error);
  EXPECT_THROW(write_npy("/nonexistent/dir/out.npy", Tensor::scalar(1.f)), Error);
}
