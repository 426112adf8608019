// The HTTP form of an inference request and its answer:
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
//
// The request parameter "timeout" (microseconds) bounds the request's time.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "serve/inference.hpp"
#include "serve/repository.hpp"

namespace tessera::serve {

struct InferResult {
  nlohmann::json header;
  std::string binary;  // the binary outputs, in the order of the outputs
};

// Parses, converts and runs one request (run_inference); throws ServeError.
// `trace` (when given) gets the request's id and what run_inference notes.
InferResult infer_json(const LoadedModel& model, const nlohmann::json& request,
                       std::string_view binary = {}, RequestTrace* trace = nullptr);

}  // namespace tessera::serve
