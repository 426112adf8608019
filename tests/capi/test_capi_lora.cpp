// LoRA adapters through the C ABI: an adapter (onnxruntime's FlatBuffers
// format, laid out here by hand) made active in run options feeds its
// parameters as the inputs of their names.
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <string>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

template <typename T>
void put(std::string& b, T v) {
  b.append(reinterpret_cast<const char*>(&v), sizeof(T));
}
template <typename T>
void put_at(std::string& b, size_t at, T v) {
  std::memcpy(&b[at], &v, sizeof(T));
}
void pad(std::string& b, size_t align, size_t extra = 0) {
  while ((b.size() + extra) % align) b.push_back('\0');
}

// An adapter file holding one float parameter `name` of `values` (1-D):
// root offset and "TORT", one vtable (4 fields, all 4 bytes wide) shared by
// the Adapter and the Parameter table, the tables, then the vectors.
std::string adapter_bytes(const std::string& name, const std::vector<float>& values,
                          int32_t format_version = 1) {
  std::string b;
  put<uint32_t>(b, 0);
  b += "TORT";
  const size_t vtable = b.size();
  for (uint16_t v : {12, 20, 4, 8, 12, 16}) put<uint16_t>(b, v);
  const size_t root = b.size();
  put<int32_t>(b, int32_t(root - vtable));
  put<int32_t>(b, format_version);
  put<int32_t>(b, 2);  // adapter version
  put<int32_t>(b, 3);  // model version
  put<uint32_t>(b, 0);  // -> parameters
  const size_t params = b.size();
  put<uint32_t>(b, 1);
  put<uint32_t>(b, 0);  // -> the one Parameter
  const size_t table = b.size();
  put<int32_t>(b, int32_t(table - vtable));
  for (int i = 0; i < 4; ++i) put<uint32_t>(b, 0);
  put_at<uint32_t>(b, 0, uint32_t(root));
  put_at<uint32_t>(b, root + 16, uint32_t(params - (root + 16)));
  put_at<uint32_t>(b, params + 4, uint32_t(table - (params + 4)));
  put_at<int32_t>(b, table + 12, 1);  // FLOAT
  const size_t name_at = b.size();
  put<uint32_t>(b, uint32_t(name.size()));
  b += name;
  b.push_back('\0');
  put_at<uint32_t>(b, table + 4, uint32_t(name_at - (table + 4)));
  pad(b, 8, 4);
  const size_t dims_at = b.size();
  put<uint32_t>(b, 1);
  put<int64_t>(b, int64_t(values.size()));
  put_at<uint32_t>(b, table + 8, uint32_t(dims_at - (table + 8)));
  pad(b, 8, 4);
  const size_t raw_at = b.size();
  put<uint32_t>(b, uint32_t(values.size() * 4));
  b.append(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  put_at<uint32_t>(b, table + 16, uint32_t(raw_at - (table + 16)));
  pad(b, 8);
  return b;
}

std::vector<float> run_y(OrtSession* s, OrtRunOptions* ro) {
  std::vector<float> x = {1, 2};
  OrtValue* in[1] = {float_tensor(x, {2})};
  const char* in_names[1] = {"x"};
  const char* out_names[1] = {"y"};
  OrtValue* out[1] = {nullptr};
  auto r = result(api()->Run(s, ro, in_names, in, 1, out_names, 1, out));
  EXPECT_EQ(r.first, ORT_OK) << r.second;
  std::vector<float> y = out[0] ? floats(out[0]) : std::vector<float>{};
  api()->ReleaseValue(in[0]);
  if (out[0]) api()->ReleaseValue(out[0]);
  return y;
}

}  // namespace

TEST(CApiLora, ActiveAdapterFeedsItsParameters) {
  OrtSession* s = open_session("overridable.onnx");  // y = x + bias (default 10, 20)
  ASSERT_NE(s, nullptr);
  const std::string bytes = adapter_bytes("bias", {100, 200});
  OrtLoraAdapter* from_bytes = nullptr;
  CAPI_OK(api()->CreateLoraAdapterFromArray(bytes.data(), bytes.size(), nullptr, &from_bytes));
  OrtRunOptions* ro = nullptr;
  CAPI_OK(api()->CreateRunOptions(&ro));
  CAPI_OK(api()->RunOptionsAddActiveLoraAdapter(ro, from_bytes));
  EXPECT_EQ(run_y(s, ro), (std::vector<float>{101, 202}));
  EXPECT_EQ(run_y(s, nullptr), (std::vector<float>{11, 22}));  // the base model
  api()->ReleaseRunOptions(ro);
  api()->ReleaseLoraAdapter(from_bytes);

  // With the host allocator given: the same parameters, in its memory.
  OrtAllocator* host = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&host));
  OrtLoraAdapter* on_host = nullptr;
  CAPI_OK(api()->CreateLoraAdapterFromArray(bytes.data(), bytes.size(), host, &on_host));
  CAPI_OK(api()->CreateRunOptions(&ro));
  CAPI_OK(api()->RunOptionsAddActiveLoraAdapter(ro, on_host));
  EXPECT_EQ(run_y(s, ro), (std::vector<float>{101, 202}));
  api()->ReleaseRunOptions(ro);
  api()->ReleaseLoraAdapter(on_host);

  // From a file; run options keep the adapter alive after its release.
  const std::string path = ::testing::TempDir() + "capi_lora.onnx_adapter";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const std::string other = adapter_bytes("bias", {-1, -2});
  std::fwrite(other.data(), 1, other.size(), f);
  std::fclose(f);
  OrtLoraAdapter* from_file = nullptr;
  CAPI_OK(api()->CreateLoraAdapter(path.c_str(), nullptr, &from_file));
  std::remove(path.c_str());
  CAPI_OK(api()->CreateRunOptions(&ro));
  CAPI_OK(api()->RunOptionsAddActiveLoraAdapter(ro, from_file));
  api()->ReleaseLoraAdapter(from_file);
  EXPECT_EQ(run_y(s, ro), (std::vector<float>{0, 0}));
  api()->ReleaseRunOptions(ro);
  api()->ReleaseSession(s);
}

TEST(CApiLora, BadAdaptersAreErrors) {
  OrtLoraAdapter* a = nullptr;
  const std::string v2 = adapter_bytes("bias", {1, 2}, 2);
  auto r = result(api()->CreateLoraAdapterFromArray(v2.data(), v2.size(), nullptr, &a));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("LoRA adapter format version 2 is not supported"), std::string::npos)
      << r.second;
  const std::string good = adapter_bytes("bias", {1, 2});
  r = result(api()->CreateLoraAdapterFromArray(good.data(), 20, nullptr, &a));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("not a valid LoRA adapter"), std::string::npos) << r.second;
  r = result(api()->CreateLoraAdapter("/nonexistent/a.onnx_adapter", nullptr, &a));
  EXPECT_EQ(r.first, ORT_NO_SUCHFILE) << r.second;
  EXPECT_EQ(a, nullptr);
}
