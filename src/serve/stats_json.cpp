#include "serve/stats_json.hpp"

namespace tessera::serve {
namespace {

using nlohmann::json;

json duration(const ModelStats::DurationStat& d) { return json{{"count", d.count}, {"ns", d.ns}}; }

json model_stat(const LoadedModel& m) {
  const ModelStats::Snapshot s = m.stats.snapshot();
  json batches = json::array();
  for (const auto& [rows, run] : s.per_batch)
    batches.push_back({{"batch_size", rows},
                       {"compute_input", duration(run.input)},
                       {"compute_infer", duration(run.infer)},
                       {"compute_output", duration(run.output)}});
  // The server has no response cache: its hits and misses stay at zero.
  const ModelStats::DurationStat no_cache;
  return json{{"name", m.name},
              {"version", m.version},
              {"last_inference", s.last_inference_ms},
              {"inference_count", s.inference_count},
              {"execution_count", s.execution_count},
              {"inference_stats",
               {{"success", duration(s.success)},
                {"fail", duration(s.fail)},
                {"queue", duration(s.queue)},
                {"compute_input", duration(s.requests.input)},
                {"compute_infer", duration(s.requests.infer)},
                {"compute_output", duration(s.requests.output)},
                {"cache_hit", duration(no_cache)}}},
              {"batch_stats", batches}};
}

}  // namespace

json stats_json(const std::vector<std::shared_ptr<const LoadedModel>>& models) {
  json list = json::array();
  for (const auto& m : models) list.push_back(model_stat(*m));
  return json{{"model_stats", list}};
}

}  // namespace tessera::serve
