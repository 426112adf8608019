#include "runtime/environment.hpp"

#include "ep/provider_registry.hpp"

namespace tessera {

Environment& Environment::global() {
  static Environment env;
  return env;
}

void Environment::register_provider(ProviderSpec spec) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& p : providers_)
    if (p.name == spec.name) {
      p = std::move(spec);
      return;
    }
  providers_.push_back(std::move(spec));
}

void Environment::clear_providers() {
  std::lock_guard<std::mutex> lock(mu_);
  providers_.clear();
}

std::vector<ProviderSpec> Environment::providers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return providers_;
}

std::vector<std::string> all_providers() { return ep::ProviderRegistry::instance().names(); }
std::vector<std::string> available_providers() {
  return ep::ProviderRegistry::instance().available_names();
}

bool is_provider_available(const std::string& name, std::string* why_not) {
  const ep::ProviderFactory* f = ep::ProviderRegistry::instance().find(name);
  if (!f) {
    if (why_not) *why_not = "this build has no provider named '" + name + "'";
    return false;
  }
  return f->is_available(why_not);
}

}  // namespace tessera
