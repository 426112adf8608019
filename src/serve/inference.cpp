#include "serve/inference.hpp"

#include <set>

#include "serve/batcher.hpp"
#include "serve/run_timer.hpp"
#include "serve/serve_error.hpp"

namespace tessera::serve {
namespace {

ServeError deadline_error(const std::string& model, const char* when) {
  return ServeError(504, ErrorCode::kDeadlineExceeded,
                    "model '" + model + "': the request's deadline passed " + when);
}

// Counts a request against the model's max_queue_size while it lives.
class Admission {
 public:
  explicit Admission(const LoadedModel& model) : model_(model) {
    const int64_t now = ++model.in_flight;
    const int64_t limit = model.config.max_queue_size;
    if (limit > 0 && now > limit) {
      --model.in_flight;
      throw ServeError(503, ErrorCode::kResourceExhausted,
                       "model '" + model.name + "' is overloaded: " + std::to_string(limit) +
                           " requests are already queued or running (max_queue_size " +
                           std::to_string(limit) + "); retry later");
    }
  }
  ~Admission() { --model_.in_flight; }
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

 private:
  const LoadedModel& model_;
};

}  // namespace

const TensorSpec& input_spec(const LoadedModel& model, const std::string& name) {
  for (const auto& s : model.inputs)
    if (s.name == name) return s;
  std::string known;
  for (const auto& s : model.inputs) known += (known.empty() ? "" : ", ") + s.name;
  throw ServeError(
      400, "model '" + model.name + "' has no input '" + name + "' (inputs: " + known + ")");
}

Clock::time_point timeout_deadline(const LoadedModel& model, Clock::time_point arrival,
                                   int64_t microseconds) {
  if (microseconds < 0)
    throw ServeError(400, "model '" + model.name + "': the \"timeout\" parameter is " +
                              std::to_string(microseconds) + ", not microseconds >= 0");
  return arrival + std::chrono::microseconds(microseconds);
}

std::vector<InferOutput> run_inference(const LoadedModel& model, InferRequest request) {
  const std::string& m = model.name;
  std::set<std::string> given;
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const std::string& name = request.input_names[i];
    const TensorSpec& spec = input_spec(model, name);
    if (!given.insert(name).second)
      throw ServeError(400, "model '" + m + "', input '" + name + "' is given twice");
    if (model.config.max_batch_size > 0 && !spec.shape.empty()) {
      const int64_t batch = request.inputs[i].info().shape[0];
      if (batch > model.config.max_batch_size)
        throw ServeError(400, "model '" + m + "', input '" + name + "': batch " +
                                  std::to_string(batch) + " exceeds max_batch_size " +
                                  std::to_string(model.config.max_batch_size));
    }
  }
  for (const auto& s : model.inputs)
    if (!given.count(s.name))
      throw ServeError(400, "model '" + m + "': input '" + s.name + "' is missing");
  RequestTrace unused;
  RequestTrace& trace = request.trace ? *request.trace : unused;
  trace.batch_size = 1;
  if (model.config.max_batch_size > 0 && !request.inputs.empty()) {
    const auto shape = request.inputs[0].info().shape;
    if (!shape.empty()) trace.batch_size = shape[0];
  }

  std::vector<RequestedOutput> outputs = std::move(request.outputs);
  for (const auto& o : outputs) {
    bool known = false;
    for (const auto& s : model.outputs) known = known || s.name == o.name;
    if (!known) throw ServeError(400, "model '" + m + "' has no output '" + o.name + "'");
  }
  if (outputs.empty())
    for (const auto& s : model.outputs) outputs.push_back({s.name, request.all_binary});

  Clock::time_point deadline = request.deadline;
  if (model.config.request_timeout_us > 0)
    deadline = std::min(
        deadline, request.arrival + std::chrono::microseconds(model.config.request_timeout_us));
  Admission admission(model);
  const Clock::time_point admitted = Clock::now();
  if (admitted >= deadline) throw deadline_error(m, "before it could run");
  // Notes the session run that computed the request (on every way out).
  RunTiming timing;
  struct NoteRun {
    const RunTiming& timing;
    Clock::time_point admitted;
    RequestTrace& trace;
    ~NoteRun() {
      if (timing.start == Clock::time_point{}) return;  // no run began
      trace.run_rows = timing.rows;
      trace.queue = timing.start - admitted;
      trace.compute = timing.end - timing.start;
      trace.input = timing.input;
      trace.output = timing.output;
    }
  } note{timing, admitted, trace};

  std::vector<api::Value> results;
  try {
    if (model.batcher) {
      // The batcher takes every input and gives every output, in the model's order.
      std::vector<api::Value> ordered(model.inputs.size());
      for (size_t i = 0; i < request.input_names.size(); ++i)
        for (size_t k = 0; k < model.inputs.size(); ++k)
          if (model.inputs[k].name == request.input_names[i])
            ordered[k] = std::move(request.inputs[i]);
      std::optional<std::vector<api::Value>> all =
          model.batcher->run(std::move(ordered), deadline, &timing);
      if (!all) throw deadline_error(m, "while it waited for its batch");
      for (const auto& o : outputs)
        for (size_t k = 0; k < model.outputs.size(); ++k)
          if (model.outputs[k].name == o.name) results.push_back(std::move((*all)[k]));
    } else {
      std::vector<std::string> names;
      for (const auto& o : outputs) names.push_back(o.name);
      timing.rows = trace.batch_size;
      timing.start = Clock::now();
      // The run's end, also when it throws.
      struct End {
        RunTiming& timing;
        ~End() { timing.end = Clock::now(); }
      };
      if (deadline == Clock::time_point::max()) {
        End end{timing};
        results = model.session->run(request.input_names, request.inputs, names);
      } else {
        api::RunOptions options;
        const uint64_t timer = RunTimer::instance().arm(deadline, &options);
        try {
          End end{timing};
          results = model.session->run(request.input_names, request.inputs, names, &options);
        } catch (...) {
          RunTimer::instance().disarm(timer);
          throw;
        }
        RunTimer::instance().disarm(timer);
      }
    }
  } catch (const api::Error& e) {
    if (Clock::now() >= deadline) throw deadline_error(m, "while it ran (the run was stopped)");
    const int status =
        e.code() == ORT_INVALID_ARGUMENT || e.code() == ORT_INVALID_GRAPH ? 400 : 500;
    throw ServeError(status, "model '" + m + "': the run failed: " + e.what());
  }
  if (!model.batcher)
    model.stats.record_execution(trace.batch_size, {}, timing.end - timing.start, {});
  std::vector<InferOutput> out;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!results[i].is_tensor())
      throw ServeError(500, "model '" + m + "', output '" + outputs[i].name + "' is not a tensor");
    out.push_back({outputs[i].name, outputs[i].binary, std::move(results[i])});
  }
  return out;
}

}  // namespace tessera::serve
