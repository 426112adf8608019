#include "cli_args.hpp"

#include <charconv>

#include "core/error.hpp"
#include "runtime/runtime_api.hpp"

namespace tessera::cli {

Args::Args(const std::string& command, const std::vector<std::string>& argv,
           const std::set<std::string>& value_flags, const std::set<std::string>& bool_flags)
    : command_(command) {
  bool flags_done = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (flags_done || a.size() < 2 || a[0] != '-' || a == "-") {
      positional_.push_back(a);
      continue;
    }
    if (a == "--") {
      flags_done = true;
      continue;
    }
    std::string name = a, value;
    bool inline_value = false;
    if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    if (bool_flags.count(name)) {
      if (inline_value) throw UsageError(str_cat("option ", name, " takes no value"));
      values_[name].push_back("1");
    } else if (value_flags.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw UsageError(str_cat("option ", name, " needs a value"));
        value = argv[++i];
      }
      values_[name].push_back(value);
    } else {
      throw UsageError(str_cat("unknown option '", a, "' for 'tessera ", command, "'"));
    }
  }
}

std::vector<std::string> Args::all(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<std::string> Args::get(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return std::nullopt;
  return it->second.back();
}

int Args::get_int(const std::string& flag, int fallback, int min_value) const {
  auto v = get(flag);
  if (!v) return fallback;
  int out = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size() || out < min_value)
    throw UsageError(str_cat(flag, " needs an integer >= ", min_value, ", got '", *v, "'"));
  return out;
}

double Args::get_double(const std::string& flag, double fallback) const {
  auto v = get(flag);
  if (!v) return fallback;
  try {
    size_t used = 0;
    double out = std::stod(*v, &used);
    if (used == v->size() && out >= 0) return out;
  } catch (const std::exception&) {
  }
  throw UsageError(str_cat(flag, " needs a non-negative number, got '", *v, "'"));
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* what) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(str_cat(what, " expects NAME=VALUE, got '", text, "'"));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<ProviderSpec> parse_providers(const std::string& text) {
  std::vector<ProviderSpec> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw UsageError(str_cat("--providers: empty provider name in '", text, "'"));
    ProviderSpec spec;
    size_t colon = item.find(':');
    spec.name = item.substr(0, colon);
    while (colon != std::string::npos) {
      size_t next = item.find(':', colon + 1);
      auto kv = split_assignment(
          item.substr(colon + 1, next == std::string::npos ? std::string::npos : next - colon - 1),
          "--providers option");
      spec.options[kv.first] = kv.second;
      colon = next;
    }
    if (spec.name == "cpu" || spec.name == "CPU") spec.name = "CPUExecutionProvider";
    out.push_back(std::move(spec));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void add_provider_libraries(const Args& args, std::vector<ProviderSpec>& providers) {
  auto libs = args.all("--provider-library");
  for (size_t i = libs.size(); i-- > 0;) {
    std::string name = register_execution_provider_library(libs[i], libs[i]);
    bool named = false;  // already placed (with options) by --providers
    for (const auto& p : providers) named |= p.name == name;
    if (!named) providers.insert(providers.begin(), ProviderSpec{name, {}});
  }
}

GraphOptimizationLevel parse_opt_level(const std::string& text) {
  if (text == "disable" || text == "disabled" || text == "none")
    return GraphOptimizationLevel::kDisableAll;
  if (text == "basic") return GraphOptimizationLevel::kBasic;
  if (text == "extended") return GraphOptimizationLevel::kExtended;
  if (text == "all") return GraphOptimizationLevel::kAll;
  throw UsageError(
      str_cat("--opt-level must be disable, basic, extended or all, got '", text, "'"));
}

SessionOptions session_options_from(const Args& args) {
  SessionOptions o;
  o.intra_op_num_threads = args.get_int("--threads", 0, 0);
  if (auto lvl = args.get("--opt-level")) o.graph_optimization_level = parse_opt_level(*lvl);
  // Session config entries, as SessionOptions::config_entries (the session
  // validates the keys it knows when it is created).
  for (const std::string& kv : args.all("--config")) {
    const size_t eq = kv.find('=');
    if (eq == 0 || eq == std::string::npos)
      throw UsageError(str_cat("--config takes KEY=VALUE, got '", kv, "'"));
    o.config_entries[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return o;
}

}  // namespace tessera::cli
