// `tessera serve`: the Open Inference Protocol server of src/serve/, which is
// built on the public C++ API (tessera::api over the C ABI). The command links
// the C API's objects beside the runtime, so the server runs in this process
// on the same runtime as the other commands (docs/serving.md).
#include <iostream>
#include <limits>

#include "cli_args.hpp"
#include "commands.hpp"
#include "serve/server.hpp"

namespace tessera::cli {

int cmd_serve(const std::vector<std::string>& argv) {
  Args args("serve", argv,
            {"--model-repository", "--http-port", "--grpc-port", "--metrics-port", "--host",
             "--max-body-bytes", "--http-threads"},
            {"--help"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  if (!args.positional().empty())
    throw UsageError("serve takes no positional arguments (use --model-repository DIR)");
  const auto repository = args.get("--model-repository");
  if (!repository) throw UsageError("serve needs --model-repository DIR");
  if (args.has("--grpc-port"))
    throw UsageError(
        "--grpc-port is not served yet: this build serves HTTP only (docs/serving.md)");
  serve::ServeOptions options;
  options.model_repository = *repository;
  options.http_port = args.get_int("--http-port", 8000, 0);
  if (options.http_port > 65535) throw UsageError("--http-port must be 0..65535");
  if (args.has("--metrics-port")) {
    options.metrics_port = args.get_int("--metrics-port", 0, 0);
    if (options.metrics_port > 65535) throw UsageError("--metrics-port must be 0..65535");
  }
  if (auto host = args.get("--host")) options.host = *host;
  options.http_threads = args.get_int("--http-threads", 0, 1);
  if (options.http_threads > 1024) throw UsageError("--http-threads must be 1..1024");
  if (args.has("--max-body-bytes")) {
    options.max_body_bytes = static_cast<size_t>(args.get_int("--max-body-bytes", 0, 1));
  }
  return serve::serve(options);
}

}  // namespace tessera::cli
