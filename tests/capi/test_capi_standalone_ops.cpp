// CreateOp and InvokeOp: a custom op's kernel runs standard operators one at
// a time through the CPU provider's kernels, on its own inputs and outputs.
#include <cstring>
#include <string>
#include <vector>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

// The "Flip" op: Y = Transpose(X) for a 2-D float X, computed by InvokeOp;
// a second call with a wrong input count records the error it gets.
struct FlipKernel {
  OrtOp* transpose = nullptr;
  std::string create_error, miscount_error;
};

std::string take(OrtStatus* s) {
  std::string m = s ? api()->GetErrorMessage(s) : "";
  api()->ReleaseStatus(s);
  return m;
}

void* ORT_API_CALL flip_create(const OrtCustomOp*, const OrtApi* a, const OrtKernelInfo* info) {
  auto* k = new FlipKernel;
  const int64_t perm[] = {1, 0};
  OrtOpAttr* attr = nullptr;
  k->create_error = take(a->CreateOpAttr("perm", perm, 2, ORT_OP_ATTR_INTS, &attr));
  const char* names[] = {"T"};
  const ONNXTensorElementDataType types[] = {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT};
  const OrtOpAttr* attrs[] = {attr};
  if (k->create_error.empty())
    k->create_error = take(
        a->CreateOp(info, "Transpose", "", 17, names, types, 1, attrs, 1, 1, 1, &k->transpose));
  a->ReleaseOpAttr(attr);  // CreateOp keeps a copy
  return k;
}

void ORT_API_CALL flip_compute(void* kernel, OrtKernelContext* ctx) {
  const OrtApi* a = api();
  auto* k = static_cast<FlipKernel*>(kernel);
  if (k->transpose == nullptr) return;
  const OrtValue* x = nullptr;
  a->KernelContext_GetInput(ctx, 0, &x);
  OrtTensorTypeAndShapeInfo* info = nullptr;
  a->GetTensorTypeAndShape(x, &info);
  int64_t dims[2] = {};
  a->GetDimensions(info, dims, 2);
  a->ReleaseTensorTypeAndShapeInfo(info);
  const int64_t flipped[] = {dims[1], dims[0]};
  OrtValue* y = nullptr;
  a->KernelContext_GetOutput(ctx, 0, flipped, 2, &y);
  k->miscount_error = take(a->InvokeOp(ctx, k->transpose, &x, 2, &y, 1));
  OrtStatus* s = a->InvokeOp(ctx, k->transpose, &x, 1, &y, 1);
  EXPECT_EQ(take(s), "");
}

FlipKernel* g_last = nullptr;
void ORT_API_CALL flip_destroy(void* kernel) {
  auto* k = static_cast<FlipKernel*>(kernel);
  api()->ReleaseOp(k->transpose);
  if (g_last == k) g_last = nullptr;
  delete k;
}

const char* ORT_API_CALL flip_name(const OrtCustomOp*) { return "Flip"; }
size_t ORT_API_CALL one(const OrtCustomOp*) { return 1; }
ONNXTensorElementDataType ORT_API_CALL float_type(const OrtCustomOp*, size_t) {
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}

OrtCustomOp make_flip() {
  OrtCustomOp op;
  std::memset(&op, 0, sizeof op);
  op.version = ORT_API_VERSION;
  op.CreateKernel = [](const OrtCustomOp* o, const OrtApi* a, const OrtKernelInfo* info) {
    void* k = flip_create(o, a, info);
    g_last = static_cast<FlipKernel*>(k);
    return k;
  };
  op.GetName = flip_name;
  op.GetInputType = float_type;
  op.GetInputTypeCount = one;
  op.GetOutputType = float_type;
  op.GetOutputTypeCount = one;
  op.KernelCompute = flip_compute;
  op.KernelDestroy = flip_destroy;
  return op;
}

OrtCustomOp g_flip = make_flip();

// A one-node model, built with the model editor: Y = Flip(X), X float [2,3].
OrtModel* flip_model() {
  const OrtModelEditorApi* ed = api()->GetModelEditorApi();
  auto value = [&](const char* name, std::vector<int64_t> dims) {
    OrtTensorTypeAndShapeInfo* info = nullptr;
    EXPECT_EQ(result(api()->CreateTensorTypeAndShapeInfo(&info)).first, ORT_OK);
    EXPECT_EQ(result(api()->SetTensorElementType(info, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)).first,
              ORT_OK);
    EXPECT_EQ(result(api()->SetDimensions(info, dims.data(), dims.size())).first, ORT_OK);
    OrtTypeInfo* type = nullptr;
    EXPECT_EQ(result(ed->CreateTensorTypeInfo(info, &type)).first, ORT_OK);
    OrtValueInfo* v = nullptr;
    EXPECT_EQ(result(ed->CreateValueInfo(name, type, &v)).first, ORT_OK);
    api()->ReleaseTypeInfo(type);
    api()->ReleaseTensorTypeAndShapeInfo(info);
    return v;
  };
  OrtGraph* g = nullptr;
  EXPECT_EQ(result(ed->CreateGraph(&g)).first, ORT_OK);
  OrtValueInfo* in = value("X", {2, 3});
  OrtValueInfo* out = value("Y", {3, 2});
  EXPECT_EQ(result(ed->SetGraphInputs(g, &in, 1)).first, ORT_OK);
  EXPECT_EQ(result(ed->SetGraphOutputs(g, &out, 1)).first, ORT_OK);
  const char* ins[] = {"X"};
  const char* outs[] = {"Y"};
  OrtNode* n = nullptr;
  EXPECT_EQ(
      result(ed->CreateNode("Flip", "test.invoke", "flip", ins, 1, outs, 1, nullptr, 0, &n)).first,
      ORT_OK);
  EXPECT_EQ(result(ed->AddNodeToGraph(g, n)).first, ORT_OK);
  const char* domains[] = {"", "test.invoke"};
  const int versions[] = {17, 1};
  OrtModel* m = nullptr;
  EXPECT_EQ(result(ed->CreateModel(domains, versions, 2, &m)).first, ORT_OK);
  EXPECT_EQ(result(ed->AddGraphToModel(m, g)).first, ORT_OK);
  return m;
}

}  // namespace

TEST(CApiStandaloneOps, ACustomOpRunsATransposeThroughInvokeOp) {
  OrtSessionOptions* options = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&options));
  OrtCustomOpDomain* domain = nullptr;
  CAPI_OK(api()->CreateCustomOpDomain("test.invoke", &domain));
  CAPI_OK(api()->CustomOpDomain_Add(domain, &g_flip));
  CAPI_OK(api()->AddCustomOpDomain(options, domain));
  OrtModel* m = flip_model();
  OrtSession* session = nullptr;
  CAPI_OK(api()->GetModelEditorApi()->CreateSessionFromModel(env(), m, options, &session));
  ASSERT_NE(g_last, nullptr);
  EXPECT_EQ(g_last->create_error, "");
  std::vector<float> x{1, 2, 3, 4, 5, 6};
  OrtValue* xv = float_tensor(x, {2, 3});
  const char* in_names[] = {"X"};
  const char* out_names[] = {"Y"};
  OrtValue* y = nullptr;
  CAPI_OK(api()->Run(session, nullptr, in_names, &xv, 1, out_names, 1, &y));
  EXPECT_EQ(floats(y), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_NE(g_last->miscount_error.find("InvokeOp"), std::string::npos) << g_last->miscount_error;
  EXPECT_NE(g_last->miscount_error.find("2 inputs given"), std::string::npos)
      << g_last->miscount_error;
  api()->ReleaseValue(y);
  api()->ReleaseValue(xv);
  api()->ReleaseSession(session);
  api()->ReleaseModel(m);
  api()->ReleaseCustomOpDomain(domain);
  api()->ReleaseSessionOptions(options);
}

TEST(CApiStandaloneOps, CreateOpNamesWhatIsMissing) {
  // A kernel info comes only from a custom op's kernel creation; these
  // checks fail before it is read.
  OrtOp* op = nullptr;
  auto r = result(
      api()->CreateOp(nullptr, "Transpose", "", 17, nullptr, nullptr, 0, nullptr, 0, 1, 1, &op));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("CreateOp"), std::string::npos) << r.second;
  r = result(api()->InvokeOp(nullptr, nullptr, nullptr, 0, nullptr, 0));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("InvokeOp"), std::string::npos) << r.second;
  OrtOpAttr* attr = nullptr;
  r = result(api()->CreateOpAttr("s", nullptr, 0, ORT_OP_ATTR_STRING, &attr));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("data is null"), std::string::npos) << r.second;
}
