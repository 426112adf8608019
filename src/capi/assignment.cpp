// Which provider runs each part of a session, and why a provider cannot run
// on a device: ONNX Runtime's entries for these, over the session's node
// assignments and the provider registry's availability checks.
#include <algorithm>
#include <mutex>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {

std::vector<const OrtEpDevice*> current_ep_devices();

namespace {

// Consecutive nodes on one provider (and in one fused group) form a part.
void build_assignment(const OrtSession& s) {
  if (!s.assigned.empty()) return;
  std::string last_provider, last_group;
  for (const NodeAssignment& a : s.get().node_assignments()) {
    if (s.assigned.empty() || a.provider != last_provider || a.fused_group != last_group) {
      s.assigned.push_back(std::make_unique<OrtEpAssignedSubgraph>());
      s.assigned.back()->provider = a.provider;
      s.assigned_list.push_back(s.assigned.back().get());
    }
    OrtEpAssignedSubgraph& part = *s.assigned.back();
    part.nodes.push_back(
        std::make_unique<OrtEpAssignedNode>(OrtEpAssignedNode{a.node_name, a.domain, a.op_type}));
    part.node_list.push_back(part.nodes.back().get());
    last_provider = a.provider;
    last_group = a.fused_group;
  }
}

}  // namespace

OrtStatus* ORT_API_CALL Session_GetEpGraphAssignmentInfo(
    const OrtSession* session, const OrtEpAssignedSubgraph* const** ep_subgraphs,
    size_t* num_ep_subgraphs) noexcept {
  return guard("Session_GetEpGraphAssignmentInfo", [&] {
    need(session, "session");
    need(ep_subgraphs, "ep_subgraphs");
    need(num_ep_subgraphs, "num_ep_subgraphs");
    std::lock_guard<std::mutex> lock(session->mu);
    build_assignment(*session);
    *ep_subgraphs = session->assigned_list.data();
    *num_ep_subgraphs = session->assigned_list.size();
  });
}

OrtStatus* ORT_API_CALL EpAssignedSubgraph_GetEpName(const OrtEpAssignedSubgraph* ep_subgraph,
                                                     const char** out) noexcept {
  return guard("EpAssignedSubgraph_GetEpName", [&] {
    need(ep_subgraph, "ep_subgraph");
    need(out, "out");
    *out = ep_subgraph->provider.c_str();
  });
}

OrtStatus* ORT_API_CALL EpAssignedSubgraph_GetNodes(const OrtEpAssignedSubgraph* ep_subgraph,
                                                    const OrtEpAssignedNode* const** ep_nodes,
                                                    size_t* num_ep_nodes) noexcept {
  return guard("EpAssignedSubgraph_GetNodes", [&] {
    need(ep_subgraph, "ep_subgraph");
    need(ep_nodes, "ep_nodes");
    need(num_ep_nodes, "num_ep_nodes");
    *ep_nodes = ep_subgraph->node_list.data();
    *num_ep_nodes = ep_subgraph->node_list.size();
  });
}

OrtStatus* ORT_API_CALL EpAssignedNode_GetName(const OrtEpAssignedNode* ep_node,
                                               const char** out) noexcept {
  return guard("EpAssignedNode_GetName", [&] {
    need(ep_node, "ep_node");
    need(out, "out");
    *out = ep_node->name.c_str();
  });
}

OrtStatus* ORT_API_CALL EpAssignedNode_GetDomain(const OrtEpAssignedNode* ep_node,
                                                 const char** out) noexcept {
  return guard("EpAssignedNode_GetDomain", [&] {
    need(ep_node, "ep_node");
    need(out, "out");
    *out = ep_node->domain.c_str();
  });
}

OrtStatus* ORT_API_CALL EpAssignedNode_GetOperatorType(const OrtEpAssignedNode* ep_node,
                                                       const char** out) noexcept {
  return guard("EpAssignedNode_GetOperatorType", [&] {
    need(ep_node, "ep_node");
    need(out, "out");
    *out = ep_node->op_type.c_str();
  });
}

OrtStatus* ORT_API_CALL GetHardwareDeviceEpIncompatibilityDetails(
    const OrtEnv* env, const char* ep_name, const OrtHardwareDevice* hw,
    OrtDeviceEpIncompatibilityDetails** details) noexcept {
  return guard("GetHardwareDeviceEpIncompatibilityDetails", [&] {
    need(env, "env");
    need(ep_name, "ep_name");
    need(hw, "hardware device");
    need(details, "details");
    const auto known = all_providers();
    check(std::find(known.begin(), known.end(), ep_name) != known.end(), "provider '", ep_name,
          "' is not one this build of Tessera has");
    auto d = std::make_unique<OrtDeviceEpIncompatibilityDetails>();
    std::string why;
    if (!is_provider_available(ep_name, &why)) {
      d->reasons = OrtDeviceEpIncompatibility_MISSING_DEPENDENCY;
      d->notes = why;
    } else {
      bool serves = false;
      for (const OrtEpDevice* e : current_ep_devices())
        serves = serves || (e->ep_name == ep_name && e->device->device.same_device(hw->device));
      if (!serves) {
        d->reasons = OrtDeviceEpIncompatibility_DEVICE_INCOMPATIBLE;
        d->notes = std::string(ep_name) + " does not run on " + hw->device.to_string();
      }
    }
    *details = d.release();
  });
}

OrtStatus* ORT_API_CALL DeviceEpIncompatibilityDetails_GetReasonsBitmask(
    const OrtDeviceEpIncompatibilityDetails* details, uint32_t* reasons_bitmask) noexcept {
  return guard("DeviceEpIncompatibilityDetails_GetReasonsBitmask", [&] {
    need(details, "details");
    need(reasons_bitmask, "reasons_bitmask");
    *reasons_bitmask = details->reasons;
  });
}

OrtStatus* ORT_API_CALL DeviceEpIncompatibilityDetails_GetNotes(
    const OrtDeviceEpIncompatibilityDetails* details, const char** notes) noexcept {
  return guard("DeviceEpIncompatibilityDetails_GetNotes", [&] {
    need(details, "details");
    need(notes, "notes");
    *notes = details->notes.empty() ? nullptr : details->notes.c_str();
  });
}

OrtStatus* ORT_API_CALL DeviceEpIncompatibilityDetails_GetErrorCode(
    const OrtDeviceEpIncompatibilityDetails* details, int32_t* error_code) noexcept {
  return guard("DeviceEpIncompatibilityDetails_GetErrorCode", [&] {
    need(details, "details");
    need(error_code, "error_code");
    *error_code = details->error_code;
  });
}

void ORT_API_CALL
ReleaseDeviceEpIncompatibilityDetails(OrtDeviceEpIncompatibilityDetails* input) noexcept {
  delete input;
}

}  // namespace tessera::capi
