// Session options from the command line's flags, made through the public C++
// API (tessera::api) as a program outside the tree would make them: the
// commands written on that API alone (partition, doctor) use these.
#pragma once
#include "cli_args.hpp"
#include "tessera/tessera.hpp"

namespace tessera::cli {

// --threads, --opt-level, --config, then --provider-library (each plugin's
// provider first, in the order given, unless --providers names it),
// --providers and --place. A malformed --place is a UsageError.
api::SessionOptions public_session_options(const Args& args);

// The name error messages give an OrtErrorCode ("InvalidArgument", ...).
const char* ort_error_code_name(OrtErrorCode code);

}  // namespace tessera::cli
