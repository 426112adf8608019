// Tessera's own table (tessera/tessera_c_api.h) in C++: where a session runs
// each node and why (the partition report), the doctor's findings,
// placement overrides and provider plugins loaded by path.
#pragma once
#include <string>
#include <vector>

#include "tessera/cxx/session.hpp"
#include "tessera/tessera_c_api.h"

namespace tessera::api {

inline const TesseraApi& tessera_api() {
  static const TesseraApi* table = TesseraGetApiBase()->GetApi(TESSERA_API_VERSION);
  if (table == nullptr)
    throw Error(ORT_FAIL, "the loaded Tessera library does not serve Tessera's API version " +
                              std::to_string(TESSERA_API_VERSION));
  return *table;
}

// The session's partition report: a table per node, JSON or Graphviz.
inline std::string partition_report(const Session& session,
                                    TesseraReportFormat format = TESSERA_REPORT_TEXT) {
  char* out = nullptr;
  OrtAllocator* a = default_allocator();
  check(tessera_api().SessionGetPartitionReport(session.get(), format, a, &out));
  return take_string(out, a);
}

struct NodeAssignment {
  std::string node, op_type, provider;
};

// Every node of the session's top-level graph in run order, with its provider.
inline std::vector<NodeAssignment> node_assignments(const Session& session) {
  size_t n = 0;
  check(tessera_api().SessionGetNodeCount(session.get(), &n));
  OrtAllocator* a = default_allocator();
  std::vector<NodeAssignment> out;
  for (size_t i = 0; i < n; ++i) {
    char *name = nullptr, *op = nullptr, *provider = nullptr;
    check(tessera_api().SessionGetNodeAssignment(session.get(), i, a, &name, &op, &provider));
    out.push_back({take_string(name, a), take_string(op, a), take_string(provider, a)});
  }
  return out;
}

// `tessera doctor`'s findings: each provider, whether it can run here, why not.
inline std::string doctor_report() {
  char* out = nullptr;
  OrtAllocator* a = default_allocator();
  check(tessera_api().GetDoctorReport(a, &out));
  return take_string(out, a);
}

// Adds a placement override ("name:NODE=PROVIDER", "op:TYPE=PROVIDER",
// "pattern:GLOB=PROVIDER"; "=!PROVIDER" forbids) to session options.
inline SessionOptions& add_placement_rule(SessionOptions& options, const std::string& rule) {
  check(tessera_api().SessionOptionsAddPlacementRule(options.get(), rule.c_str()));
  return options;
}

// Loads the provider plugin at `path`; returns its provider's name.
inline std::string register_provider_library(const std::string& path) {
  char* name = nullptr;
  OrtAllocator* a = default_allocator();
  check(tessera_api().RegisterProviderLibrary(path.c_str(), a, &name));
  return take_string(name, a);
}

}  // namespace tessera::api
