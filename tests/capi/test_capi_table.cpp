// The table itself: every version is served, every slot is filled, and an
// entry Tessera does not implement says so by name.
#include <cstring>

#include "capi_test_util.hpp"

using namespace capi_test;

TEST(CApiTable, EveryVersionUpToThirtyIsServedAndNoneAbove) {
  const OrtApiBase* base = OrtGetApiBase();
  ASSERT_NE(base, nullptr);
  for (uint32_t v = 1; v <= ORT_API_VERSION; ++v) EXPECT_NE(base->GetApi(v), nullptr) << v;
  EXPECT_EQ(base->GetApi(0), nullptr);
  EXPECT_EQ(base->GetApi(ORT_API_VERSION + 1), nullptr);
  EXPECT_NE(std::string(base->GetVersionString()), "");
}

TEST(CApiTable, NoSlotIsNull) {
  const auto* slots = reinterpret_cast<void* const*>(api());
  const size_t n = sizeof(OrtApi) / sizeof(void*);
  EXPECT_EQ(n, 426u);  // the entries of API version 30
  for (size_t i = 0; i < n; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST(CApiTable, AnEntryNotImplementedSaysWhichOne) {
  OrtValue* v = nullptr;
  const int data = 1;
  auto r = result(api()->CreateOpaqueValue("domain", "type", &data, sizeof data, &v));
  EXPECT_EQ(r.first, ORT_NOT_IMPLEMENTED);
  EXPECT_NE(r.second.find("CreateOpaqueValue"), std::string::npos) << r.second;
  EXPECT_EQ(v, nullptr);
}

TEST(CApiTable, ExtensionsCustomOpsFailAsInBuildsWithoutThem) {
  OrtSessionOptions* o = nullptr;
  ASSERT_EQ(result(api()->CreateSessionOptions(&o)).first, ORT_OK);
  auto r = result(api()->EnableOrtCustomOps(o));
  EXPECT_EQ(r.first, ORT_FAIL);
  EXPECT_NE(r.second.find("onnxruntime-extensions"), std::string::npos) << r.second;
  api()->ReleaseSessionOptions(o);
  // Without session options there is nothing to register into.
  CAPI_OK(api()->EnableOrtCustomOps(nullptr));
}

TEST(CApiTable, NoProviderHasAProviderSpecificTable) {
  const void* table = &table;
  auto r = result(api()->GetExecutionProviderApi("DML", 1, &table));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("'DML'"), std::string::npos) << r.second;
  EXPECT_EQ(table, nullptr);
  r = result(api()->GetExecutionProviderApi(nullptr, 1, &table));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("provider_name is null"), std::string::npos) << r.second;
  r = result(api()->GetExecutionProviderApi("CPUExecutionProvider", 1, nullptr));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("provider_api is null"), std::string::npos) << r.second;
}

TEST(CApiTable, TablesTesseraDoesNotProvideAreNull) {
  EXPECT_EQ(api()->GetTrainingApi(ORT_API_VERSION), nullptr);
  EXPECT_EQ(api()->GetTrainingApi(13), nullptr);
  EXPECT_EQ(api()->GetEpApi(), nullptr);
  EXPECT_EQ(api()->GetInteropApi(), nullptr);
}

TEST(CApiTable, TheCompileTableHasNoNullSlot) {
  const OrtCompileApi* c = api()->GetCompileApi();
  ASSERT_NE(c, nullptr);
  const auto* slots = reinterpret_cast<void* const*>(c);
  const size_t n = sizeof(OrtCompileApi) / sizeof(void*);
  EXPECT_EQ(n, 16u);  // the entries of API version 30
  for (size_t i = 0; i < n; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST(CApiTable, StatusesCarryCodeAndMessage) {
  OrtStatus* s = api()->CreateStatus(ORT_INVALID_GRAPH, "a message");
  EXPECT_EQ(api()->GetErrorCode(s), ORT_INVALID_GRAPH);
  EXPECT_STREQ(api()->GetErrorMessage(s), "a message");
  api()->ReleaseStatus(s);
  api()->ReleaseStatus(nullptr);
}

TEST(CApiTable, ProvidersListedAndReleased) {
  char** names = nullptr;
  int n = 0;
  CAPI_OK(api()->GetAvailableProviders(&names, &n));
  bool cpu = false;
  for (int i = 0; i < n; ++i) cpu = cpu || std::strcmp(names[i], "CPUExecutionProvider") == 0;
  EXPECT_TRUE(cpu);
  CAPI_OK(api()->ReleaseAvailableProviders(names, n));
}

TEST(CApiTable, TheEnvironmentIsSharedByEveryCreate) {
  OrtEnv* a = nullptr;
  OrtEnv* b = nullptr;
  CAPI_OK(api()->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "a", &a));
  CAPI_OK(api()->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "b", &b));
  EXPECT_EQ(a, b);
  api()->ReleaseEnv(a);
  api()->ReleaseEnv(b);
  auto r = result(api()->CreateEnv(static_cast<OrtLoggingLevel>(9), "bad", &a));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("logging level 9"), std::string::npos) << r.second;
}
