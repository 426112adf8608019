// The statistics extension's answer (GET v2/models[/NAME[/versions/V]]/stats,
// the layout of Triton's statistics extension): {"model_stats": [...]}, one
// entry per loaded model version.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "serve/repository.hpp"

namespace tessera::serve {

nlohmann::json stats_json(const std::vector<std::shared_ptr<const LoadedModel>>& models);

}  // namespace tessera::serve
