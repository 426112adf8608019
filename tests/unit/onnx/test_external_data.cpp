// Initializers stored in external files: mapped or read, and refused when the
// location would leave the model's folder.
#include <fcntl.h>
#include <gtest/gtest.h>
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
std::string model_with_external(const std::string& location, int64_t n,
                                const std::string& offset = "", const std::string& length = "") {
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
  test::write_file(dir.file("m.onnx"),
                   model_with_external("big.bin", 4, std::to_string(offset), "16"));
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
       }) {
    test::write_file(dir.file("model/m.onnx"), model_with_external(c.location, 2));
    expect_error([&] { onnx::load_model(dir.file("model/m.onnx")); }, ErrorCode::kInvalidGraph,
                 "tensor 'w': external data location '" + c.location + "' refused: " + c.needle);
  }
  // Symlinks out of the folder: refused in onnxruntime's words.
  for (const std::string location : {"link.bin", "up/secret.bin"}) {
    test::write_file(dir.file("model/m.onnx"), model_with_external(location, 2));
    expect_error([&] { onnx::load_model(dir.file("model/m.onnx")); }, ErrorCode::kInvalidGraph,
                 "External data path validation failed for tensor 'w': external data location '" +
                     location + "' refused: it resolves to '");
  }
  // A symlink that stays inside the folder is fine.
  test::write_file(dir.file("model/real.bin"), floats({3, 4}));
  std::filesystem::create_symlink("real.bin", dir.file("model/alias.bin"));
  test::write_file(dir.file("model/m.onnx"), model_with_external("alias.bin", 2));
  EXPECT_EQ(onnx::load_model(dir.file("model/m.onnx")).graph.initializers.at("w").data<float>()[1],
            4.0f);
}

TEST(OnnxExternalData, BytesWithoutBaseDirAreRefused) {
  std::string bytes = model_with_external("w.bin", 2);
  expect_error([&] { onnx::parse_model(bytes.data(), bytes.size()); }, ErrorCode::kInvalidGraph,
               "without a base directory");
}

// A model symlinked from a store (model.onnx -> ../../blobs/m, data.bin ->
// ../../blobs/d, as Hugging Face's cache lays them out) finds its data through
// the link's folder, and the data may live under the real model's folder.
TEST(OnnxExternalData, SymlinkedModelAndDataFromOneStore) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.file("blobs/sub"));
  std::filesystem::create_directories(dir.file("snap/v1"));
  std::filesystem::create_directories(dir.file("elsewhere"));
  test::write_file(dir.file("blobs/m"), model_with_external("data.bin", 2));
  test::write_file(dir.file("blobs/sub/d"), floats({5, 6}));
  test::write_file(dir.file("elsewhere/d"), floats({7, 8}));
  std::filesystem::create_symlink(dir.file("blobs/m"), dir.file("snap/v1/model.onnx"));
  std::filesystem::create_symlink(dir.file("blobs/sub/d"), dir.file("snap/v1/data.bin"));
  EXPECT_EQ(
      onnx::load_model(dir.file("snap/v1/model.onnx")).graph.initializers.at("w").data<float>()[1],
      6.0f);
  // Data whose real path is under neither folder is refused.
  std::filesystem::remove(dir.file("snap/v1/data.bin"));
  std::filesystem::create_symlink(dir.file("elsewhere/d"), dir.file("snap/v1/data.bin"));
  expect_error([&] { onnx::load_model(dir.file("snap/v1/model.onnx")); }, ErrorCode::kInvalidGraph,
               "External data path validation failed for tensor 'w'");
}

// The application's data stands in for the model's: a handed-in initializer
// is used without its file being read, an in-memory file without the disk.
TEST(OnnxExternalData, SuppliedInitializersAndFilesInMemory) {
  test::TempDir dir;
  test::write_file(dir.file("m.onnx"), model_with_external("absent.bin", 2));
  std::map<std::string, Tensor> given{{"w", Tensor::from_vector<float>({9, 10}, Shape{2})}};
  onnx::SuppliedExternalData s;
  s.initializers = &given;
  ir::Model m = onnx::load_model(dir.file("m.onnx"), s);
  EXPECT_EQ(m.graph.initializers.at("w").data<float>()[1], 10.0f);

  std::map<std::string, Tensor> wrong{{"w", Tensor::from_vector<float>({1, 2, 3}, Shape{3})}};
  s.initializers = &wrong;
  expect_error([&] { onnx::load_model(dir.file("m.onnx"), s); }, ErrorCode::kInvalidArgument,
               "initializer 'w' is float[2] in the model but the tensor handed in for it is "
               "float[3]");

  std::map<std::string, std::shared_ptr<const std::string>> files{
      {"absent.bin", std::make_shared<const std::string>("xxxx" + floats({3, 4}))}};
  onnx::SuppliedExternalData in_memory;
  in_memory.files = &files;
  std::string bytes = model_with_external("absent.bin", 2, "4", "8");
  // No folder at all: bytes parsed with their data files in memory.
  ir::Model b = onnx::parse_model(bytes.data(), bytes.size(), "", "<bytes>", in_memory);
  EXPECT_EQ(b.graph.initializers.at("w").data<float>()[0], 3.0f);
  std::string past = model_with_external("absent.bin", 2, "8");
  expect_error([&] { onnx::parse_model(past.data(), past.size(), "", "<bytes>", in_memory); },
               ErrorCode::kInvalidGraph, "holds 4 bytes from offset 8, the dims need 8");
}
