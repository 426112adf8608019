#include "serve/batcher.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "serve/datatype.hpp"
#include "serve/serve_error.hpp"
#include "serve/tensor_bytes.hpp"

namespace tessera::serve {
namespace {

bool same_rows(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  return a.size() == b.size() && !a.empty() && std::equal(a.begin() + 1, a.end(), b.begin() + 1);
}

size_t row_elements(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (size_t i = 1; i < shape.size(); ++i) n *= static_cast<size_t>(shape[i]);
  return n;
}

void* data_of(const api::Value& v) {
  void* p = nullptr;
  api::check(api::c_api().GetTensorMutableData(v.get(), &p));
  return p;
}

// The tensors of `parts` joined along dimension 0.
api::Value join(const std::vector<const api::Value*>& parts, ONNXTensorElementDataType type) {
  std::vector<int64_t> shape = parts[0]->info().shape;
  int64_t rows = 0;
  for (const auto* p : parts) rows += p->info().shape[0];
  shape[0] = rows;
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    std::vector<std::string> all;
    for (const auto* p : parts)
      for (auto& s : p->strings()) all.push_back(std::move(s));
    return make_string_tensor(all, shape);
  }
  api::Value out = api::Value::tensor(type, shape);
  auto* dst = static_cast<char*>(data_of(out));
  const size_t row_bytes = row_elements(shape) * element_size(type);
  for (const auto* p : parts) {
    const size_t n = static_cast<size_t>(p->info().shape[0]) * row_bytes;
    if (n > 0) std::memcpy(dst, data_of(*p), n);
    dst += n;
  }
  return out;
}

// Rows [begin, begin + count) of `v`.
api::Value rows(const api::Value& v, int64_t begin, int64_t count) {
  const api::TensorInfo info = v.info();
  std::vector<int64_t> shape = info.shape;
  shape[0] = count;
  const size_t per_row = row_elements(info.shape);
  if (info.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    const auto all = v.strings();
    std::vector<std::string> part(all.begin() + begin * per_row,
                                  all.begin() + (begin + count) * per_row);
    return make_string_tensor(part, shape);
  }
  api::Value out = api::Value::tensor(info.type, shape);
  const size_t row_bytes = per_row * element_size(info.type);
  if (count > 0)
    std::memcpy(data_of(out), static_cast<const char*>(data_of(v)) + begin * row_bytes,
                count * row_bytes);
  return out;
}

}  // namespace

Batcher::Batcher(api::Session& session, const std::vector<TensorSpec>& inputs,
                 const std::vector<TensorSpec>& outputs, int64_t max_batch_size,
                 std::chrono::microseconds max_delay, ModelStats& stats,
                 std::vector<int64_t> preferred_batch_sizes, int64_t instances)
    : session_(session),
      stats_(stats),
      max_batch_(max_batch_size),
      max_delay_(max_delay),
      preferred_(std::move(preferred_batch_sizes)),
      ready_rows_(preferred_.empty() ? max_batch_size : preferred_.back()) {
  for (const auto& s : inputs) {
    input_names_.push_back(s.name);
    input_types_.push_back(s.type);
  }
  for (const auto& s : outputs) output_names_.push_back(s.name);
  for (int64_t i = 0; i < std::max<int64_t>(1, instances); ++i)
    workers_.emplace_back([this] { loop(); });
}

int64_t Batcher::batch_limit(int64_t available) const {
  int64_t limit = available;
  for (int64_t p : preferred_)
    if (p <= available) limit = p;
  return limit;
}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

std::vector<api::Value> Batcher::run_session(const std::vector<api::Value>& inputs, int64_t rows,
                                             RunTiming& timing) {
  ++executions_;
  size_t bucket = 0;
  while (bucket < kRowBounds.size() && rows > kRowBounds[bucket]) ++bucket;
  ++rows_counts_[bucket];
  rows_total_ += static_cast<uint64_t>(rows);
  timing.rows = rows;
  timing.start = std::chrono::steady_clock::now();
  try {
    auto out = session_.run(input_names_, inputs, output_names_);
    timing.end = std::chrono::steady_clock::now();
    return out;
  } catch (...) {
    timing.end = std::chrono::steady_clock::now();
    throw;
  }
}

std::vector<uint64_t> Batcher::rows_histogram() const {
  std::vector<uint64_t> out;
  for (const auto& c : rows_counts_) out.push_back(c.load());
  return out;
}

std::optional<std::vector<api::Value>> Batcher::run(std::vector<api::Value> inputs,
                                                    std::chrono::steady_clock::time_point deadline,
                                                    RunTiming* timing) {
  // Shared with the queue: a request that stops waiting leaves it there for
  // the worker to drop.
  auto p = std::make_shared<Pending>();
  for (const auto& v : inputs) p->shapes.push_back(v.info().shape);
  p->batch = p->shapes.empty() || p->shapes[0].empty() ? 1 : p->shapes[0][0];
  p->inputs = std::move(inputs);
  p->arrival = std::chrono::steady_clock::now();
  p->deadline = deadline;
  auto result = p->done.get_future();
  // The worker acts on a request only when it opens a batch or fills one:
  // waking it for every arrival in between costs two context switches a
  // request for nothing.
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(p);
    wake = queue_.size() == 1 ||
           (queued_rows_ < ready_rows_ && queued_rows_ + p->batch >= ready_rows_);
    queued_rows_ += p->batch;
  }
  if (wake) wake_.notify_one();
  if (deadline != std::chrono::steady_clock::time_point::max() &&
      result.wait_until(deadline) != std::future_status::ready) {
    p->abandoned = true;
    wake_.notify_all();
    return std::nullopt;
  }
  result.wait();
  // The worker wrote the timing before it set the result.
  if (timing) *timing = p->timing;
  return result.get();
}

void Batcher::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    drop_abandoned();
    if (queue_.empty()) {
      if (stopping_) return;
      continue;
    }
    const auto deadline = queue_.front()->arrival + max_delay_;
    while (!stopping_ && queued_rows_ < ready_rows_ && std::chrono::steady_clock::now() < deadline)
      wake_.wait_until(lock, deadline);
    drop_abandoned();
    if (queue_.empty()) continue;
    // The request whose delay was waited for may have left (abandoned or past
    // its deadline): the new first one waits for its own delay too.
    if (!stopping_ && queued_rows_ < ready_rows_ &&
        std::chrono::steady_clock::now() < queue_.front()->arrival + max_delay_)
      continue;
    // The first request, and those after it that fit beside it, up to the
    // batch size those would reach (the largest preferred one within it).
    const PendingPtr first = queue_.front();
    auto fits_beside_first = [&](const PendingPtr& p) {
      for (size_t i = 0; i < p->shapes.size(); ++i)
        if (!same_rows(p->shapes[i], first->shapes[i])) return false;
      return true;
    };
    int64_t available = 0;
    for (const PendingPtr& p : queue_)
      if (p == first || (available + p->batch <= max_batch_ && fits_beside_first(p)))
        available += p->batch;
    const int64_t limit = batch_limit(available);
    std::vector<PendingPtr> group;
    int64_t total = 0;
    for (auto it = queue_.begin(); it != queue_.end();) {
      const PendingPtr& p = *it;
      bool fits = group.empty() || total + p->batch <= limit;
      if (fits && !group.empty()) fits = fits_beside_first(p);
      if (fits) {
        group.push_back(p);
        total += p->batch;
        queued_rows_ -= p->batch;
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    // Another worker (instance_group) may take what is left while this one runs.
    if (!queue_.empty()) wake_.notify_one();
    lock.unlock();
    execute(group);
    lock.lock();
  }
}

void Batcher::drop_abandoned() {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = queue_.begin(); it != queue_.end();) {
    if ((*it)->abandoned || (*it)->deadline <= now) {
      queued_rows_ -= (*it)->batch;
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
}

void Batcher::execute(std::vector<PendingPtr>& group) {
  auto alone = [this](const PendingPtr& p) {
    try {
      auto out = run_session(p->inputs, p->batch, p->timing);
      stats_.record_execution(p->batch, {}, p->timing.end - p->timing.start, {});
      p->done.set_value(std::move(out));
    } catch (...) {
      p->done.set_exception(std::current_exception());
    }
  };
  if (group.size() == 1) {
    alone(group[0]);
    return;
  }
  std::vector<std::vector<api::Value>> results(group.size());
  try {
    const auto join_start = std::chrono::steady_clock::now();
    std::vector<api::Value> joined;
    for (size_t i = 0; i < input_names_.size(); ++i) {
      std::vector<const api::Value*> parts;
      for (const auto& p : group) parts.push_back(&p->inputs[i]);
      joined.push_back(join(parts, input_types_[i]));
    }
    int64_t total = 0;
    for (const auto& p : group) total += p->batch;
    RunTiming timing;
    timing.input = std::chrono::steady_clock::now() - join_start;
    std::vector<api::Value> outputs = run_session(joined, total, timing);
    for (size_t o = 0; o < outputs.size(); ++o) {
      const auto shape = outputs[o].info().shape;
      if (shape.empty() || shape[0] != total)
        throw ServeError(500, "output '" + output_names_[o] + "' of a batch of " +
                                  std::to_string(total) +
                                  " rows does not have them as its first dimension");
    }
    int64_t begin = 0;
    for (size_t g = 0; g < group.size(); ++g) {
      for (const auto& out : outputs) results[g].push_back(rows(out, begin, group[g]->batch));
      begin += group[g]->batch;
    }
    timing.output = std::chrono::steady_clock::now() - timing.end;
    stats_.record_execution(total, timing.input, timing.end - timing.start, timing.output);
    for (const auto& p : group) p->timing = timing;
  } catch (...) {
    // One request may be what the model rejects: each runs alone instead.
    for (const auto& p : group) alone(p);
    return;
  }
  for (size_t g = 0; g < group.size(); ++g) group[g]->done.set_value(std::move(results[g]));
}

}  // namespace tessera::serve
