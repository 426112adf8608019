#include "ep/provider_registry.hpp"


// Generated at configure time (cmake/built_in_providers.cmake): declares the
// factory function of every built-in provider (the CPU provider's first, then
// the optional ones this build includes) and defines add_built_in_providers(),
// which calls them. The shared core (TESSERA_PROVIDER_MODULES) builds in only
// the CPU provider and loads the others' modules.
#ifdef TESSERA_PROVIDER_MODULES
#include "ep/provider_modules.hpp"
#include "provider_modules.inc"
#else
#include "built_in_providers.inc"
#endif

namespace tessera::ep {

ProviderRegistry::ProviderRegistry() {
  add_built_in_providers(factories_);
#ifdef TESSERA_PROVIDER_MODULES
  load_provider_modules(provider_modules(), factories_);
#endif
}

ProviderRegistry& ProviderRegistry::instance() {
  static ProviderRegistry r;
  return r;
}

void ProviderRegistry::add(std::shared_ptr<ProviderFactory> factory) {
  for (auto& f : factories_)
    if (f->name() == factory->name()) {
      f = std::move(factory);
      removed(f->name());
      return;
    }
  factories_.push_back(std::move(factory));
}

void ProviderRegistry::remove(const std::string& name) {
  if (std::erase_if(factories_, [&](const auto& f) { return f->name() == name; })) removed(name);
}

void ProviderRegistry::on_factory_removed(std::function<void(const std::string&)> listener) {
  listeners_.push_back(std::move(listener));
}

void ProviderRegistry::removed(const std::string& name) const {
  for (const auto& l : listeners_) l(name);
}

const ProviderFactory* ProviderRegistry::find(const std::string& name) const {
  for (const auto& f : factories_)
    if (f->name() == name) return f.get();
  return nullptr;
}

std::vector<std::string> ProviderRegistry::names() const {
  std::vector<std::string> n;
  for (const auto& f : factories_) n.push_back(f->name());
  return n;
}

std::vector<std::string> ProviderRegistry::available_names() const {
  std::vector<std::string> n;
  for (const auto& f : factories_)
    if (f->is_available(nullptr)) n.push_back(f->name());
  return n;
}

}  // namespace tessera::ep
