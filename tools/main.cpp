// `tessera`: run, inspect and test ONNX models from the command line.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "ep/provider_registry.hpp"
#include "public_session.hpp"
#include "runtime/runtime_api.hpp"

namespace tessera::cli {

void print_usage(std::ostream& os) {
  os << "usage: tessera <command> [options]\n"
        "\n"
        "commands:\n"
        "  run MODEL [--input NAME=FILE.npy ...] [--output-dir DIR] [--dim NAME=SIZE ...]\n"
        "            [--providers A,B] [--threads N] [--opt-level disable|basic|extended|all]\n"
        "            [--seed N]\n"
        "      Runs a model once. Inputs not given are random, of the declared type and\n"
        "      shape (symbolic dims are 1 unless set with --dim). Prints each output's\n"
        "      type, shape and a summary; with --output-dir writes NAME.npy per output.\n"
        "  inspect MODEL [--providers A,B] [--opt-level LEVEL] [--timings] [--shapes]\n"
        "      Inputs/outputs with symbolic shapes, opsets, metadata, node counts by op\n"
        "      type, and the provider each node is assigned to; --timings adds the time\n"
        "      of each session-creation phase; --shapes each node's output shapes as\n"
        "      far as they are known before a run (a symbol or ? for an unknown dim).\n"
        "  test DIR... [--json FILE] [--expected-failures FILE] [--filter SUBSTR]\n"
        "             [--providers A,B] [--threads N] [--timeout SECONDS] [--rtol R]\n"
        "             [--atol A] [--repeat N] [--verbose] [--provider-library PATH]\n"
        "      ONNX backend-test runner. DIR is a case (model.onnx +\n"
        "      test_data_set_N/{input,output}_K.pb) or a folder of cases. Prints\n"
        "      PASS/FAIL/ERROR per case and ends with 'N passed, N failed'. Exits 0 when\n"
        "      nothing failed, or when exactly the cases in --expected-failures failed.\n"
        "      --provider-library loads a provider plugin and runs every case with it\n"
        "      first (then --providers, then the CPU): a provider author's acceptance kit.\n"
        "      --repeat runs each data set N times (1-100), checking every run (CUDA\n"
        "      graphs are captured on a shape's second run and replayed after).\n"
        "  partition MODEL [--providers A,B] [--place KIND:VALUE=[!]PROVIDER ...]\n"
        "            [--json FILE] [--dot FILE] [--svg FILE]\n"
        "      Which provider runs each node, why earlier providers declined, the copies\n"
        "      between memory spaces; as a table, JSON and a Graphviz picture. --place\n"
        "      pins nodes (KIND is name, op or pattern) to a provider, or forbids it (!).\n"
        "  doctor [--provider-library PATH ...]\n"
        "      Every provider (and each plugin named) with its status, the libraries it\n"
        "      looked for, the paths tried, and the versions found and required.\n"
        "  ops [--markdown] [--providers A,B]  the operator x provider support matrix\n"
        "      (docs/operators.md, docs/operators_cuda.md); columns: the providers that run\n"
        "      here, or those named (a built provider whose device is absent included)\n"
        "  bench MODEL [--threads N] [--warmup W] [--iters I] [--providers A,B]\n"
        "              [--opt-level LEVEL] [--json] [--random] [--seed N] [--profile PREFIX]\n"
        "              [--device-io] [--provider-library PATH]\n"
        "      Times session creation, the first run and I timed runs (after W warm-up\n"
        "      runs): median/p90/min latency and peak RSS. Inputs come from\n"
        "      test_data_set_0/ next to the model when present (as the ONNX Runtime\n"
        "      yardstick does), else random as in 'run'. --json prints one JSON line.\n"
        "      --profile writes every run's per-node times to PREFIX_<time>.json (a\n"
        "      Chrome trace; bench/profile_summary.py sums it by operator); add\n"
        "      --config session.profile_device_time=1 for a GPU's device times.\n"
        "      Runs take host inputs and return host outputs (the copies are timed);\n"
        "      --device-io copies the inputs once to where they are first read and\n"
        "      leaves outputs where they are made, as a framework timing its own\n"
        "      device tensors does.\n"
        "  serve --model-repository DIR [--http-port N] [--grpc-port N|off]\n"
        "        [--metrics-port N|off] [--host ADDR] [--max-body-bytes N]\n"
        "        [--http-threads N] [--grace-seconds N] [--access-log stderr|none|FILE]\n"
        "        [--model-control-mode none|poll|explicit] [--repository-poll-secs N]\n"
        "        [--load-model NAME|'*' ...]\n"
        "      Serves every model of DIR (DIR/<model>/<version>/model.onnx, optional\n"
        "      DIR/<model>/config.json) with the Open Inference Protocol (KServe v2)\n"
        "      over HTTP (port 8080) and gRPC (8081, when built with gRPC), and\n"
        "      GET /metrics (Prometheus, 8082), until SIGINT or SIGTERM; port 0 takes\n"
        "      a free port and prints it. One JSON access-log line per inference\n"
        "      request goes to stderr (--access-log). --model-control-mode none (the\n"
        "      default) loads every model at start and refuses the repository API's\n"
        "      load/unload; poll (the default with --repository-poll-secs N) also\n"
        "      reloads what changed in DIR every N seconds (15 when not given);\n"
        "      explicit loads only the --load-model models at start, then what the\n"
        "      repository API asks for (docs/serving.md).\n"
        "  help      this text\n"
        "  --version the version\n"
        "\n"
        "Providers are given by name in priority order (e.g. CPUExecutionProvider, or\n"
        "'cpu'); options follow the name: NAME:key=value:key2=value2. run, test and\n"
        "partition also take --provider-library PATH: a provider plugin, put first.\n"
        "run, test, inspect, partition and bench take --config KEY=VALUE (repeatable):\n"
        "a session config entry, e.g. --config session.intra_op.allow_spinning=0.\n";
}

}  // namespace tessera::cli

int main(int argc, char** argv) {
  using namespace tessera::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_usage(std::cerr);
    std::cerr << "\nerror: no command given\n";
    return 2;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "--version" || command == "version") {
      std::cout << "tessera " << tessera::version_string() << "\n";
      // Scripts check this line to learn which providers the build has.
      std::string list;
      for (const auto& n : tessera::ep::ProviderRegistry::instance().available_names())
        list += (list.empty() ? "" : ", ") + n;
      std::cout << "providers: " << list << "\n";
      // Built in, whether or not this machine can run them (e.g. CUDA without a GPU).
      list.clear();
      for (const auto& n : tessera::ep::ProviderRegistry::instance().names())
        list += (list.empty() ? "" : ", ") + n;
      std::cout << "built: " << list << "\n";
      return 0;
    }
    if (command == "help" || command == "--help" || command == "-h") {
      print_usage(std::cout);
      return 0;
    }
    if (command == "run") return cmd_run(args);
    if (command == "inspect") return cmd_inspect(args);
    if (command == "test") return cmd_test(args);
    if (command == "partition") return cmd_partition(args);
    if (command == "doctor") return cmd_doctor(args);
    if (command == "ops") return cmd_ops(args);
    if (command == "bench") return cmd_bench(args);
    if (command == "serve") return cmd_serve(args);
    throw UsageError(tessera::str_cat("unknown command '", command, "'"));
  } catch (const UsageError& e) {
    print_usage(std::cerr);
    std::cerr << "\nerror: " << e.what() << "\n";
    return 2;
  } catch (const tessera::Error& e) {
    std::cerr << "error (" << tessera::error_code_name(e.code()) << "): " << e.what() << "\n";
    return 1;
  } catch (const tessera::api::Error& e) {
    // From the commands written on the public API: the same form.
    std::cerr << "error (" << ort_error_code_name(e.code()) << "): " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
