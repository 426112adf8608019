// Tessera's own table (include/tessera/tessera_c_api.h): partition reports,
// node assignments and the doctor's findings.
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "runtime/doctor.hpp"
#include "tessera/tessera_c_api.h"

namespace tessera::capi {
namespace {

OrtStatus* ORT_API_CALL session_partition_report(const OrtSession* session,
                                                 TesseraReportFormat format,
                                                 OrtAllocator* allocator, char** out) noexcept {
  return guard("SessionGetPartitionReport", [&] {
    need(session, "session");
    need(out, "out");
    const PartitionReport report = session->get().partition_report();
    const int f = raw_enum(format);
    switch (f) {
      case TESSERA_REPORT_TEXT:
        *out = allocate_string(allocator, report.to_text());
        break;
      case TESSERA_REPORT_JSON:
        *out = allocate_string(allocator, report.to_json());
        break;
      case TESSERA_REPORT_DOT:
        *out = allocate_string(allocator, report.to_dot());
        break;
      default:
        fail(ErrorCode::kInvalidArgument, "report format ", f, " is unknown");
    }
  });
}

OrtStatus* ORT_API_CALL session_node_count(const OrtSession* session, size_t* out) noexcept {
  return guard("SessionGetNodeCount", [&] {
    need(session, "session");
    need(out, "out");
    *out = session->get().node_assignments().size();
  });
}

OrtStatus* ORT_API_CALL session_node_assignment(const OrtSession* session, size_t index,
                                                OrtAllocator* allocator, char** node_name,
                                                char** op_type, char** provider) noexcept {
  return guard("SessionGetNodeAssignment", [&] {
    need(session, "session");
    need(node_name, "node_name");
    need(op_type, "op_type");
    need(provider, "provider");
    const auto nodes = session->get().node_assignments();
    check(index < nodes.size(), "node index ", index, " is out of range: the session runs ",
          nodes.size(), " nodes");
    *node_name = allocate_string(allocator, nodes[index].node_name);
    *op_type = allocate_string(allocator, nodes[index].op_type);
    *provider = allocate_string(allocator, nodes[index].provider);
  });
}

OrtStatus* ORT_API_CALL doctor_report(OrtAllocator* allocator, char** out) noexcept {
  return guard("GetDoctorReport", [&] {
    need(out, "out");
    *out = allocate_string(allocator, runtime::doctor_report());
  });
}

const TesseraApi kTesseraApi = {session_partition_report, session_node_count,
                                session_node_assignment, doctor_report};

const TesseraApi* ORT_API_CALL get_tessera_api(uint32_t version) noexcept {
  return version >= 1 && version <= TESSERA_API_VERSION ? &kTesseraApi : nullptr;
}

const TesseraApiBase kTesseraApiBase = {get_tessera_api};

}  // namespace
}  // namespace tessera::capi

extern "C" ORT_EXPORT const TesseraApiBase* ORT_API_CALL TesseraGetApiBase(void) noexcept {
  return &tessera::capi::kTesseraApiBase;
}
