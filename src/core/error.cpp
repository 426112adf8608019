#include "core/error.hpp"

namespace tessera {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kFail: return "Fail";
    case ErrorCode::kInvalidArgument: return "InvalidArgument";
    case ErrorCode::kNoSuchFile: return "NoSuchFile";
    case ErrorCode::kNoModel: return "NoModel";
    case ErrorCode::kInvalidProtobuf: return "InvalidProtobuf";
    case ErrorCode::kInvalidGraph: return "InvalidGraph";
    case ErrorCode::kNotImplemented: return "NotImplemented";
    case ErrorCode::kRuntimeException: return "RuntimeException";
    case ErrorCode::kEPFail: return "EPFail";
    case ErrorCode::kOutOfMemory: return "OutOfMemory";
    case ErrorCode::kTerminated: return "Terminated";
  }
  return "Unknown";
}

}  // namespace tessera
