// What a custom op's compute asks of its kernel context beyond inputs and
// outputs: provider resources, the run's stream, and an output the caller
// preallocated (KernelContext_GetPreallocatedOutput).
#include <cstring>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

// What Doubler's compute saw, for the test to check.
struct Seen {
  int calls = 0;
  std::string resource, bad_resource_version, null_resource, stream, null_stream;
  std::string prealloc, prealloc_out_of_range, prealloc_null;
  bool resource_null = false, stream_null = false;
  void* preallocated_data = nullptr;  // the bound output's data, or null
};
Seen g_seen;

std::string msg(OrtStatus* st) {
  auto r = result(st);
  return r.first == ORT_OK ? "" : r.second;
}

void* ORT_API_CALL doubler_create(const OrtCustomOp*, const OrtApi*, const OrtKernelInfo*) {
  return new int(0);
}

void ORT_API_CALL doubler_compute(void*, OrtKernelContext* ctx) {
  const OrtApi* a = api();
  Seen& s = g_seen;
  ++s.calls;
  void* resource = reinterpret_cast<void*>(1);
  s.resource = msg(a->KernelContext_GetResource(ctx, 1, 0, &resource));
  s.resource_null = resource == nullptr;
  s.bad_resource_version = msg(a->KernelContext_GetResource(ctx, 0, 0, &resource));
  s.null_resource = msg(a->KernelContext_GetResource(ctx, 1, 0, nullptr));
  OrtSyncStream* stream = reinterpret_cast<OrtSyncStream*>(1);
  s.stream = msg(a->KernelContext_GetSyncStream(ctx, &stream));
  s.stream_null = stream == nullptr;
  s.null_stream = msg(a->KernelContext_GetSyncStream(ctx, nullptr));
  OrtValue* bound = nullptr;
  s.prealloc = msg(a->KernelContext_GetPreallocatedOutput(ctx, 0, &bound));
  s.prealloc_out_of_range = msg(a->KernelContext_GetPreallocatedOutput(ctx, 3, &bound));
  s.prealloc_null = msg(a->KernelContext_GetPreallocatedOutput(ctx, 0, nullptr));
  a->KernelContext_GetPreallocatedOutput(ctx, 0, &bound);

  const OrtValue* x = nullptr;
  a->KernelContext_GetInput(ctx, 0, &x);
  const float* px = nullptr;
  a->GetTensorData(x, reinterpret_cast<const void**>(&px));
  OrtValue* y = bound;
  s.preallocated_data = nullptr;
  if (y == nullptr) {
    const int64_t dims[] = {4};
    a->KernelContext_GetOutput(ctx, 0, dims, 1, &y);
  }
  float* py = nullptr;
  a->GetTensorMutableData(y, reinterpret_cast<void**>(&py));
  if (bound) s.preallocated_data = py;
  for (int i = 0; i < 4; ++i) py[i] = 2 * px[i];
}

void ORT_API_CALL doubler_destroy(void* k) { delete static_cast<int*>(k); }
const char* ORT_API_CALL doubler_name(const OrtCustomOp*) { return "Doubler"; }
ONNXTensorElementDataType ORT_API_CALL float_type(const OrtCustomOp*, size_t) {
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
size_t ORT_API_CALL one(const OrtCustomOp*) { return 1; }

OrtCustomOp make_doubler() {
  OrtCustomOp op;
  std::memset(&op, 0, sizeof op);
  op.version = ORT_API_VERSION;
  op.CreateKernel = doubler_create;
  op.GetName = doubler_name;
  op.GetInputType = float_type;
  op.GetInputTypeCount = one;
  op.GetOutputType = float_type;
  op.GetOutputTypeCount = one;
  op.KernelCompute = doubler_compute;
  op.KernelDestroy = doubler_destroy;
  return op;
}
OrtCustomOp g_doubler = make_doubler();

OrtSession* doubler_session() {
  OrtSessionOptions* o = nullptr;
  EXPECT_EQ(result(api()->CreateSessionOptions(&o)).first, ORT_OK);
  OrtCustomOpDomain* domain = nullptr;
  EXPECT_EQ(result(api()->CreateCustomOpDomain("test.kernel_context", &domain)).first, ORT_OK);
  EXPECT_EQ(result(api()->CustomOpDomain_Add(domain, &g_doubler)).first, ORT_OK);
  EXPECT_EQ(result(api()->AddCustomOpDomain(o, domain)).first, ORT_OK);
  OrtSession* s = open_session("doubler.onnx", o);
  api()->ReleaseCustomOpDomain(domain);
  api()->ReleaseSessionOptions(o);
  return s;
}

TEST(CApiKernelContextExtras, TheCpuProviderLendsNoResourceOrStream) {
  OrtSession* s = doubler_session();
  ASSERT_NE(s, nullptr);
  std::vector<float> x = {1, 2, 3, 4};
  OrtValue* in = float_tensor(x, {4});
  const char* in_name = "x";
  const char* out_name = "y";
  OrtValue* out = nullptr;
  g_seen = Seen{};
  CAPI_OK(api()->Run(s, nullptr, &in_name, &in, 1, &out_name, 1, &out));
  EXPECT_EQ(floats(out), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(g_seen.calls, 1);
  EXPECT_EQ(g_seen.resource, "");
  EXPECT_TRUE(g_seen.resource_null);
  EXPECT_NE(g_seen.bad_resource_version.find("resource_version 0 is not a version"),
            std::string::npos)
      << g_seen.bad_resource_version;
  EXPECT_NE(g_seen.null_resource.find("resource is null"), std::string::npos)
      << g_seen.null_resource;
  EXPECT_EQ(g_seen.stream, "");
  EXPECT_TRUE(g_seen.stream_null);
  EXPECT_NE(g_seen.null_stream.find("out is null"), std::string::npos) << g_seen.null_stream;
  // Nothing bound: no preallocated output.
  EXPECT_EQ(g_seen.prealloc, "");
  EXPECT_EQ(g_seen.preallocated_data, nullptr);
  EXPECT_NE(g_seen.prealloc_out_of_range.find("output index 3 is out of range"), std::string::npos)
      << g_seen.prealloc_out_of_range;
  EXPECT_NE(g_seen.prealloc_null.find("output is null"), std::string::npos) << g_seen.prealloc_null;
  api()->ReleaseValue(out);
  api()->ReleaseValue(in);
  api()->ReleaseSession(s);
}

TEST(CApiKernelContextExtras, AnOutputTheCallerPreallocatedIsHandedToTheKernel) {
  OrtSession* s = doubler_session();
  ASSERT_NE(s, nullptr);
  std::vector<float> x = {1, 2, 3, 4}, y(4, -1.0f);
  OrtValue* in = float_tensor(x, {4});
  OrtValue* out = float_tensor(y, {4});
  const char* in_name = "x";
  const char* out_name = "y";
  g_seen = Seen{};
  CAPI_OK(api()->Run(s, nullptr, &in_name, &in, 1, &out_name, 1, &out));
  EXPECT_EQ(g_seen.prealloc, "");
  EXPECT_EQ(g_seen.preallocated_data, y.data()) << "the kernel did not get the caller's buffer";
  EXPECT_EQ(y, (std::vector<float>{2, 4, 6, 8}));
  api()->ReleaseValue(out);
  api()->ReleaseValue(in);
  api()->ReleaseSession(s);
}

TEST(CApiKernelContextExtras, ANullContextIsAnErrorNamingIt) {
  void* resource = nullptr;
  auto r = result(api()->KernelContext_GetResource(nullptr, 1, 0, &resource));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("kernel context is null"), std::string::npos) << r.second;
  OrtSyncStream* stream = nullptr;
  r = result(api()->KernelContext_GetSyncStream(nullptr, &stream));
  EXPECT_NE(r.second.find("kernel context is null"), std::string::npos) << r.second;
  OrtValue* v = nullptr;
  r = result(api()->KernelContext_GetPreallocatedOutput(nullptr, 0, &v));
  EXPECT_NE(r.second.find("kernel context is null"), std::string::npos) << r.second;
}

}  // namespace
