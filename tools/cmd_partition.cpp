// `tessera partition MODEL --providers A,B`: which provider runs each node and
// why the earlier ones declined, as a table, JSON, and a Graphviz picture.
// Written on the public C++ API and Tessera's own table alone.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cli_args.hpp"
#include "commands.hpp"
#include "public_session.hpp"

namespace tessera::cli {

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) fail(ErrorCode::kFail, "cannot write '", path, "'");
  f << text;
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
  api::Env env;
  const api::Session session(env, args.positional()[0], public_session_options(args));
  std::cout << api::partition_report(session, TESSERA_REPORT_TEXT);
  if (auto j = args.get("--json")) {
    write_file(*j, api::partition_report(session, TESSERA_REPORT_JSON));
    std::cout << "wrote " << *j << "\n";
  }
  std::string dot = args.get("--dot").value_or("");
  if (auto svg = args.get("--svg")) {
    if (dot.empty()) dot = *svg + ".dot";
    write_file(dot, api::partition_report(session, TESSERA_REPORT_DOT));
    std::string cmd = str_cat("dot -Tsvg '", dot, "' -o '", *svg, "'");
    if (std::system(cmd.c_str()) != 0)
      fail(ErrorCode::kFail, "could not render ", *svg,
           " (is Graphviz's `dot` installed? apt-get install graphviz)");
    std::cout << "wrote " << *svg << "\n";
  } else if (!dot.empty()) {
    write_file(dot, api::partition_report(session, TESSERA_REPORT_DOT));
    std::cout << "wrote " << dot << "\n";
  }
  return 0;
}

}  // namespace tessera::cli
