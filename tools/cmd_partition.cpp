// `tessera partition MODEL --providers A,B`: which provider runs each node and
// why the earlier ones declined, as a table, JSON, and a Graphviz picture.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cli_args.hpp"
#include "commands.hpp"
#include "runtime/runtime_api.hpp"

namespace tessera::cli {

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) fail(ErrorCode::kFail, "cannot write '", path, "'");
  f << text;
}

// "name:NODE=PROVIDER", "op:TYPE=PROVIDER", "pattern:GLOB=PROVIDER"; a leading
// '!' before PROVIDER forbids it instead of pinning.
ep::PlacementRule parse_rule(const std::string& text) {
  auto colon = text.find(':');
  auto eq = text.rfind('=');
  if (colon == std::string::npos || eq == std::string::npos || eq < colon)
    throw UsageError(str_cat(
        "--place expects KIND:VALUE=PROVIDER (KIND is name, op or pattern), got '", text, "'"));
  ep::PlacementRule r;
  std::string kind = text.substr(0, colon);
  if (kind == "name")
    r.match = ep::PlacementRule::Match::kName;
  else if (kind == "op")
    r.match = ep::PlacementRule::Match::kOpType;
  else if (kind == "pattern")
    r.match = ep::PlacementRule::Match::kNamePattern;
  else
    throw UsageError(str_cat("--place: unknown kind '", kind, "' (name, op or pattern)"));
  r.value = text.substr(colon + 1, eq - colon - 1);
  r.provider = text.substr(eq + 1);
  if (!r.provider.empty() && r.provider[0] == '!') {
    r.forbid = true;
    r.provider = r.provider.substr(1);
  }
  if (r.provider == "cpu") r.provider = "CPUExecutionProvider";
  return r;
}

}  // namespace

int cmd_partition(const std::vector<std::string>& argv) {
  Args args("partition", argv,
            {"--providers", "--json", "--dot", "--svg", "--place", "--opt-level",
             "--provider-library", "--config"},
            {"--help"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError("tessera partition needs exactly one MODEL");
  SessionOptions options = session_options_from(args);
  for (const auto& p : args.all("--place")) options.placement.push_back(parse_rule(p));
  std::vector<ProviderSpec> providers;
  if (auto p = args.get("--providers")) providers = parse_providers(*p);
  add_provider_libraries(args, providers);
  auto session = Session::create(args.positional()[0], options, providers);
  PartitionReport report = session->partition_report();
  std::cout << report.to_text();
  if (auto j = args.get("--json")) {
    write_file(*j, report.to_json());
    std::cout << "wrote " << *j << "\n";
  }
  std::string dot = args.get("--dot").value_or("");
  if (auto svg = args.get("--svg")) {
    if (dot.empty()) dot = *svg + ".dot";
    write_file(dot, report.to_dot());
    std::string cmd = str_cat("dot -Tsvg '", dot, "' -o '", *svg, "'");
    if (std::system(cmd.c_str()) != 0)
      fail(ErrorCode::kFail, "could not render ", *svg,
           " (is Graphviz's `dot` installed? apt-get install graphviz)");
    std::cout << "wrote " << *svg << "\n";
  } else if (!dot.empty()) {
    write_file(dot, report.to_dot());
    std::cout << "wrote " << dot << "\n";
  }
  return 0;
}

}  // namespace tessera::cli
