#include "serve/inference.hpp"

#include <set>

#include "serve/batcher.hpp"
#include "serve/datatype.hpp"
#include "serve/http_error.hpp"
#include "serve/tensor_json.hpp"

namespace tessera::serve {

using nlohmann::json;

InferResult infer(const LoadedModel& model, const json& request, std::string_view binary) {
  const std::string& m = model.name;
  if (!request.is_object())
    throw HttpError(400, "model '" + m + "': the request is not a JSON object");
  if (request.contains("id") && !request.at("id").is_string())
    throw HttpError(400, "model '" + m + "': \"id\" must be a string");
  if (request.contains("parameters") && !request.at("parameters").is_object())
    throw HttpError(400, "model '" + m + "': \"parameters\" must be an object");
  if (!request.contains("inputs") || !request.at("inputs").is_array())
    throw HttpError(400, "model '" + m + "': \"inputs\" must be an array of tensors");

  std::vector<std::string> names;
  std::vector<api::Value> values;
  std::set<std::string> given;
  size_t binary_used = 0;
  for (const json& t : request.at("inputs")) {
    if (!t.is_object() || !t.contains("name") || !t.at("name").is_string())
      throw HttpError(400, "model '" + m + "': each input must be an object with a \"name\"");
    const std::string name = t.at("name").get<std::string>();
    const TensorSpec* spec = nullptr;
    for (const auto& s : model.inputs)
      if (s.name == name) spec = &s;
    if (spec == nullptr) {
      std::string known;
      for (const auto& s : model.inputs) known += (known.empty() ? "" : ", ") + s.name;
      throw HttpError(400, "model '" + m + "' has no input '" + name + "' (inputs: " + known + ")");
    }
    if (!given.insert(name).second)
      throw HttpError(400, "model '" + m + "', input '" + name + "' is given twice");
    const json* size = nullptr;
    if (t.contains("parameters") && t.at("parameters").is_object() &&
        t.at("parameters").contains("binary_data_size"))
      size = &t.at("parameters").at("binary_data_size");
    api::Value v;
    if (size != nullptr) {
      if (!size->is_number_unsigned())
        throw HttpError(400, "model '" + m + "', input '" + name +
                                 "': binary_data_size must be an integer >= 0");
      const uint64_t n = size->get<uint64_t>();
      if (n > binary.size() - binary_used)
        throw HttpError(400, "model '" + m + "', input '" + name + "': binary_data_size " +
                                 std::to_string(n) + " goes past the " +
                                 std::to_string(binary.size()) +
                                 " bytes of binary data after the JSON header");
      v = tensor_from_binary(t, *spec, m, binary.substr(binary_used, n));
      binary_used += n;
    } else {
      v = tensor_from_json(t, *spec, m);
    }
    if (model.config.max_batch_size > 0 && !spec->shape.empty()) {
      const int64_t batch = v.info().shape[0];
      if (batch > model.config.max_batch_size)
        throw HttpError(400, "model '" + m + "', input '" + name + "': batch " +
                                 std::to_string(batch) + " exceeds max_batch_size " +
                                 std::to_string(model.config.max_batch_size));
    }
    names.push_back(name);
    values.push_back(std::move(v));
  }
  for (const auto& s : model.inputs)
    if (!given.count(s.name))
      throw HttpError(400, "model '" + m + "': input '" + s.name + "' is missing");

  if (binary_used != binary.size())
    throw HttpError(400, "model '" + m + "': " + std::to_string(binary.size()) +
                             " bytes of binary data follow the JSON header, the inputs' "
                             "binary_data_size add up to " +
                             std::to_string(binary_used));

  bool all_binary = false;
  if (request.contains("parameters")) {
    const json& p = request.at("parameters");
    if (p.contains("binary_data_output")) {
      if (!p.at("binary_data_output").is_boolean())
        throw HttpError(400, "model '" + m + "': binary_data_output must be true or false");
      all_binary = p.at("binary_data_output").get<bool>();
    }
  }
  std::vector<std::string> outputs;
  std::vector<bool> as_binary;
  if (request.contains("outputs")) {
    if (!request.at("outputs").is_array())
      throw HttpError(400, "model '" + m + "': \"outputs\" must be an array");
    for (const json& o : request.at("outputs")) {
      if (!o.is_object() || !o.contains("name") || !o.at("name").is_string())
        throw HttpError(400, "model '" + m + "': each requested output needs a \"name\"");
      const std::string name = o.at("name").get<std::string>();
      bool known = false;
      for (const auto& s : model.outputs) known = known || s.name == name;
      if (!known) throw HttpError(400, "model '" + m + "' has no output '" + name + "'");
      bool b = all_binary;
      if (o.contains("parameters") && o.at("parameters").is_object() &&
          o.at("parameters").contains("binary_data")) {
        const json& flag = o.at("parameters").at("binary_data");
        if (!flag.is_boolean())
          throw HttpError(
              400, "model '" + m + "', output '" + name + "': binary_data must be true or false");
        b = flag.get<bool>();
      }
      outputs.push_back(name);
      as_binary.push_back(b);
    }
  }
  if (outputs.empty())
    for (const auto& s : model.outputs) {
      outputs.push_back(s.name);
      as_binary.push_back(all_binary);
    }

  std::vector<api::Value> results;
  try {
    if (model.batcher) {
      // The batcher takes every input and gives every output, in the model's order.
      std::vector<api::Value> ordered(model.inputs.size());
      for (size_t i = 0; i < names.size(); ++i)
        for (size_t k = 0; k < model.inputs.size(); ++k)
          if (model.inputs[k].name == names[i]) ordered[k] = std::move(values[i]);
      std::vector<api::Value> all = model.batcher->run(std::move(ordered));
      for (const auto& name : outputs)
        for (size_t k = 0; k < model.outputs.size(); ++k)
          if (model.outputs[k].name == name) results.push_back(std::move(all[k]));
    } else {
      results = model.session->run(names, values, outputs);
    }
  } catch (const api::Error& e) {
    const int status =
        e.code() == ORT_INVALID_ARGUMENT || e.code() == ORT_INVALID_GRAPH ? 400 : 500;
    throw HttpError(status, "model '" + m + "': the run failed: " + e.what());
  }
  InferResult result;
  json& response = result.header;
  response = {{"model_name", m}, {"model_version", model.version}};
  if (request.contains("id")) response["id"] = request.at("id");
  json out = json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!results[i].is_tensor())
      throw HttpError(500, "model '" + m + "', output '" + outputs[i] + "' is not a tensor");
    if (as_binary[i]) {
      const api::TensorInfo info = results[i].info();
      std::string bytes = tensor_to_binary(results[i]);
      out.push_back({{"name", outputs[i]},
                     {"datatype", protocol_datatype(info.type)},
                     {"shape", info.shape},
                     {"parameters", {{"binary_data_size", bytes.size()}}}});
      result.binary += bytes;
    } else {
      out.push_back(tensor_to_json(outputs[i], results[i]));
    }
  }
  response["outputs"] = std::move(out);
  return result;
}

}  // namespace tessera::serve
