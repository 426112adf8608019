// Providers that live in modules of their own (libtessera_providers_<x>.so),
// loaded by the shared core from its own folder when the registry starts, so
// that the core and libtessera.so need none of a provider's libraries (CUDA,
// oneDNN) and a machine without them still loads Tessera.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ep/execution_provider.hpp"

namespace tessera::ep {

struct ProviderModule {
  const char* file;      // "tessera_providers_cuda": lib<file>.so
  const char* provider;  // the provider it adds ("CUDAExecutionProvider")
};

// Opens each module and adds its factories to `out`. A module that cannot be
// opened (absent, or a library it needs is missing) adds a factory that is
// never available and says why, so `doctor` and session creation name the
// module and the loader's reason.
void load_provider_modules(const std::vector<ProviderModule>& modules,
                           std::vector<std::shared_ptr<ProviderFactory>>& out);

// What each module exports.
using ProviderModuleEntry = void (*)(std::vector<std::shared_ptr<ProviderFactory>>* out);
inline constexpr const char* kProviderModuleEntry = "tessera_provider_module_factories";

}  // namespace tessera::ep
