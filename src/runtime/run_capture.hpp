// Whole runs captured once and replayed (CUDA graphs, for a provider whose
// ep::RunCapturer::capture_runs() says the user asked for them). Per set of input shapes: the
// first run goes the normal way (kernels pick algorithms, arenas grow), the
// second is recorded on the provider's stream and then replayed, and every
// later one only copies its inputs into the recording's input buffers,
// replays it and copies the outputs out: no kernel's compute() runs, no
// allocation beyond the outputs, one launch.
//
// A recording reads and writes fixed memory, which it keeps for as long as
// the session lives: its input buffers, every intermediate value and
// workspace of the recorded run, and its outputs. Replays of one recording
// take turns (concurrent runs of the same shapes wait for each other);
// runs of other shapes do not wait.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ep/provider_abilities.hpp"
#include "runtime/graph_plan.hpp"
#include "runtime/run_streams.hpp"
#include "runtime/session_options.hpp"

namespace tessera::runtime {

class RunCapture {
 public:
  // Finds the provider that asks for captured runs and checks that the plan
  // allows it; status() says what came of it.
  // At most `max_shapes` sets of input shapes get a recording (each holds a
  // whole run's memory); runs of further shapes go uncaptured.
  RunCapture(const GraphPlan& plan,
             const std::vector<std::pair<std::string, std::shared_ptr<Allocator>>>& allocators,
             int max_shapes);
  // Whether runs go through here.
  bool active() const { return provider_ != nullptr; }
  // The status ("off", "on (<provider>)", "not possible: ...") and counts.
  RunCaptureInfo info() const;
  // Runs the plan with `inputs` (the plan's inputs by position): a warm-up,
  // a capture and its first replay, or a replay. Null when this run cannot
  // use a recording (an input that is not a tensor, or in another device's
  // memory, shapes whose capture failed, or new shapes past max_shapes): the
  // caller runs it normally.
  // Returns all the plan's outputs, as GraphPlan::execute does.
  std::optional<std::vector<Value>> run(const std::vector<Value>& inputs, RunStreams& streams,
                                        const RunState& state);

 private:
  struct Recording {
    std::mutex mu;
    int warmups = 0;
    bool failed = false;
    std::vector<Value> inputs;   // the buffers the recording reads its inputs from
    std::vector<Value> outputs;  // what the recorded run returned (raw, not copied to the host)
    std::shared_ptr<RunScopedAllocator> memory;  // every block the recorded run used
    std::unique_ptr<ep::CapturedRun> graph;
  };
  std::optional<std::string> key_of(const std::vector<Value>& inputs) const;
  // Records a run; false when the capture failed (the recording is marked so).
  bool capture(Recording& r, const std::vector<Value>& inputs, RunStreams& streams,
               const RunState& state, const std::string& key);
  std::vector<Value> replay(Recording& r, const std::vector<Value>& inputs, RunStreams& streams,
                            const RunState& state);

  const GraphPlan& plan_;
  const ep::ExecutionProvider* provider_ = nullptr;
  const ep::RunCapturer* capturer_ = nullptr;  // provider_, as what records runs
  std::shared_ptr<Allocator> allocator_;       // the session's allocator of the provider's memory
  size_t max_shapes_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Recording>> recordings_;
  RunCaptureInfo info_{"off"};  // guarded by mu_
};

}  // namespace tessera::runtime
