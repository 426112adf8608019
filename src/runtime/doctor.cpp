#include "runtime/doctor.hpp"

#include <sstream>

#include "ep/provider_abilities.hpp"
#include "ep/provider_registry.hpp"

namespace tessera::runtime {

std::string doctor_report() {
  std::ostringstream os;
  os << "execution providers:\n";
  auto& registry = ep::ProviderRegistry::instance();
  for (const auto& name : registry.names()) {
    const ep::ProviderFactory* f = registry.find(name);
    std::string why;
    const bool ok = f->is_available(&why);
    os << "  " << name << ": " << (ok ? "available" : "NOT available") << "\n";
    if (!why.empty()) os << "      why not: " << why << "\n";
    if (const auto* d = dynamic_cast<const ep::FactoryDiagnostics*>(f))
      for (const auto& line : d->diagnostics()) os << "      " << line << "\n";
  }
  return os.str();
}

}  // namespace tessera::runtime
