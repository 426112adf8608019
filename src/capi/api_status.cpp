// Statuses: how every entry reports failure.
#include "capi/api_status.hpp"

#include <new>

namespace tessera::capi {
namespace {

// Reported when a status itself cannot be allocated; ReleaseStatus leaves it.
OrtStatus& out_of_memory_status() {
  static OrtStatus s{ORT_FAIL, "out of memory while reporting an error"};
  return s;
}

}  // namespace

OrtErrorCode to_ort_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::kFail:
      return ORT_FAIL;
    case ErrorCode::kInvalidArgument:
      return ORT_INVALID_ARGUMENT;
    case ErrorCode::kNoSuchFile:
      return ORT_NO_SUCHFILE;
    case ErrorCode::kNoModel:
      return ORT_NO_MODEL;
    case ErrorCode::kInvalidProtobuf:
      return ORT_INVALID_PROTOBUF;
    case ErrorCode::kInvalidGraph:
      return ORT_INVALID_GRAPH;
    case ErrorCode::kNotImplemented:
      return ORT_NOT_IMPLEMENTED;
    case ErrorCode::kRuntimeException:
      return ORT_RUNTIME_EXCEPTION;
    case ErrorCode::kEPFail:
      return ORT_EP_FAIL;
    case ErrorCode::kOutOfMemory:
      return ORT_FAIL;
    case ErrorCode::kTerminated:
      return ORT_FAIL;
  }
  return ORT_FAIL;
}

OrtStatus* make_status(OrtErrorCode code, std::string message) {
  auto* s = new (std::nothrow) OrtStatus{code, {}};
  if (s == nullptr) return &out_of_memory_status();
  try {
    s->message = std::move(message);
  } catch (...) {
    s->message.clear();
  }
  return s;
}

OrtStatus* not_implemented(const char* entry) {
  return make_status(ORT_NOT_IMPLEMENTED,
                     std::string(entry) + " is not implemented by Tessera (see docs/c_api.md)");
}

OrtStatus* ORT_API_CALL CreateStatus(OrtErrorCode code, const char* msg) noexcept {
  return make_status(code, msg != nullptr ? msg : "");
}

OrtErrorCode ORT_API_CALL GetErrorCode(const OrtStatus* status) noexcept {
  return status != nullptr ? status->code : ORT_OK;
}

const char* ORT_API_CALL GetErrorMessage(const OrtStatus* status) noexcept {
  return status != nullptr ? status->message.c_str() : "";
}

void ORT_API_CALL ReleaseStatus(OrtStatus* input) noexcept {
  if (input != &out_of_memory_status()) delete input;
}

}  // namespace tessera::capi
