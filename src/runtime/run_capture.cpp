#include "runtime/run_capture.hpp"

#include "core/error.hpp"
#include "core/logging.hpp"

namespace tessera::runtime {

namespace {

// Runs of one set of shapes that go the normal way before it is captured:
// the first run is where kernels search algorithms and arenas grow, work a
// recording must not contain.
constexpr int kWarmupRuns = 1;

}  // namespace

RunCapture::RunCapture(
    const GraphPlan& plan,
    const std::vector<std::pair<std::string, std::shared_ptr<Allocator>>>& allocators,
    int max_shapes)
    : plan_(plan), max_shapes_(size_t(max_shapes)) {
  std::vector<const ep::ExecutionProvider*> asking;
  for (const auto& p : plan.providers())
    if (const auto* c = dynamic_cast<const ep::RunCapturer*>(p.get()); c && c->capture_runs())
      asking.push_back(p.get());
  if (asking.empty()) return;
  if (asking.size() > 1) {
    info_.status = str_cat("not possible: both ", asking[0]->name(), " and ", asking[1]->name(),
                           " ask to capture runs");
  } else if (!asking[0]->data_transfer()) {
    info_.status = str_cat("not possible: ", asking[0]->name(),
                           " has no data transfer to fill a recording's inputs");
  } else if (std::string why = plan.capture_blocker(*asking[0]); !why.empty()) {
    info_.status = str_cat("not possible: ", why);
  } else {
    provider_ = asking[0];
    capturer_ = dynamic_cast<const ep::RunCapturer*>(provider_);
    allocator_ = provider_->allocator();
    for (const auto& [name, a] : allocators)
      if (name == provider_->name()) allocator_ = a;
    info_.status = str_cat("on (", provider_->name(), ")");
    return;
  }
  log(Severity::kWarning, "session", asking[0]->name(),
      ": runs will not be captured and replayed: ", info_.status.substr(14));
}

RunCaptureInfo RunCapture::info() const {
  std::lock_guard<std::mutex> lock(mu_);
  return info_;
}

std::optional<std::string> RunCapture::key_of(const std::vector<Value>& inputs) const {
  const MemoryInfo& device = provider_->memory_info();
  std::string key;
  for (const Value& v : inputs) {
    if (v.is_none()) {
      key += "-;";
      continue;
    }
    if (!v.is_tensor()) return std::nullopt;
    const Tensor& t = v.tensor();
    const MemoryInfo& m = t.memory_info();
    if (!m.host_accessible() && !m.same_space(device)) return std::nullopt;
    if (t.dtype() == DataType::kString) return std::nullopt;
    key += str_cat(data_type_name(t.dtype()), t.shape().to_string(), ";");
  }
  return key;
}

std::optional<std::vector<Value>> RunCapture::run(const std::vector<Value>& inputs,
                                                  RunStreams& streams, const RunState& state) {
  if (!active() || !streams.stream_of(provider_)) return std::nullopt;
  const std::optional<std::string> key = key_of(inputs);
  if (!key) return std::nullopt;
  Recording* r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = recordings_.find(*key);
    if (it == recordings_.end()) {
      if (recordings_.size() >= max_shapes_) {
        if (info_.uncaptured++ == 0)
          log(Severity::kWarning, "session", provider_->name(), ": ", max_shapes_,
              " sets of input shapes have a recording (session.max_captured_shapes); runs of "
              "others, such as ",
              *key, ", go uncaptured");
        return std::nullopt;
      }
      it = recordings_.emplace(*key, std::make_unique<Recording>()).first;
    }
    r = it->second.get();
  }
  std::unique_lock<std::mutex> lock(r->mu);
  if (r->failed) return std::nullopt;
  if (!r->graph && r->warmups < kWarmupRuns) {
    // Counted only when it succeeds: a run that fails (bad values, a
    // terminate) has not warmed anything up.
    lock.unlock();
    std::vector<Value> out = plan_.execute(inputs, nullptr, state);
    lock.lock();
    ++r->warmups;
    std::lock_guard<std::mutex> stats_lock(mu_);
    ++info_.warmups;
    return out;
  }
  if (!r->graph && !capture(*r, inputs, streams, state, *key)) return std::nullopt;
  return replay(*r, inputs, streams, state);
}

bool RunCapture::capture(Recording& r, const std::vector<Value>& inputs, RunStreams& streams,
                         const RunState& state, const std::string& key) {
  ep::Stream& stream = *streams.stream_of(provider_);
  const ep::DataTransfer* transfer = provider_->data_transfer();
  // The recording reads its inputs from buffers of its own, filled before
  // each replay, so callers may feed any tensors of these shapes.
  std::vector<Value> buffers(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].is_tensor()) continue;
    const Tensor& in = inputs[i].tensor();
    Tensor b(in.dtype(), in.shape(), allocator_);
    transfer->copy_tensors({&in}, {&b}, nullptr);
    buffers[i] = Value(std::move(b));
  }
  RunState st = state;
  st.host_outputs = false;  // no copy may be recorded: outputs are copied out of the recording
  st.preset_outputs = nullptr;
  st.streams = &streams;
  st.observe_device_time = false;  // a stream being recorded cannot be waited for
  std::vector<Value> outputs;
  bool recording = false;
  try {
    capturer_->begin_capture(stream);
    recording = true;
    outputs = plan_.execute(buffers, nullptr, st);
    recording = false;
    r.graph = capturer_->end_capture(stream);
  } catch (const std::exception& e) {
    // Whatever broke the run, the stream must leave capture mode before
    // anything waits for it.
    if (recording) {
      try {
        capturer_->end_capture(stream);
      } catch (const std::exception&) {
        // The capture was already broken; ending it is all that was needed.
      }
    }
    if (const auto* err = dynamic_cast<const Error*>(&e);
        err && err->code() == ErrorCode::kTerminated)
      throw;
    r.failed = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++info_.failures;
    }
    log(Severity::kWarning, "session", provider_->name(), ": capturing a run of input shapes ", key,
        " failed; such runs go uncaptured: ", e.what());
    return false;
  }
  r.inputs = std::move(buffers);
  r.outputs = std::move(outputs);
  // Every block the recorded run used, freed or not, is the recording's now.
  r.memory = streams.detach_allocator(provider_);
  std::lock_guard<std::mutex> lock(mu_);
  ++info_.captures;
  return true;
}

std::vector<Value> RunCapture::replay(Recording& r, const std::vector<Value>& inputs,
                                      RunStreams& streams, const RunState& state) {
  ep::Stream& stream = *streams.stream_of(provider_);
  const ep::DataTransfer* transfer = provider_->data_transfer();
  const MemoryInfo& device = provider_->memory_info();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].is_tensor()) continue;
    transfer->copy_tensors({&inputs[i].tensor()}, {&r.inputs[i].tensor()}, &stream);
    streams.hold(&stream, inputs[i]);
  }
  r.graph->replay(stream);
  {
    // Counted once launched: a replay whose run then fails (a kernel's
    // check of its inputs, read at the wait below) was still a replay.
    std::lock_guard<std::mutex> lock(mu_);
    ++info_.replays;
  }
  std::vector<Value> out(r.outputs.size());
  for (size_t j = 0; j < r.outputs.size(); ++j) {
    const Value& v = r.outputs[j];
    if (!v.is_tensor() || !v.tensor().memory_info().same_space(device)) {
      // Made on the host without the device (shape arithmetic): the same for
      // every run of these shapes. Each run gets its own copy.
      out[j] = v.is_tensor() ? Value(v.tensor().clone()) : v;
      continue;
    }
    const Tensor& src = v.tensor();
    const Value* preset = state.preset_outputs && j < state.preset_outputs->size()
                              ? &(*state.preset_outputs)[j]
                              : nullptr;
    Tensor dst;
    if (preset && preset->is_tensor() && preset->tensor().shape() == src.shape() &&
        preset->tensor().dtype() == src.dtype())
      dst = preset->tensor();
    else if (state.host_outputs)
      dst = Tensor(src.dtype(), src.shape());
    else
      dst = Tensor(src.dtype(), src.shape(), streams.allocator(allocator_));
    transfer->copy_tensors({&src}, {&dst}, &stream);
    out[j] = Value(std::move(dst));
  }
  // Before the next replay may fill the input buffers again.
  streams.finish();
  return out;
}

}  // namespace tessera::runtime
