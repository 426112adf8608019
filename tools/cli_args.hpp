// Command-line parsing shared by the subcommands: `--flag value`,
// `--flag=value`, repeatable flags and positional arguments. Anything it does
// not know is a UsageError, which main() turns into usage text and exit 2.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/session_options.hpp"

namespace tessera::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `value_flags` take a value; `bool_flags` do not. Names include the dashes.
  Args(const std::string& command, const std::vector<std::string>& argv,
       const std::set<std::string>& value_flags, const std::set<std::string>& bool_flags);

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& flag) const { return values_.count(flag) > 0; }
  // Every value of a repeatable flag, in order.
  std::vector<std::string> all(const std::string& flag) const;
  // The last value given, if any.
  std::optional<std::string> get(const std::string& flag) const;
  int get_int(const std::string& flag, int fallback, int min_value) const;
  double get_double(const std::string& flag, double fallback) const;

 private:
  std::string command_;
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
};

// "A,B" or "A:key=value:key2=value2,B" -> provider specs, in priority order.
// "cpu" is short for CPUExecutionProvider.
std::vector<ProviderSpec> parse_providers(const std::string& text);
// Registers each --provider-library PATH (a provider plugin) and puts its
// provider first in `providers`, in the order given.
void add_provider_libraries(const Args& args, std::vector<ProviderSpec>& providers);
// disable|basic|extended|all
GraphOptimizationLevel parse_opt_level(const std::string& text);
// Applies --threads and --opt-level when present.
SessionOptions session_options_from(const Args& args);
// "NAME=VALUE" -> (NAME, VALUE); `what` names the flag in errors.
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* what);

}  // namespace tessera::cli
