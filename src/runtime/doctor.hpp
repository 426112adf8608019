// What `tessera doctor` prints and the C ABI's Tessera table returns: every
// provider this build knows, whether this machine can run it, why not, and
// what its factory looked for.
#pragma once
#include <string>

namespace tessera::runtime {

std::string doctor_report();

}  // namespace tessera::runtime
