// Tessera's own table (include/tessera/tessera_c_api.h): partition reports,
// node assignments, the doctor's findings, placement overrides and provider
// plugins loaded by path.
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/handles.hpp"
#include "runtime/doctor.hpp"
#include "runtime/runtime_api.hpp"
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

// "KIND:VALUE=PROVIDER" (KIND name, op or pattern); "=!PROVIDER" forbids.
ep::PlacementRule parse_placement_rule(const std::string& text) {
  const size_t colon = text.find(':');
  const size_t eq = text.rfind('=');
  check(colon != std::string::npos && eq != std::string::npos && eq > colon, "placement rule '",
        text, "' is not KIND:VALUE=PROVIDER (KIND is name, op or pattern)");
  ep::PlacementRule r;
  const std::string kind = text.substr(0, colon);
  if (kind == "name")
    r.match = ep::PlacementRule::Match::kName;
  else if (kind == "op")
    r.match = ep::PlacementRule::Match::kOpType;
  else if (kind == "pattern")
    r.match = ep::PlacementRule::Match::kNamePattern;
  else
    fail(ErrorCode::kInvalidArgument, "placement rule '", text, "': unknown kind '", kind,
         "' (name, op or pattern)");
  r.value = text.substr(colon + 1, eq - colon - 1);
  r.provider = text.substr(eq + 1);
  if (!r.provider.empty() && r.provider[0] == '!') {
    r.forbid = true;
    r.provider = r.provider.substr(1);
  }
  check(!r.provider.empty(), "placement rule '", text, "' names no provider");
  if (r.provider == "cpu") r.provider = "CPUExecutionProvider";
  return r;
}

OrtStatus* ORT_API_CALL add_placement_rule(OrtSessionOptions* options, const char* rule) noexcept {
  return guard("SessionOptionsAddPlacementRule", [&] {
    need(options, "options");
    need(rule, "rule");
    options->options.placement.push_back(parse_placement_rule(rule));
  });
}

OrtStatus* ORT_API_CALL register_provider_library(const ORTCHAR_T* path, OrtAllocator* allocator,
                                                  char** provider_name) noexcept {
  return guard("RegisterProviderLibrary", [&] {
    need(path, "path");
    need(allocator, "allocator");
    need(provider_name, "provider_name");
    *provider_name = allocate_string(allocator, register_execution_provider_library(path, path));
  });
}

const TesseraApi kTesseraApi = {session_partition_report, session_node_count,
                                session_node_assignment,  doctor_report,
                                add_placement_rule,       register_provider_library};

const TesseraApi* ORT_API_CALL get_tessera_api(uint32_t version) noexcept {
  return version >= 1 && version <= TESSERA_API_VERSION ? &kTesseraApi : nullptr;
}

const TesseraApiBase kTesseraApiBase = {get_tessera_api};

}  // namespace
}  // namespace tessera::capi

extern "C" ORT_EXPORT const TesseraApiBase* ORT_API_CALL TesseraGetApiBase(void) noexcept {
  return &tessera::capi::kTesseraApiBase;
}
