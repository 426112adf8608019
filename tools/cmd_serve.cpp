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
             "--max-body-bytes", "--http-threads", "--grace-seconds", "--access-log",
             "--repository-poll-secs", "--model-control-mode", "--load-model"},
            {"--help"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  if (!args.positional().empty())
    throw UsageError("serve takes no positional arguments (use --model-repository DIR)");
  const auto repository = args.get("--model-repository");
  if (!repository) throw UsageError("serve needs --model-repository DIR");
  if (!serve::kGrpcBuilt && args.has("--grpc-port") && args.get("--grpc-port") != "off")
    throw UsageError(
        "--grpc-port: gRPC support was not built into this tessera (it needs the Debian "
        "packages libgrpc++-dev, protobuf-compiler-grpc and libprotobuf-dev at build time; "
        "docs/serving.md)");
  serve::ServeOptions options;
  options.model_repository = *repository;
  // A port: a number, 0 for any free port, or "off" (-1) for a transport
  // that is not served.
  auto port = [&args](const std::string& flag, int fallback, bool may_be_off) {
    if (may_be_off && args.get(flag) == "off") return -1;
    const int p = args.get_int(flag, fallback, 0);
    if (p > 65535) throw UsageError(flag + " must be 0..65535" + (may_be_off ? " or off" : ""));
    return p;
  };
  options.http_port = port("--http-port", 8080, false);
  options.grpc_port = serve::kGrpcBuilt ? port("--grpc-port", 8081, true) : -1;
  options.metrics_port = port("--metrics-port", 8082, true);
  options.grace_seconds = args.get_int("--grace-seconds", 30, 0);
  if (auto host = args.get("--host")) options.host = *host;
  options.http_threads = args.get_int("--http-threads", 0, 1);
  if (options.http_threads > 1024) throw UsageError("--http-threads must be 1..1024");
  if (auto log = args.get("--access-log")) {
    if (log->empty()) throw UsageError("--access-log needs stderr, none or a file");
    options.access_log = *log;
  }
  // The mode defaults to poll when a poll period is given, else to none (as
  // Triton's); poll without a period reads the folder every 15 s.
  const int poll_secs = args.get_int("--repository-poll-secs", 0, 0);
  if (auto mode = args.get("--model-control-mode")) {
    const auto parsed = serve::parse_model_control(*mode);
    if (!parsed)
      throw UsageError("--model-control-mode must be none, poll or explicit, not '" + *mode + "'");
    options.model_control = *parsed;
  } else {
    options.model_control = poll_secs > 0 ? serve::ModelControl::kPoll : serve::ModelControl::kNone;
  }
  if (poll_secs > 0 && options.model_control != serve::ModelControl::kPoll)
    throw UsageError(std::string("--repository-poll-secs polls the repository, which "
                                 "--model-control-mode ") +
                     serve::model_control_name(options.model_control) +
                     " does not do (use --model-control-mode poll)");
  if (options.model_control == serve::ModelControl::kPoll)
    options.repository_poll_secs = poll_secs > 0 ? poll_secs : 15;
  options.load_models = args.all("--load-model");
  for (const auto& name : options.load_models)
    if (name.empty()) throw UsageError("--load-model needs a model name or '*'");
  if (!options.load_models.empty() && options.model_control != serve::ModelControl::kExplicit)
    throw UsageError(std::string("--load-model names the models to load at start in "
                                 "--model-control-mode explicit; mode ") +
                     serve::model_control_name(options.model_control) +
                     " loads every model of the repository");
  if (args.has("--max-body-bytes")) {
    options.max_body_bytes = static_cast<size_t>(args.get_int("--max-body-bytes", 0, 1));
  }
  return serve::serve(options);
}

}  // namespace tessera::cli
