// Providers built as separate shared libraries and loaded at run time through
// the C plugin ABI (include/tessera/tessera_ep_api.h). The adapter classes
// here turn the plugin's function tables into a ProviderFactory and
// ExecutionProvider; nothing else in the runtime knows a provider is a plugin.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ep/execution_provider.hpp"
#include "tessera/tessera_ep_api.h"

namespace tessera::ep {

// Opens the library at `path`, checks its ABI version and returns its factory.
// Errors (each naming the path): kNoSuchFile when it does not exist, kEPFail
// when it cannot be loaded, kInvalidArgument when it lacks the entry points,
// was built against another ABI version, or returns a bad factory table.
std::shared_ptr<ProviderFactory> load_provider_library(const std::string& path);

// Loads the library and adds its factory to the ProviderRegistry under the
// provider name the plugin reports; `name` is the handle for unregistering.
// Returns the provider's name. Fails if `name` is taken or the provider name
// collides with one the registry already has.
std::string register_provider_library(const std::string& name, const std::string& path);
void unregister_provider_library(const std::string& name);
// (registration name, path, provider name) of every registered library.
struct RegisteredLibrary {
  std::string name, path, provider;
};
std::vector<RegisteredLibrary> registered_provider_libraries();

}  // namespace tessera::ep
