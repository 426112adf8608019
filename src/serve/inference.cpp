#include "serve/inference.hpp"

#include <set>

#include "serve/http_error.hpp"
#include "serve/tensor_json.hpp"

namespace tessera::serve {

using nlohmann::json;

json infer(const LoadedModel& model, const json& request) {
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
    api::Value v = tensor_from_json(t, *spec, m);
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

  std::vector<std::string> outputs;
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
      if (o.contains("parameters") && o.at("parameters").is_object() &&
          o.at("parameters").value("binary_data", false))
        throw HttpError(400, "model '" + m + "', output '" + name +
                                 "': binary_data is not served (the binary tensor data "
                                 "extension is not implemented)");
      outputs.push_back(name);
    }
  }
  if (outputs.empty())
    for (const auto& s : model.outputs) outputs.push_back(s.name);

  std::vector<api::Value> results;
  try {
    results = model.session->run(names, values, outputs);
  } catch (const api::Error& e) {
    const int status =
        e.code() == ORT_INVALID_ARGUMENT || e.code() == ORT_INVALID_GRAPH ? 400 : 500;
    throw HttpError(status, "model '" + m + "': the run failed: " + e.what());
  }
  json response = {{"model_name", m}, {"model_version", model.version}};
  if (request.contains("id")) response["id"] = request.at("id");
  json out = json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!results[i].is_tensor())
      throw HttpError(500, "model '" + m + "', output '" + outputs[i] + "' is not a tensor");
    out.push_back(tensor_to_json(outputs[i], results[i]));
  }
  response["outputs"] = std::move(out);
  return response;
}

}  // namespace tessera::serve
