// Initializers stored in external files: mapped or read, and refused when the
// location would leave the model's folder.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "onnx/model_reader.hpp"
#include "onnx_test_util.hpp"

using namespace tessera;
using test::expect_error;
using test::Msg;

namespace {

// A model with one float initializer 'w' of `n` elements stored externally.
std::string model_with_external(const std::string& location, int64_t n, const std::string& offset = "",
                                const std::string& length = "") {
  Msg t;
  t.varint(1, uint64_t(n)).varint(2, 1).str(8, "w").varint(14, 1);
  t.msg(13, Msg().str(1, "location").str(2, location));
  if (!offset.empty()) t.msg(13, Msg().str(1, "offset").str(2, offset));
  if (!length.empty()) t.msg(13, Msg().str(1, "length").str(2, length));
  Msg model;
  model.varint(1, 8).msg(7, Msg().str(2, "g").msg(5, t));
  return model.bytes;
}

std::string floats(std::initializer_list<float> v) {
  std::vector<float> f(v);
  return std::string(reinterpret_cast<const char*>(f.data()), f.size() * 4);
}

bool is_mapped(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream ss;
  ss << maps.rdbuf();
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved)) return false;
  return ss.str().find(resolved) != std::string::npos;
}

}  // namespace

TEST(OnnxExternalData, PageAlignedOffsetIsMapped) {
  test::TempDir dir;
  std::string data(4096, '\0');
  data += floats({1, 2, 3});
  test::write_file(dir.file("weights.bin"), data);
  test::write_file(dir.file("m.onnx"), model_with_external("weights.bin", 3, "4096", "12"));
  {
    ir::Model m = onnx::load_model(dir.file("m.onnx"));
    const Tensor& w = m.graph.initializers.at("w");
    EXPECT_EQ(w.data<float>()[2], 3.0f);
    EXPECT_TRUE(is_mapped(dir.file("weights.bin")));
    // The mapping is private: writing the tensor leaves the file alone.
    Tensor copy = w;
    copy.mutable_data<float>()[0] = 42;
  }
  EXPECT_FALSE(is_mapped(dir.file("weights.bin")));  // released with the model
  std::ifstream f(dir.file("weights.bin"), std::ios::binary);
  std::string again((std::istreambuf_iterator<char>(f)), {});
  EXPECT_EQ(again, data);
}

TEST(OnnxExternalData, UnalignedOffsetIsRead) {
  test::TempDir dir;
  test::write_file(dir.file("w.bin"), "abc" + floats({5, 6}));
  test::write_file(dir.file("m.onnx"), model_with_external("w.bin", 2, "3"));
  ir::Model m = onnx::load_model(dir.file("m.onnx"));
  EXPECT_EQ(m.graph.initializers.at("w").data<float>()[1], 6.0f);
}

TEST(OnnxExternalData, SubfolderAndWholeFile) {
  test::TempDir dir;
  std::filesystem::create_directory(dir.file("data"));
  test::write_file(dir.file("data/w.bin"), floats({7, 8}));
  test::write_file(dir.file("m.onnx"), model_with_external("data/w.bin", 2));
  EXPECT_EQ(onnx::load_model(dir.file("m.onnx")).graph.initializers.at("w").data<float>()[0], 7.0f);
}

TEST(OnnxExternalData, OffsetsPast2GiB) {
  test::TempDir dir;
  // A sparse file: 3 GiB long, four floats at 2 GiB + 4 KiB.
  std::string path = dir.file("big.bin");
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  const uint64_t offset = (uint64_t(1) << 31) + 4096;
  std::string payload = floats({1, 2, 3, 4});
  bool ok = ::ftruncate(fd, off_t(3) << 30) == 0 &&
            ::pwrite(fd, payload.data(), payload.size(), off_t(offset)) == ssize_t(payload.size());
  ::close(fd);
  if (!ok) GTEST_SKIP() << "cannot create a sparse 3 GiB file here";
  test::write_file(dir.file("m.onnx"), model_with_external("big.bin", 4, std::to_string(offset), "16"));
  ir::Model m = onnx::load_model(dir.file("m.onnx"));
  EXPECT_EQ(m.graph.initializers.at("w").data<float>()[3], 4.0f);
}

TEST(OnnxExternalData, RangeAndLengthChecks) {
  test::TempDir dir;
  test::write_file(dir.file("w.bin"), floats({1, 2}));
  test::write_file(dir.file("a.onnx"), model_with_external("w.bin", 2, "4"));
  expect_error([&] { onnx::load_model(dir.file("a.onnx")); }, ErrorCode::kInvalidGraph,
               "holds 4 bytes");
  test::write_file(dir.file("b.onnx"), model_with_external("w.bin", 2, "100", "8"));
  expect_error([&] { onnx::load_model(dir.file("b.onnx")); }, ErrorCode::kInvalidGraph,
               "past the end");
  test::write_file(dir.file("c.onnx"), model_with_external("w.bin", 2, "0", "4"));
  expect_error([&] { onnx::load_model(dir.file("c.onnx")); }, ErrorCode::kInvalidGraph,
               "length 4 does not match the 8 bytes");
  test::write_file(dir.file("d.onnx"), model_with_external("w.bin", 2, "-1"));
  expect_error([&] { onnx::load_model(dir.file("d.onnx")); }, ErrorCode::kInvalidProtobuf,
               "offset '-1' is not a number");
  test::write_file(dir.file("e.onnx"), model_with_external("missing.bin", 2));
  expect_error([&] { onnx::load_model(dir.file("e.onnx")); }, ErrorCode::kNoSuchFile,
               "missing.bin");
}

TEST(OnnxExternalData, EscapingLocationsAreRefused) {
  test::TempDir dir;
  std::filesystem::create_directory(dir.file("model"));
  test::write_file(dir.file("secret.bin"), floats({1, 2}));
  std::filesystem::create_symlink(dir.file("secret.bin"), dir.file("model/link.bin"));
  std::filesystem::create_directory_symlink(dir.path(), dir.file("model/up"));

  struct Case {
    std::string location, needle;
  };
  for (const Case& c : std::vector<Case>{
           {"../secret.bin", "'..' path components are not allowed"},
           {"sub/../../secret.bin", "'..' path components are not allowed"},
           {dir.file("secret.bin"), "absolute paths are not allowed"},
           {"link.bin", "it resolves outside the model directory"},
           {"up/secret.bin", "it resolves outside the model directory"},
       }) {
    test::write_file(dir.file("model/m.onnx"), model_with_external(c.location, 2));
    expect_error([&] { onnx::load_model(dir.file("model/m.onnx")); }, ErrorCode::kInvalidGraph,
                 "tensor 'w': external data location '" + c.location + "' refused: " + c.needle);
  }
  // A symlink that stays inside the folder is fine.
  test::write_file(dir.file("model/real.bin"), floats({3, 4}));
  std::filesystem::create_symlink("real.bin", dir.file("model/alias.bin"));
  test::write_file(dir.file("model/m.onnx"), model_with_external("alias.bin", 2));
  EXPECT_EQ(onnx::load_model(dir.file("model/m.onnx")).graph.initializers.at("w").data<float>()[1], 4.0f);
}

TEST(OnnxExternalData, BytesWithoutBaseDirAreRefused) {
  std::string bytes = model_with_external("w.bin", 2);
  expect_error([&] { onnx::parse_model(bytes.data(), bytes.size()); }, ErrorCode::kInvalidGraph,
               "without a base directory");
}
