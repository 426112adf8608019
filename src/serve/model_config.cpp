#include "serve/model_config.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tessera::serve {
namespace {

using nlohmann::json;

// The "input" or "output" array of Triton-style tensor declarations.
std::vector<TensorOverride> read_overrides(const json& j, const char* key,
                                           const std::string& path) {
  std::vector<TensorOverride> out;
  if (!j.contains(key)) return out;
  const json& list = j.at(key);
  const std::string where = path + ": \"" + key + "\"";
  if (!list.is_array()) throw std::runtime_error(where + " must be an array of {\"name\": ...}");
  for (const json& t : list) {
    if (!t.is_object() || !t.contains("name") || !t.at("name").is_string())
      throw std::runtime_error(where + ": each entry is an object with a \"name\"");
    TensorOverride o;
    o.name = t.at("name").get<std::string>();
    for (const auto& [k, v] : t.items())
      if (k != "name" && k != "data_type" && k != "dims")
        throw std::runtime_error(where + " '" + o.name + "': unknown key \"" + k +
                                 "\" (known: name, data_type, dims)");
    if (t.contains("data_type")) {
      const json& d = t.at("data_type");
      if (!d.is_string())
        throw std::runtime_error(where + " '" + o.name + "': \"data_type\" must be a string");
      o.datatype = d.get<std::string>();
      if (o.datatype.rfind("TYPE_", 0) == 0) o.datatype = o.datatype.substr(5);
      if (o.datatype == "STRING") o.datatype = "BYTES";
    }
    if (t.contains("dims")) {
      const json& d = t.at("dims");
      if (!d.is_array())
        throw std::runtime_error(where + " '" + o.name + "': \"dims\" must be an array");
      o.has_dims = true;
      for (const json& v : d) {
        if (!v.is_number_integer() || v.get<int64_t>() < -1)
          throw std::runtime_error(where + " '" + o.name + "': \"dims\" holds " + v.dump() +
                                   "; each is -1 (dynamic) or a size >= 0");
        o.dims.push_back(v.get<int64_t>());
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

int read_count(const json& j, const char* key, const std::string& path) {
  if (!j.contains(key)) return 0;
  const json& v = j.at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1024)
    throw std::runtime_error(path + ": \"" + key + "\" must be an integer from 0 to 1024");
  return v.get<int>();
}

}  // namespace

api::SessionOptions ModelConfig::session_options() const {
  api::SessionOptions options;
  if (intra_op_threads > 0) options.intra_op_threads(intra_op_threads);
  if (inter_op_threads > 0) options.inter_op_threads(inter_op_threads);
  for (const auto& p : providers) options.provider(p.name, p.options);
  for (const auto& [key, value] : session_config) options.config(key, value);
  return options;
}

ModelConfig read_model_config(const std::string& path) {
  ModelConfig config;
  if (!std::filesystem::exists(path)) return config;
  std::ifstream in(path);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error(path + ": not a JSON object");
  static const char* known[] = {"providers",
                                "intra_op_threads",
                                "inter_op_threads",
                                "max_batch_size",
                                "dynamic_batching",
                                "max_queue_size",
                                "request_timeout_microseconds",
                                "session_config",
                                "instance_group",
                                "input",
                                "output"};
  for (const auto& [key, value] : j.items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok)
      throw std::runtime_error(
          path + ": unknown key \"" + key +
          "\" (known: providers, intra_op_threads, inter_op_threads, "
          "max_batch_size, dynamic_batching, max_queue_size, "
          "request_timeout_microseconds, session_config, instance_group, input, output)");
  }
  config.intra_op_threads = read_count(j, "intra_op_threads", path);
  config.inter_op_threads = read_count(j, "inter_op_threads", path);
  if (j.contains("max_batch_size")) {
    const json& v = j.at("max_batch_size");
    if (!v.is_number_integer() || v.get<int64_t>() < 0)
      throw std::runtime_error(path + ": \"max_batch_size\" must be an integer >= 0");
    config.max_batch_size = v.get<int64_t>();
  }
  if (j.contains("max_queue_size")) {
    const json& v = j.at("max_queue_size");
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1000000)
      throw std::runtime_error(path + ": \"max_queue_size\" must be an integer from 0 to 1000000");
    config.max_queue_size = v.get<int64_t>();
  }
  if (j.contains("request_timeout_microseconds")) {
    const json& v = j.at("request_timeout_microseconds");
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 3600000000)
      throw std::runtime_error(path +
                               ": \"request_timeout_microseconds\" must be an integer from 0 to "
                               "3600000000 (an hour)");
    config.request_timeout_us = v.get<int64_t>();
  }
  if (j.contains("session_config")) {
    const json& c = j.at("session_config");
    if (!c.is_object()) throw std::runtime_error(path + ": \"session_config\" must be an object");
    for (const auto& [key, value] : c.items()) {
      if (!value.is_string())
        throw std::runtime_error(path + ": session_config: \"" + key + "\" must be a string");
      config.session_config[key] = value.get<std::string>();
    }
  }
  if (j.contains("dynamic_batching")) {
    const json& d = j.at("dynamic_batching");
    if (!d.is_object()) throw std::runtime_error(path + ": \"dynamic_batching\" must be an object");
    for (const auto& [key, value] : d.items())
      if (key != "max_queue_delay_microseconds" && key != "preferred_batch_size")
        throw std::runtime_error(path + ": dynamic_batching: unknown key \"" + key +
                                 "\" (known: max_queue_delay_microseconds, preferred_batch_size)");
    config.max_queue_delay_us = 0;
    if (d.contains("max_queue_delay_microseconds")) {
      const json& v = d.at("max_queue_delay_microseconds");
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 10000000)
        throw std::runtime_error(path +
                                 ": dynamic_batching: \"max_queue_delay_microseconds\" must be "
                                 "an integer from 0 to 10000000");
      config.max_queue_delay_us = v.get<int64_t>();
    }
    if (config.max_batch_size <= 0)
      throw std::runtime_error(path + ": dynamic_batching needs \"max_batch_size\" above 0");
    if (d.contains("preferred_batch_size")) {
      const json& list = d.at("preferred_batch_size");
      if (!list.is_array())
        throw std::runtime_error(path +
                                 ": dynamic_batching: \"preferred_batch_size\" must be an "
                                 "array of batch sizes");
      for (const json& v : list) {
        if (!v.is_number_integer() || v.get<int64_t>() < 1 ||
            v.get<int64_t>() > config.max_batch_size)
          throw std::runtime_error(path + ": dynamic_batching: \"preferred_batch_size\" " +
                                   v.dump() + " is not an integer from 1 to max_batch_size (" +
                                   std::to_string(config.max_batch_size) + ")");
        config.preferred_batch_sizes.push_back(v.get<int64_t>());
      }
      std::sort(config.preferred_batch_sizes.begin(), config.preferred_batch_sizes.end());
      config.preferred_batch_sizes.erase(
          std::unique(config.preferred_batch_sizes.begin(), config.preferred_batch_sizes.end()),
          config.preferred_batch_sizes.end());
    }
  }
  if (j.contains("instance_group")) {
    const json& groups = j.at("instance_group");
    if (!groups.is_array() || groups.empty())
      throw std::runtime_error(path +
                               ": \"instance_group\" must be a non-empty array of "
                               "{\"count\": N}");
    config.instance_count = 0;
    for (const json& g : groups) {
      if (!g.is_object())
        throw std::runtime_error(path + ": each instance_group is an object {\"count\": N}");
      for (const auto& [key, value] : g.items())
        if (key != "count" && key != "kind")
          throw std::runtime_error(path + ": instance_group: unknown key \"" + key +
                                   "\" (known: count, kind)");
      if (g.contains("kind")) {
        const json& k = g.at("kind");
        if (!k.is_string() || (k != "KIND_AUTO" && k != "KIND_CPU" && k != "KIND_GPU"))
          throw std::runtime_error(path +
                                   ": instance_group: \"kind\" must be KIND_AUTO, "
                                   "KIND_CPU or KIND_GPU (the providers list chooses "
                                   "the device)");
      }
      int64_t count = 1;
      if (g.contains("count")) {
        const json& c = g.at("count");
        if (!c.is_number_integer() || c.get<int64_t>() < 1 || c.get<int64_t>() > 64)
          throw std::runtime_error(path +
                                   ": instance_group: \"count\" must be an integer from "
                                   "1 to 64");
        count = c.get<int64_t>();
      }
      config.instance_count += count;
    }
    if (config.instance_count > 64)
      throw std::runtime_error(path + ": instance_group: the counts add up to " +
                               std::to_string(config.instance_count) + "; at most 64");
  }
  config.input_overrides = read_overrides(j, "input", path);
  config.output_overrides = read_overrides(j, "output", path);
  if (j.contains("providers")) {
    const json& list = j.at("providers");
    if (!list.is_array()) throw std::runtime_error(path + ": \"providers\" must be an array");
    for (const json& p : list) {
      ProviderChoice choice;
      if (p.is_string()) {
        choice.name = p.get<std::string>();
      } else if (p.is_object() && p.contains("name") && p.at("name").is_string()) {
        choice.name = p.at("name").get<std::string>();
        if (p.contains("options")) {
          if (!p.at("options").is_object())
            throw std::runtime_error(path + ": provider \"" + choice.name +
                                     "\": \"options\" must be an object");
          for (const auto& [k, v] : p.at("options").items())
            choice.options[k] = v.is_string() ? v.get<std::string>() : v.dump();
        }
      } else {
        throw std::runtime_error(
            path + ": each provider is a name or {\"name\": ..., \"options\": {...}}");
      }
      config.providers.push_back(std::move(choice));
    }
  }
  return config;
}

}  // namespace tessera::serve
