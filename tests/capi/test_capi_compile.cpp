// The compile table: a compiled model is the input model optimized at the
// compile options' level, written to a file, a buffer or a write function,
// and it runs; bad handles, a missing input and an output that exists under
// ERROR_IF_OUTPUT_FILE_EXISTS fail naming what is wrong.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

const OrtCompileApi* compiler() { return api()->GetCompileApi(); }

// Compile options over default session options, reading identity_add.onnx.
OrtModelCompilationOptions* options_for(const std::string& input) {
  OrtSessionOptions* so = nullptr;
  EXPECT_EQ(result(api()->CreateSessionOptions(&so)).first, ORT_OK);
  OrtModelCompilationOptions* o = nullptr;
  auto r = result(compiler()->CreateModelCompilationOptionsFromSessionOptions(env(), so, &o));
  EXPECT_EQ(r.first, ORT_OK) << r.second;
  api()->ReleaseSessionOptions(so);
  if (!input.empty()) {
    EXPECT_EQ(result(compiler()->ModelCompilationOptions_SetInputModelPath(o, input.c_str())).first,
              ORT_OK);
  }
  return o;
}

std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A fresh folder for a test's outputs.
std::filesystem::path out_folder(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("tessera_capi_compile_" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

// Runs a compiled model (bytes) on x = 1..256 and checks y = x + w (w = 0..255).
void expect_runs(const std::string& model) {
  OrtSession* s = nullptr;
  auto r = result(api()->CreateSessionFromArray(env(), model.data(), model.size(), nullptr, &s));
  ASSERT_EQ(r.first, ORT_OK) << r.second;
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i + 1);
  OrtValue* in = float_tensor(x, {256});
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  OrtValue* out = nullptr;
  CAPI_OK(api()->Run(s, nullptr, in_names, &in, 1, out_names, 1, &out));
  const std::vector<float> y = floats(out);
  ASSERT_EQ(y.size(), 256u);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], float(2 * i + 1)) << i;
  api()->ReleaseValue(out);
  api()->ReleaseValue(in);
  api()->ReleaseSession(s);
}

bool has(const std::string& bytes, const std::string& what) {
  return bytes.find(what) != std::string::npos;
}

struct Collected {
  std::string bytes;
  bool fail = false;
};

OrtStatus* ORT_API_CALL collect(void* state, const void* buffer, size_t n) noexcept {
  auto* c = static_cast<Collected*>(state);
  if (c->fail) return api()->CreateStatus(ORT_FAIL, "the disk is full");
  c->bytes.append(static_cast<const char*>(buffer), n);
  return nullptr;
}

}  // namespace

TEST(CApiCompile, AFileIsTheModelAtTheCompileLevel) {
  const auto dir = out_folder("file");
  const std::string plain = (dir / "plain.onnx").string();
  const std::string basic = (dir / "basic.onnx").string();
  OrtModelCompilationOptions* o = options_for(model_path("identity_add.onnx"));
  // Unless a level is set, nothing is optimized away.
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelPath(o, plain.c_str()));
  CAPI_OK(compiler()->CompileModel(env(), o));
  CAPI_OK(compiler()->ModelCompilationOptions_SetGraphOptimizationLevel(o, ORT_ENABLE_BASIC));
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelPath(o, basic.c_str()));
  CAPI_OK(compiler()->CompileModel(env(), o));
  compiler()->ReleaseModelCompilationOptions(o);
  const std::string a = read_bytes(plain), b = read_bytes(basic);
  EXPECT_TRUE(has(a, "pass_through")) << "the Identity node is kept at ORT_DISABLE_ALL";
  EXPECT_FALSE(has(b, "pass_through")) << "ORT_ENABLE_BASIC removes the Identity node";
  expect_runs(a);
  expect_runs(b);
  std::filesystem::remove_all(dir);
}

TEST(CApiCompile, WithoutAnOutputTheFileIsNamedAfterTheInput) {
  const auto dir = out_folder("derived");
  const auto input = dir / "model.onnx";
  std::filesystem::copy_file(model_path("identity_add.onnx"), input);
  OrtModelCompilationOptions* o = options_for(input.string());
  CAPI_OK(compiler()->CompileModel(env(), o));
  compiler()->ReleaseModelCompilationOptions(o);
  ASSERT_TRUE(std::filesystem::exists(dir / "model_ctx.onnx"));
  expect_runs(read_bytes(dir / "model_ctx.onnx"));
  std::filesystem::remove_all(dir);
}

TEST(CApiCompile, ABufferComesFromTheApplicationsAllocator) {
  std::vector<char> model_bytes;
  {
    const std::string s = read_bytes(model_path("identity_add.onnx"));
    model_bytes.assign(s.begin(), s.end());
  }
  OrtModelCompilationOptions* o = options_for("");
  CAPI_OK(compiler()->ModelCompilationOptions_SetInputModelFromBuffer(o, model_bytes.data(),
                                                                      model_bytes.size()));
  OrtAllocator* alloc = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&alloc));
  void* buffer = nullptr;
  size_t size = 0;
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelBuffer(o, alloc, &buffer, &size));
  CAPI_OK(compiler()->CompileModel(env(), o));
  compiler()->ReleaseModelCompilationOptions(o);
  ASSERT_NE(buffer, nullptr);
  ASSERT_GT(size, 0u);
  expect_runs(std::string(static_cast<const char*>(buffer), size));
  alloc->Free(alloc, buffer);
}

TEST(CApiCompile, AWriteFunctionGetsTheBytesAndItsFailureIsReported) {
  OrtModelCompilationOptions* o = options_for(model_path("identity_add.onnx"));
  Collected c;
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelWriteFunc(o, &collect, &c));
  CAPI_OK(compiler()->CompileModel(env(), o));
  expect_runs(c.bytes);
  c = Collected{{}, true};
  auto r = result(compiler()->CompileModel(env(), o));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("write function failed: the disk is full"), std::string::npos)
      << r.second;
  compiler()->ReleaseModelCompilationOptions(o);
}

TEST(CApiCompile, LargeInitializersGoToTheExternalFile) {
  const auto dir = out_folder("external");
  const std::string out = (dir / "model.onnx").string();
  OrtModelCompilationOptions* o = options_for(model_path("identity_add.onnx"));
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelPath(o, out.c_str()));
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelExternalInitializersFile(
      o, "weights.bin", 1024));
  CAPI_OK(compiler()->CompileModel(env(), o));
  ASSERT_TRUE(std::filesystem::exists(dir / "weights.bin"));
  EXPECT_GE(std::filesystem::file_size(dir / "weights.bin"), 1024u);
  OrtSession* s = nullptr;
  CAPI_OK(api()->CreateSession(env(), out.c_str(), nullptr, &s));
  api()->ReleaseSession(s);
  // A model compiled to memory has no folder for the file.
  Collected c;
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelWriteFunc(o, &collect, &c));
  auto r = result(compiler()->CompileModel(env(), o));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("external initializers file needs an output model path"),
            std::string::npos)
      << r.second;
  compiler()->ReleaseModelCompilationOptions(o);
  std::filesystem::remove_all(dir);
}

TEST(CApiCompile, TheFlagsFailAsTheySay) {
  const auto dir = out_folder("flags");
  const std::string out = (dir / "exists.onnx").string();
  std::ofstream(out) << "something";
  OrtModelCompilationOptions* o = options_for(model_path("identity_add.onnx"));
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelPath(o, out.c_str()));
  CAPI_OK(compiler()->ModelCompilationOptions_SetFlags(
      o, OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_EXISTS));
  auto r = result(compiler()->CompileModel(env(), o));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("'" + out + "' exists already"), std::string::npos) << r.second;
  EXPECT_EQ(read_bytes(out), "something");
  // Without the flag the file is replaced.
  CAPI_OK(compiler()->ModelCompilationOptions_SetFlags(o, OrtCompileApiFlags_NONE));
  CAPI_OK(compiler()->CompileModel(env(), o));
  expect_runs(read_bytes(out));
  // No Tessera provider compiles nodes, so asking for compiled nodes fails.
  CAPI_OK(compiler()->ModelCompilationOptions_SetFlags(
      o, OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED));
  r = result(compiler()->CompileModel(env(), o));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("no node was compiled"), std::string::npos) << r.second;
  r = result(compiler()->ModelCompilationOptions_SetFlags(o, 1u << 5));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("flags 32"), std::string::npos) << r.second;
  compiler()->ReleaseModelCompilationOptions(o);
  std::filesystem::remove_all(dir);
}

TEST(CApiCompile, BadInputSaysWhatIsWrong) {
  auto expect_error = [](OrtStatus* s, OrtErrorCode code, const std::string& text) {
    auto r = result(s);
    EXPECT_EQ(r.first, code) << r.second;
    EXPECT_NE(r.second.find(text), std::string::npos) << r.second;
  };
  OrtModelCompilationOptions* o = nullptr;
  OrtSessionOptions* so = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&so));
  expect_error(compiler()->CreateModelCompilationOptionsFromSessionOptions(nullptr, so, &o),
               ORT_INVALID_ARGUMENT, "env is null");
  expect_error(compiler()->CreateModelCompilationOptionsFromSessionOptions(env(), nullptr, &o),
               ORT_INVALID_ARGUMENT, "session_options is null");
  expect_error(compiler()->CreateModelCompilationOptionsFromSessionOptions(env(), so, nullptr),
               ORT_INVALID_ARGUMENT, "out is null");
  api()->ReleaseSessionOptions(so);
  expect_error(compiler()->ModelCompilationOptions_SetInputModelPath(nullptr, "m.onnx"),
               ORT_INVALID_ARGUMENT, "model_compile_options is null");
  expect_error(
      compiler()->ModelCompilationOptions_SetGraphOptimizationLevel(nullptr, ORT_ENABLE_ALL),
      ORT_INVALID_ARGUMENT, "model_compile_options is null");
  expect_error(compiler()->CompileModel(env(), nullptr), ORT_INVALID_ARGUMENT,
               "model_options is null");

  o = options_for("");
  // No input at all, and an input that is not there.
  expect_error(compiler()->CompileModel(env(), o), ORT_INVALID_ARGUMENT,
               "the input model must be set");
  CAPI_OK(compiler()->ModelCompilationOptions_SetInputModelPath(o, "/no/such/model.onnx"));
  expect_error(compiler()->CompileModel(env(), o), ORT_INVALID_ARGUMENT,
               "'/no/such/model.onnx' does not exist");
  expect_error(compiler()->ModelCompilationOptions_SetInputModelFromBuffer(o, nullptr, 4),
               ORT_INVALID_ARGUMENT, "input_model_data is null");
  const char junk[] = "not a model";
  CAPI_OK(compiler()->ModelCompilationOptions_SetInputModelFromBuffer(o, junk, sizeof junk));
  // Bytes have no path to name the output after.
  expect_error(compiler()->CompileModel(env(), o), ORT_INVALID_ARGUMENT,
               "none can be derived from an input model that has no path");
  Collected c;
  CAPI_OK(compiler()->ModelCompilationOptions_SetOutputModelWriteFunc(o, &collect, &c));
  {
    auto r = result(compiler()->CompileModel(env(), o));
    EXPECT_NE(r.first, ORT_OK);
    EXPECT_EQ(r.second.rfind("CompileModel: ", 0), 0u) << r.second;
  }
  expect_error(compiler()->ModelCompilationOptions_SetOutputModelPath(o, ""), ORT_INVALID_ARGUMENT,
               "output_model_path is empty");
  expect_error(
      compiler()->ModelCompilationOptions_SetOutputModelBuffer(o, nullptr, nullptr, nullptr),
      ORT_INVALID_ARGUMENT, "allocator is null");
  expect_error(compiler()->ModelCompilationOptions_SetOutputModelWriteFunc(o, nullptr, nullptr),
               ORT_INVALID_ARGUMENT, "write_func is null");
  expect_error(compiler()->ModelCompilationOptions_SetGraphOptimizationLevel(
                   o, static_cast<GraphOptimizationLevel>(42)),
               ORT_INVALID_ARGUMENT, "42");
  expect_error(compiler()->ModelCompilationOptions_SetEpContextBinaryInformation(o, "", "m"),
               ORT_INVALID_ARGUMENT, "must not be empty");
  CAPI_OK(compiler()->ModelCompilationOptions_SetEpContextBinaryInformation(o, "/tmp", "m"));
  CAPI_OK(compiler()->ModelCompilationOptions_SetEpContextEmbedMode(o, true));
  CAPI_OK(compiler()->ModelCompilationOptions_SetWeightlessEnabled(o, false));
  expect_error(compiler()->ModelCompilationOptions_SetWeightlessEnabled(o, true),
               ORT_NOT_IMPLEMENTED, "ModelCompilationOptions_SetWeightlessEnabled");
  expect_error(compiler()->ModelCompilationOptions_SetOutputModelGetInitializerLocationFunc(
                   o, nullptr, nullptr),
               ORT_NOT_IMPLEMENTED,
               "ModelCompilationOptions_SetOutputModelGetInitializerLocationFunc");
  compiler()->ReleaseModelCompilationOptions(o);
  compiler()->ReleaseModelCompilationOptions(nullptr);
}
