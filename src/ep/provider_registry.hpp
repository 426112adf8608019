// The table of provider factories: the CPU provider's always, others added at
// build time or loaded from plugins. The runtime finds providers here by name.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ep/execution_provider.hpp"

namespace tessera::ep {

// Every factory this build knows; the CPU provider's is always there.
class ProviderRegistry {
 public:
  static ProviderRegistry& instance();
  void add(std::shared_ptr<ProviderFactory> factory);
  // Removes a factory added at run time (providers already created keep working).
  void remove(const std::string& name);
  // `listener(name)` is called after the factory of that name is removed or
  // replaced, so whoever keeps providers it created for reuse (the
  // environment) can drop them, and a plugin library can unload.
  void on_factory_removed(std::function<void(const std::string&)> listener);
  const ProviderFactory* find(const std::string& name) const;
  std::vector<std::string> names() const;            // all registered
  std::vector<std::string> available_names() const;  // creatable on this machine

 private:
  ProviderRegistry();
  void removed(const std::string& name) const;
  std::vector<std::shared_ptr<ProviderFactory>> factories_;
  std::vector<std::function<void(const std::string&)>> listeners_;
};

}  // namespace tessera::ep
