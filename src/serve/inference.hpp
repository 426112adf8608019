// One inference request of the protocol, checked against the model and run:
//   {"id": "...", "parameters": {...},
//    "inputs": [{"name", "shape", "datatype", "data"}, ...],
//    "outputs": [{"name": "..."}, ...]}           (optional; all when absent)
// answered with {"model_name", "model_version", "id", "outputs": [...]}.
#pragma once
#include <nlohmann/json.hpp>

#include "serve/repository.hpp"

namespace tessera::serve {

// Throws HttpError 400 for a request the model cannot take (naming the model,
// the tensor and what is wrong), 500 for a failure of the run itself.
nlohmann::json infer(const LoadedModel& model, const nlohmann::json& request);

}  // namespace tessera::serve
