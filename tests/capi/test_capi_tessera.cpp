// Tessera's own C table (tessera/tessera_c_api.h) and provider selection
// by an application's delegate.
#include <cstring>

#include "capi_test_util.hpp"
#include "tessera/tessera_c_api.h"

using namespace capi_test;

namespace {

const TesseraApi* tapi() { return TesseraGetApiBase()->GetApi(TESSERA_API_VERSION); }

std::string take(char* s) {
  OrtAllocator* a = nullptr;
  EXPECT_EQ(result(api()->GetAllocatorWithDefaultOptions(&a)).first, ORT_OK);
  std::string out = s;
  EXPECT_EQ(result(api()->AllocatorFree(a, s)).first, ORT_OK);
  return out;
}

}  // namespace

TEST(TesseraCApi, VersionsAreServedLikeOrtApis) {
  EXPECT_NE(TesseraGetApiBase()->GetApi(1), nullptr);
  EXPECT_NE(TesseraGetApiBase()->GetApi(2), nullptr);
  EXPECT_EQ(TesseraGetApiBase()->GetApi(0), nullptr);
  EXPECT_EQ(TesseraGetApiBase()->GetApi(TESSERA_API_VERSION + 1), nullptr);
}

TEST(TesseraCApi, PartitionReportAndNodeAssignments) {
  OrtSession* s = open_session("add_mul.onnx");
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* text = nullptr;
  CAPI_OK(tapi()->SessionGetPartitionReport(s, TESSERA_REPORT_JSON, a, &text));
  const std::string json = take(text);
  EXPECT_NE(json.find("CPUExecutionProvider"), std::string::npos) << json;
  EXPECT_NE(json.find("Add"), std::string::npos) << json;
  size_t n = 0;
  CAPI_OK(tapi()->SessionGetNodeCount(s, &n));
  ASSERT_EQ(n, 2u);
  char *name = nullptr, *op = nullptr, *provider = nullptr;
  CAPI_OK(tapi()->SessionGetNodeAssignment(s, 1, a, &name, &op, &provider));
  take(name);
  EXPECT_EQ(take(op), "Mul");
  EXPECT_EQ(take(provider), "CPUExecutionProvider");
  auto r = result(tapi()->SessionGetNodeAssignment(s, 9, a, &name, &op, &provider));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("node index 9 is out of range"), std::string::npos) << r.second;
  r = result(tapi()->SessionGetPartitionReport(s, static_cast<TesseraReportFormat>(7), a, &text));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  api()->ReleaseSession(s);
}

TEST(TesseraCApi, PlacementRulesPinAndForbid) {
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  CAPI_OK(tapi()->SessionOptionsAddPlacementRule(o, "op:Mul=cpu"));
  OrtSession* s = nullptr;
  CAPI_OK(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), o, &s));
  api()->ReleaseSession(s);
  // Kept from the only provider, the node has none left to run it.
  CAPI_OK(tapi()->SessionOptionsAddPlacementRule(o, "op:Add=!CPUExecutionProvider"));
  auto r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), o, &s));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_NE(r.second.find("Add"), std::string::npos) << r.second;
  for (const char* bad : {"Mul=cpu", "kind:Mul=cpu", "op:Mul="}) {
    r = result(tapi()->SessionOptionsAddPlacementRule(o, bad));
    EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT) << bad;
    EXPECT_NE(r.second.find(std::string("'") + bad + "'"), std::string::npos) << r.second;
  }
  r = result(tapi()->SessionOptionsAddPlacementRule(nullptr, "op:Mul=cpu"));
  EXPECT_NE(r.second.find("options is null"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(o);
}

TEST(TesseraCApi, ProviderLibrariesLoadByPathAndSayTheirProvider) {
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* name = nullptr;
  CAPI_OK(tapi()->RegisterProviderLibrary(TESSERA_SANDBOX_PLUGIN, a, &name));
  EXPECT_EQ(take(name), "SandboxExecutionProvider");
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  CAPI_OK(api()->SessionOptionsAppendExecutionProvider(o, "SandboxExecutionProvider", nullptr,
                                                       nullptr, 0));
  OrtSession* s = nullptr;
  CAPI_OK(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), o, &s));
  api()->ReleaseSession(s);
  api()->ReleaseSessionOptions(o);
  CAPI_OK(api()->UnregisterExecutionProviderLibrary(env(), TESSERA_SANDBOX_PLUGIN));
  auto r = result(tapi()->RegisterProviderLibrary("/no/such/plugin.so", a, &name));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_NE(r.second.find("/no/such/plugin.so"), std::string::npos) << r.second;
  r = result(tapi()->RegisterProviderLibrary(TESSERA_SANDBOX_PLUGIN, nullptr, &name));
  EXPECT_NE(r.second.find("allocator is null"), std::string::npos) << r.second;
}

TEST(TesseraCApi, DoctorReportNamesEveryProvider) {
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  char* text = nullptr;
  CAPI_OK(tapi()->GetDoctorReport(a, &text));
  const std::string report = take(text);
  EXPECT_NE(report.find("CPUExecutionProvider: available"), std::string::npos) << report;
}

TEST(TesseraCApi, ASelectionDelegateChoosesTheProviders) {
  struct State {
    size_t offered = 0;
  } state;
  auto delegate = [](const OrtEpDevice** devices, size_t n, const OrtKeyValuePairs*,
                     const OrtKeyValuePairs*, const OrtEpDevice** selected, size_t max_selected,
                     size_t* num_selected, void* st) -> OrtStatus* {
    static_cast<State*>(st)->offered = n;
    *num_selected = 0;
    for (size_t i = 0; i < n && *num_selected < max_selected; ++i)
      if (std::strcmp(api()->EpDevice_EpName(devices[i]), "CPUExecutionProvider") == 0)
        selected[(*num_selected)++] = devices[i];
    return nullptr;
  };
  OrtSessionOptions* o = nullptr;
  CAPI_OK(api()->CreateSessionOptions(&o));
  CAPI_OK(api()->SessionOptionsSetEpSelectionPolicyDelegate(o, delegate, &state));
  OrtSession* s = open_session("add_mul.onnx", o);
  ASSERT_NE(s, nullptr);
  EXPECT_GE(state.offered, 1u);
  api()->ReleaseSession(s);

  auto refusing = [](const OrtEpDevice**, size_t, const OrtKeyValuePairs*, const OrtKeyValuePairs*,
                     const OrtEpDevice**, size_t, size_t*, void*) -> OrtStatus* {
    return api()->CreateStatus(ORT_FAIL, "no device suits this model");
  };
  CAPI_OK(api()->SessionOptionsSetEpSelectionPolicyDelegate(o, refusing, nullptr));
  OrtSession* none = nullptr;
  auto r = result(api()->CreateSession(env(), model_path("add_mul.onnx").c_str(), o, &none));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("no device suits this model"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(o);
}
