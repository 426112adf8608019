// Process-wide state shared by sessions: providers registered for every
// session, and the questions "which providers can this machine run?".
#pragma once
#include <mutex>
#include <string>
#include <vector>

#include "runtime/session_options.hpp"

namespace tessera {

class Environment {
 public:
  static Environment& global();
  // Providers appended to every session created afterwards (after the
  // session's own providers, which take precedence).
  void register_provider(ProviderSpec spec);
  void clear_providers();
  std::vector<ProviderSpec> providers() const;

 private:
  mutable std::mutex mu_;
  std::vector<ProviderSpec> providers_;
};

// Every provider this build knows, and those it can create on this machine.
std::vector<std::string> all_providers();
std::vector<std::string> available_providers();
// Whether `name` can be created here; `why_not` says why when it cannot.
bool is_provider_available(const std::string& name, std::string* why_not = nullptr);

}  // namespace tessera
