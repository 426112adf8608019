// `tessera doctor`: every provider this build knows (and any plugin named
// with --provider-library), whether this machine can run it, and what it
// looked for: libraries, the paths tried, versions found and required.
#include <iostream>

#include "cli_args.hpp"
#include "commands.hpp"
#include "ep/plugin_provider.hpp"
#include "runtime/doctor.hpp"
#include "runtime/runtime_api.hpp"

namespace tessera::cli {

int cmd_doctor(const std::vector<std::string>& argv) {
  Args args("doctor", argv, {"--provider-library"}, {"--help"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  int status = 0;
  std::cout << "tessera " << version_string() << " (provider plugin ABI version "
            << TESSERA_EP_ABI_VERSION << ")\n";
  for (const auto& path : args.all("--provider-library")) {
    try {
      std::string name = register_execution_provider_library(path, path);
      std::cout << "loaded " << name << " from " << path << "\n";
    } catch (const Error& e) {
      std::cout << "could not load provider library " << path << ": " << e.what() << "\n";
      status = 1;
    }
  }
  std::cout << "\n" << runtime::doctor_report();
  return status;
}

}  // namespace tessera::cli
