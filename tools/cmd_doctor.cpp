// `tessera doctor`: every provider this build knows (and any plugin named
// with --provider-library), whether this machine can run it, and what it
// looked for: libraries, the paths tried, versions found and required.
// Written on the public C++ API and Tessera's own table alone.
#include <iostream>

#include "cli_args.hpp"
#include "commands.hpp"
#include "public_session.hpp"
#include "tessera/tessera_ep_api.h"

namespace tessera::cli {

int cmd_doctor(const std::vector<std::string>& argv) {
  Args args("doctor", argv, {"--provider-library"}, {"--help"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  int status = 0;
  std::cout << "tessera " << OrtGetApiBase()->GetVersionString() << " (provider plugin ABI version "
            << TESSERA_EP_ABI_VERSION << ")\n";
  for (const auto& path : args.all("--provider-library")) {
    try {
      const std::string name = api::register_provider_library(path);
      std::cout << "loaded " << name << " from " << path << "\n";
    } catch (const api::Error& e) {
      std::cout << "could not load provider library " << path << ": " << e.what() << "\n";
      status = 1;
    }
  }
  std::cout << "\n" << api::doctor_report();
  return status;
}

}  // namespace tessera::cli
