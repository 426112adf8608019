#include "serve/infer_json.hpp"

#include "serve/datatype.hpp"
#include "serve/serve_error.hpp"
#include "serve/tensor_bytes.hpp"
#include "serve/tensor_json.hpp"

namespace tessera::serve {
namespace {

using nlohmann::json;

// The request's "inputs", converted; each binary one takes its bytes from
// `binary` in turn, and together they must use all of it.
void read_inputs(const LoadedModel& model, const json& request, std::string_view binary,
                 InferRequest& out) {
  const std::string& m = model.name;
  size_t binary_used = 0;
  for (const json& t : request.at("inputs")) {
    if (!t.is_object() || !t.contains("name") || !t.at("name").is_string())
      throw ServeError(400, "model '" + m + "': each input must be an object with a \"name\"");
    const std::string name = t.at("name").get<std::string>();
    const TensorSpec& spec = input_spec(model, name);
    for (const auto& given : out.input_names)
      if (given == name)
        throw ServeError(400, "model '" + m + "', input '" + name + "' is given twice");
    const json* size = nullptr;
    if (t.contains("parameters") && t.at("parameters").is_object() &&
        t.at("parameters").contains("binary_data_size"))
      size = &t.at("parameters").at("binary_data_size");
    api::Value v;
    if (size != nullptr) {
      if (!size->is_number_unsigned())
        throw ServeError(400, "model '" + m + "', input '" + name +
                                  "': binary_data_size must be an integer >= 0");
      const uint64_t n = size->get<uint64_t>();
      if (n > binary.size() - binary_used)
        throw ServeError(400, "model '" + m + "', input '" + name + "': binary_data_size " +
                                  std::to_string(n) + " goes past the " +
                                  std::to_string(binary.size()) +
                                  " bytes of binary data after the JSON header");
      v = tensor_from_binary(t, spec, m, binary.substr(binary_used, n));
      binary_used += n;
    } else {
      v = tensor_from_json(t, spec, m);
    }
    out.input_names.push_back(name);
    out.inputs.push_back(std::move(v));
  }
  if (binary_used != binary.size())
    throw ServeError(400, "model '" + m + "': " + std::to_string(binary.size()) +
                              " bytes of binary data follow the JSON header, the inputs' "
                              "binary_data_size add up to " +
                              std::to_string(binary_used));
}

void read_outputs(const LoadedModel& model, const json& request, InferRequest& out) {
  const std::string& m = model.name;
  if (!request.contains("outputs")) return;
  if (!request.at("outputs").is_array())
    throw ServeError(400, "model '" + m + "': \"outputs\" must be an array");
  for (const json& o : request.at("outputs")) {
    if (!o.is_object() || !o.contains("name") || !o.at("name").is_string())
      throw ServeError(400, "model '" + m + "': each requested output needs a \"name\"");
    RequestedOutput r{o.at("name").get<std::string>(), out.all_binary};
    if (o.contains("parameters") && o.at("parameters").is_object() &&
        o.at("parameters").contains("binary_data")) {
      const json& flag = o.at("parameters").at("binary_data");
      if (!flag.is_boolean())
        throw ServeError(
            400, "model '" + m + "', output '" + r.name + "': binary_data must be true or false");
      r.binary = flag.get<bool>();
    }
    out.outputs.push_back(std::move(r));
  }
}

}  // namespace

InferResult infer_json(const LoadedModel& model, const json& request, std::string_view binary,
                       RequestTrace* trace) {
  const std::string& m = model.name;
  InferRequest req;
  req.trace = trace;
  if (trace && request.is_object() && request.contains("id") && request.at("id").is_string())
    trace->id = request.at("id").get<std::string>();
  if (!request.is_object())
    throw ServeError(400, "model '" + m + "': the request is not a JSON object");
  if (request.contains("id") && !request.at("id").is_string())
    throw ServeError(400, "model '" + m + "': \"id\" must be a string");
  if (request.contains("parameters")) {
    const json& p = request.at("parameters");
    if (!p.is_object())
      throw ServeError(400, "model '" + m + "': \"parameters\" must be an object");
    if (p.contains("binary_data_output")) {
      if (!p.at("binary_data_output").is_boolean())
        throw ServeError(400, "model '" + m + "': binary_data_output must be true or false");
      req.all_binary = p.at("binary_data_output").get<bool>();
    }
    if (p.contains("timeout")) {
      if (!p.at("timeout").is_number_integer())
        throw ServeError(
            400, "model '" + m + "': the \"timeout\" parameter must be integer microseconds");
      req.deadline = timeout_deadline(model, req.arrival, p.at("timeout").get<int64_t>());
    }
  }
  if (!request.contains("inputs") || !request.at("inputs").is_array())
    throw ServeError(400, "model '" + m + "': \"inputs\" must be an array of tensors");
  read_inputs(model, request, binary, req);
  read_outputs(model, request, req);
  if (request.contains("id")) req.id = request.at("id").get<std::string>();

  std::vector<InferOutput> outputs = run_inference(model, std::move(req));
  InferResult result;
  json& response = result.header;
  response = {{"model_name", m}, {"model_version", model.version}};
  if (request.contains("id")) response["id"] = request.at("id");
  json out = json::array();
  for (const auto& o : outputs) {
    if (o.binary) {
      const api::TensorInfo info = o.value.info();
      std::string bytes = tensor_to_binary(o.value);
      out.push_back({{"name", o.name},
                     {"datatype", protocol_datatype(info.type)},
                     {"shape", info.shape},
                     {"parameters", {{"binary_data_size", bytes.size()}}}});
      result.binary += bytes;
    } else {
      out.push_back(tensor_to_json(o.name, o.value));
    }
  }
  response["outputs"] = std::move(out);
  return result;
}

}  // namespace tessera::serve
