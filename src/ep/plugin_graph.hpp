// The runtime's side of the plugin ABI's graph and capability handles, and
// the host function table handed to every plugin (tessera_ep_api.h).
#pragma once
#include <string>
#include <vector>

#include "ep/execution_provider.hpp"
#include "tessera/tessera_ep_api.h"

struct TsrEpGraph {
  const tessera::ep::GraphView* view = nullptr;
};

struct TsrEpCapability {
  const tessera::ep::GraphView* view = nullptr;
  tessera::ep::Capability cap;
};

struct TsrEpComputeContext {
  tessera::ep::KernelContext* ctx = nullptr;
  std::string error;            // set by a failed callback; reported after compute returns
  std::vector<char> allocated;  // per output: allocate_output was called for it
};

namespace tessera::ep {

const TsrEpHostApi& plugin_host_api();
// ONNX element type numbers are Tessera's DataType values.
inline int32_t to_onnx_type(DataType t) { return static_cast<int32_t>(t); }

}  // namespace tessera::ep
