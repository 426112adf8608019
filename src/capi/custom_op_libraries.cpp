// RegisterCustomOpsLibrary, RegisterCustomOpsLibrary_V2 and
// RegisterCustomOpsUsingFunction: the registration function of a library (or
// of the process) is called with the session options and the API base, and
// the ops it adds keep their library loaded (one dlopen reference each
// library, held by the ops, besides the handle RegisterCustomOpsLibrary
// gives the application).
#include "capi/custom_op_libraries.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "capi/api_status.hpp"
#include "capi/handles.hpp"
#include "ep/plugin_file_check.hpp"

namespace tessera::capi {

namespace {

using RegisterFn = OrtStatus*(ORT_API_CALL*)(OrtSessionOptions* options, const OrtApiBase* api);

thread_local std::shared_ptr<void> t_registering;

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

// dlopen with Tessera's checks: the file exists, its ELF headers are whole.
void* open_library(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec))
    fail(ErrorCode::kNoSuchFile, "custom-op library '", path, "' not found");
  // A path without a slash would make dlopen search the system's library path.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  ep::check_plugin_file(open_path);
  dlerror();
  void* h = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h)
    fail(ErrorCode::kFail, "custom-op library '", path, "' could not be loaded: ", dl_error());
  return h;
}

// Calls `fn` with the options; the ops it adds hold `library`.
void call_registration(RegisterFn fn, OrtSessionOptions* options, std::shared_ptr<void> library,
                       const std::string& what) {
  struct Scope {
    explicit Scope(std::shared_ptr<void> lib) { t_registering = std::move(lib); }
    ~Scope() { t_registering.reset(); }
  } scope(std::move(library));
  const size_t before = options->options.custom_ops.size();
  OrtStatus* st = fn(options, OrtGetApiBase());
  if (st) {
    std::string message = st->message;
    OrtErrorCode code = st->code;
    delete st;
    // Nothing half-registered stays behind.
    options->options.custom_ops.resize(before);
    throw Error(code == ORT_INVALID_ARGUMENT ? ErrorCode::kInvalidArgument : ErrorCode::kFail,
                str_cat(what, " failed: ", message));
  }
}

// Loads `path` and calls its RegisterCustomOps; returns the library (one reference).
void* register_library(OrtSessionOptions* options, const std::string& path) {
  need(options, "session options");
  void* handle = open_library(path);
  auto fn = reinterpret_cast<RegisterFn>(dlsym(handle, "RegisterCustomOps"));
  if (!fn) {
    dlclose(handle);
    fail(ErrorCode::kInvalidArgument, "custom-op library '", path,
         "' does not export RegisterCustomOps");
  }
  // The ops' own reference: dlopen counts, so the application's dlclose of
  // the handle leaves the library loaded while sessions use it.
  void* held = dlopen(path.find('/') == std::string::npos ? ("./" + path).c_str() : path.c_str(),
                      RTLD_NOW | RTLD_LOCAL);
  std::shared_ptr<void> library(held, [](void* h) {
    if (h) dlclose(h);
  });
  try {
    call_registration(fn, options, std::move(library),
                      str_cat("RegisterCustomOps of '", path, "'"));
  } catch (...) {
    dlclose(handle);
    throw;
  }
  return handle;
}

}  // namespace

std::shared_ptr<void> library_being_registered() { return t_registering; }

OrtStatus* ORT_API_CALL RegisterCustomOpsLibrary(OrtSessionOptions* options,
                                                 const char* library_path,
                                                 void** library_handle) noexcept {
  return guard("RegisterCustomOpsLibrary", [&] {
    need(library_path, "library_path");
    need(library_handle, "library_handle");
    *library_handle = register_library(options, library_path);
  });
}

OrtStatus* ORT_API_CALL RegisterCustomOpsLibrary_V2(OrtSessionOptions* options,
                                                    const ORTCHAR_T* library_name) noexcept {
  return guard("RegisterCustomOpsLibrary_V2", [&] {
    need(library_name, "library_name");
    // The ops hold the library; this function's own reference goes now.
    dlclose(register_library(options, library_name));
  });
}

OrtStatus* ORT_API_CALL RegisterCustomOpsUsingFunction(
    OrtSessionOptions* options, const char* registration_func_name) noexcept {
  return guard("RegisterCustomOpsUsingFunction", [&] {
    need(options, "session options");
    need(registration_func_name, "registration_func_name");
    check(*registration_func_name != '\0', "registration_func_name is empty");
    dlerror();
    auto fn = reinterpret_cast<RegisterFn>(dlsym(RTLD_DEFAULT, registration_func_name));
    check(fn != nullptr, "no function named '", registration_func_name,
          "' is visible in the process (it must be exported by the program or a loaded library)");
    call_registration(fn, options, nullptr, str_cat("'", registration_func_name, "'"));
  });
}

}  // namespace tessera::capi
