// One inference request of the protocol, checked against the model and run:
//   {"id": "...", "parameters": {...},
//    "inputs": [{"name", "shape", "datatype", "data"}, ...],
//    "outputs": [{"name": "..."}, ...]}           (optional; all when absent)
// answered with {"model_name", "model_version", "id", "outputs": [...]}.
//
// The binary tensor data extension: an input with the parameter
// "binary_data_size" takes its elements from `binary` (the body after the
// JSON header), in the order of the inputs; an output requested with
// "binary_data": true (or every output, with the request parameter
// "binary_data_output": true) is returned in InferResult::binary, its JSON
// carrying "binary_data_size" instead of "data".
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "serve/repository.hpp"

namespace tessera::serve {

// Throws HttpError 400 for a request the model cannot take (naming the model,
// the tensor and what is wrong), 500 for a failure of the run itself.
struct InferResult {
  nlohmann::json header;
  std::string binary;  // the binary outputs, in the order of the outputs
};
InferResult infer(const LoadedModel& model, const nlohmann::json& request,
                  std::string_view binary = {});

}  // namespace tessera::serve
