// Which provider runs each part of a session, and why a provider cannot run
// on a device.
#include <cstring>
#include <vector>

#include "capi_test_util.hpp"

using namespace capi_test;

TEST(CApiAssignment, EveryNodeIsInOnePartWithItsProvider) {
  OrtSession* s = open_session("add_mul.onnx");
  const OrtEpAssignedSubgraph* const* parts = nullptr;
  size_t n = 0;
  CAPI_OK(api()->Session_GetEpGraphAssignmentInfo(s, &parts, &n));
  ASSERT_EQ(n, 1u);
  const char* ep = nullptr;
  CAPI_OK(api()->EpAssignedSubgraph_GetEpName(parts[0], &ep));
  EXPECT_STREQ(ep, "CPUExecutionProvider");
  const OrtEpAssignedNode* const* nodes = nullptr;
  size_t count = 0;
  CAPI_OK(api()->EpAssignedSubgraph_GetNodes(parts[0], &nodes, &count));
  ASSERT_EQ(count, 2u);
  const char* op = nullptr;
  CAPI_OK(api()->EpAssignedNode_GetOperatorType(nodes[0], &op));
  EXPECT_STREQ(op, "Add");
  const char* domain = nullptr;
  CAPI_OK(api()->EpAssignedNode_GetDomain(nodes[1], &domain));
  EXPECT_STREQ(domain, "");
  api()->ReleaseSession(s);
}

TEST(CApiAssignment, IncompatibilityDetailsSayWhy) {
  const OrtEpDevice* const* devices = nullptr;
  size_t n = 0;
  CAPI_OK(api()->GetEpDevices(env(), &devices, &n));
  const OrtHardwareDevice* cpu = nullptr;
  for (size_t i = 0; i < n; ++i)
    if (std::strcmp(api()->EpDevice_EpName(devices[i]), "CPUExecutionProvider") == 0)
      cpu = api()->EpDevice_Device(devices[i]);
  ASSERT_NE(cpu, nullptr);
  OrtDeviceEpIncompatibilityDetails* d = nullptr;
  CAPI_OK(api()->GetHardwareDeviceEpIncompatibilityDetails(env(), "CPUExecutionProvider", cpu, &d));
  uint32_t reasons = 1;
  CAPI_OK(api()->DeviceEpIncompatibilityDetails_GetReasonsBitmask(d, &reasons));
  EXPECT_EQ(reasons, 0u);
  api()->ReleaseDeviceEpIncompatibilityDetails(d);

  char** names = nullptr;
  int count = 0;
  CAPI_OK(api()->GetAvailableProviders(&names, &count));
  bool cuda_here = false;
  for (int i = 0; i < count; ++i)
    cuda_here = cuda_here || std::strcmp(names[i], "CUDAExecutionProvider") == 0;
  CAPI_OK(api()->ReleaseAvailableProviders(names, count));
  auto r = result(
      api()->GetHardwareDeviceEpIncompatibilityDetails(env(), "CUDAExecutionProvider", cpu, &d));
  if (r.first == ORT_OK) {  // the build has CUDA: it cannot run on the CPU
    CAPI_OK(api()->DeviceEpIncompatibilityDetails_GetReasonsBitmask(d, &reasons));
    EXPECT_NE(reasons, 0u);
    const char* notes = nullptr;
    CAPI_OK(api()->DeviceEpIncompatibilityDetails_GetNotes(d, &notes));
    ASSERT_NE(notes, nullptr);
    EXPECT_GT(std::strlen(notes), 0u);
    api()->ReleaseDeviceEpIncompatibilityDetails(d);
  } else {
    EXPECT_FALSE(cuda_here);
    EXPECT_NE(r.second.find("CUDAExecutionProvider"), std::string::npos) << r.second;
  }
  r = result(api()->GetHardwareDeviceEpIncompatibilityDetails(env(), "Imaginary", cpu, &d));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
}

TEST(CApiAssignment, InputsAndOutputsLiveWhereTheirNodesRun) {
  OrtSession* s = open_session("add_mul.onnx");
  size_t n_in = 0, n_out = 0;
  CAPI_OK(api()->SessionGetInputCount(s, &n_in));
  CAPI_OK(api()->SessionGetOutputCount(s, &n_out));
  std::vector<const OrtMemoryInfo*> out_mem(n_out);
  CAPI_OK(api()->SessionGetMemoryInfoForOutputs(s, out_mem.data(), n_out));
  std::vector<const OrtEpDevice*> in_dev(n_in), out_dev(n_out);
  CAPI_OK(api()->SessionGetEpDeviceForInputs(s, in_dev.data(), n_in));
  CAPI_OK(api()->SessionGetEpDeviceForOutputs(s, out_dev.data(), n_out));
  for (size_t i = 0; i < n_out; ++i) {
    const char* name = nullptr;
    CAPI_OK(api()->MemoryInfoGetName(out_mem[i], &name));
    EXPECT_STREQ(name, "Cpu");
    ASSERT_NE(out_dev[i], nullptr);
    EXPECT_STREQ(api()->EpDevice_EpName(out_dev[i]), "CPUExecutionProvider");
  }
  for (size_t i = 0; i < n_in; ++i) {
    ASSERT_NE(in_dev[i], nullptr);
    EXPECT_STREQ(api()->EpDevice_EpName(in_dev[i]), "CPUExecutionProvider");
  }
  auto r = result(api()->SessionGetEpDeviceForOutputs(s, out_dev.data(), n_out + 1));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("num_outputs"), std::string::npos) << r.second;
  api()->ReleaseSession(s);
}
