// Command-line flags to tessera::api::SessionOptions.
#include "public_session.hpp"

#include <string>
#include <vector>

namespace tessera::cli {

namespace {

// The C API's level (the C enum, which Tessera's own enum of the same name
// hides inside namespace tessera).
::GraphOptimizationLevel ort_level(tessera::GraphOptimizationLevel level) {
  switch (level) {
    case tessera::GraphOptimizationLevel::kDisableAll:
      return ORT_DISABLE_ALL;
    case tessera::GraphOptimizationLevel::kBasic:
      return ORT_ENABLE_BASIC;
    case tessera::GraphOptimizationLevel::kExtended:
      return ORT_ENABLE_EXTENDED;
    case tessera::GraphOptimizationLevel::kAll:
      break;
  }
  return ORT_ENABLE_ALL;
}

}  // namespace

api::SessionOptions public_session_options(const Args& args) {
  api::SessionOptions o;
  o.intra_op_threads(args.get_int("--threads", 0, 0));
  if (auto lvl = args.get("--opt-level")) o.optimization_level(ort_level(parse_opt_level(*lvl)));
  for (const std::string& kv : args.all("--config")) {
    const size_t eq = kv.find('=');
    if (eq == 0 || eq == std::string::npos)
      throw UsageError(str_cat("--config takes KEY=VALUE, got '", kv, "'"));
    o.config(kv.substr(0, eq), kv.substr(eq + 1));
  }
  std::vector<ProviderSpec> providers;
  if (auto p = args.get("--providers")) providers = parse_providers(*p);
  std::vector<std::string> plugins;
  for (const auto& path : args.all("--provider-library")) {
    const std::string name = api::register_provider_library(path);
    bool named = false;  // placed (with options) by --providers
    for (const auto& p : providers) named |= p.name == name;
    if (!named) plugins.push_back(name);
  }
  for (const auto& name : plugins) o.provider(name);
  for (const auto& p : providers) o.provider(p.name, p.options);
  for (const auto& rule : args.all("--place")) {
    try {
      api::add_placement_rule(o, rule);
    } catch (const api::Error& e) {
      if (e.code() != ORT_INVALID_ARGUMENT) throw;
      throw UsageError(str_cat("--place: ", e.what()));
    }
  }
  return o;
}

const char* ort_error_code_name(OrtErrorCode code) {
  switch (code) {
    case ORT_OK:
      return "OK";
    case ORT_FAIL:
      return "Fail";
    case ORT_INVALID_ARGUMENT:
      return "InvalidArgument";
    case ORT_NO_SUCHFILE:
      return "NoSuchFile";
    case ORT_NO_MODEL:
      return "NoModel";
    case ORT_ENGINE_ERROR:
      return "EngineError";
    case ORT_RUNTIME_EXCEPTION:
      return "RuntimeException";
    case ORT_INVALID_PROTOBUF:
      return "InvalidProtobuf";
    case ORT_MODEL_LOADED:
      return "ModelLoaded";
    case ORT_NOT_IMPLEMENTED:
      return "NotImplemented";
    case ORT_INVALID_GRAPH:
      return "InvalidGraph";
    case ORT_EP_FAIL:
      return "EPFail";
    case ORT_MODEL_LOAD_CANCELED:
      return "ModelLoadCanceled";
    case ORT_MODEL_REQUIRES_COMPILATION:
      return "ModelRequiresCompilation";
    case ORT_NOT_FOUND:
      return "NotFound";
    case ORT_DEVICE_RESET:
      return "DeviceReset";
  }
  return "Unknown";
}

}  // namespace tessera::cli
