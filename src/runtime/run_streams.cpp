#include "runtime/run_streams.hpp"

#include "core/error.hpp"
#include "core/logging.hpp"
#include "ep/provider_abilities.hpp"

namespace tessera::runtime {

RunScopedAllocator::RunScopedAllocator(std::shared_ptr<Allocator> base, ep::Stream* stream)
    : base_(std::move(base)), stream_(stream) {}

RunScopedAllocator::~RunScopedAllocator() {
  // Every tensor made here holds this allocator, so none is live now; free
  // blocks left (a run that never closed) go back as they are.
  std::lock_guard<std::mutex> lock(mu_);
  give_back_free_list();
}

void* RunScopedAllocator::alloc(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) {
      // The smallest free block that fits without wasting more than a
      // quarter of itself: activations of one model repeat a few sizes.
      auto it = free_.lower_bound(bytes);
      if (it != free_.end() && it->first - bytes <= it->first / 4) {
        void* p = it->second;
        free_.erase(it);
        return p;
      }
    }
  }
  void* p = nullptr;
  try {
    p = base_->alloc(bytes);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kOutOfMemory || !stream_) throw;
    // The run's free blocks may be what the base lacks: once the stream has
    // passed them they can go back, and the allocation is tried again.
    stream_->synchronize();
    {
      std::lock_guard<std::mutex> lock(mu_);
      give_back_free_list();
    }
    p = base_->alloc(bytes);
  }
  std::lock_guard<std::mutex> lock(mu_);
  sizes_[p] = bytes;
  return p;
}

void RunScopedAllocator::free(void* p) {
  if (!p) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sizes_.find(p);
    if (it == sizes_.end())
      fail(ErrorCode::kRuntimeException, info().to_string(),
           ": run allocator: freeing a block it did not hand out");
    if (!closed_) {
      free_.emplace(it->second, p);
      return;
    }
    sizes_.erase(it);
  }
  base_->free(p);
}

void RunScopedAllocator::close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  give_back_free_list();
}

size_t RunScopedAllocator::free_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_.size();
}

void RunScopedAllocator::give_back_free_list() {
  for (const auto& [size, p] : free_) {
    sizes_.erase(p);
    base_->free(p);
  }
  free_.clear();
}

RunStreams::RunStreams(
    const std::vector<std::shared_ptr<ep::ExecutionProvider>>& providers,
    const std::vector<std::pair<std::string, std::shared_ptr<Allocator>>>& allocators,
    const std::map<std::string, std::string>* run_config) {
  for (const auto& p : providers) {
    const auto* async = dynamic_cast<const ep::RunStreamProvider*>(p.get());
    std::unique_ptr<ep::Stream> s = async ? async->run_stream(run_config) : nullptr;
    if (!s) continue;
    Entry e{p.get(), std::move(s), p->allocator(), nullptr, {}};
    for (const auto& [name, a] : allocators)
      if (name == p->name()) e.base = a;
    e.scoped = std::make_shared<RunScopedAllocator>(e.base, e.stream.get());
    entries_.push_back(std::move(e));
  }
}

RunStreams::~RunStreams() {
  if (!finished_) finish_impl(false);
}

ep::Stream* RunStreams::stream_of(const ep::ExecutionProvider* provider) const {
  for (const auto& e : entries_)
    if (e.provider == provider) return e.stream.get();
  return nullptr;
}

ep::Stream* RunStreams::stream_for_memory(const MemoryInfo& memory) const {
  for (const auto& e : entries_)
    if (e.provider->memory_info().same_space(memory)) return e.stream.get();
  return nullptr;
}

std::shared_ptr<Allocator> RunStreams::allocator(const std::shared_ptr<Allocator>& base) const {
  for (const auto& e : entries_)
    if (e.base == base) return e.scoped;
  return base;
}

void RunStreams::hold(ep::Stream* stream, Value v) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& e : entries_)
    if (e.stream.get() == stream) e.held.push_back(std::move(v));
}

void RunStreams::synchronize(ep::Stream* stream) {
  stream->synchronize();
  std::vector<Value> done;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& e : entries_)
    if (e.stream.get() == stream) done.swap(e.held);
}

std::shared_ptr<RunScopedAllocator> RunStreams::detach_allocator(
    const ep::ExecutionProvider* provider) {
  for (auto& e : entries_)
    if (e.provider == provider) {
      auto taken = std::move(e.scoped);
      taken->forget_stream();  // the stream is this run's; the blocks outlive it
      e.scoped = std::make_shared<RunScopedAllocator>(e.base, e.stream.get());
      return taken;
    }
  return nullptr;
}

void RunStreams::finish() {
  if (!finished_) finish_impl(true);
}

void RunStreams::finish_impl(bool rethrow) {
  finished_ = true;
  std::exception_ptr first;
  for (auto& e : entries_) {
    try {
      e.stream->synchronize();
    } catch (const std::exception& x) {
      if (!first) first = std::current_exception();
      if (!rethrow)
        log(Severity::kWarning, "run", e.provider->name(),
            ": the stream of a failed run: ", x.what());
    }
  }
  // Every stream has passed its work (or failed, which ends it): the run's
  // memory may now go to others.
  for (auto& e : entries_) e.scoped->close();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& e : entries_) e.held.clear();
  }
  if (first && rethrow) std::rethrow_exception(first);
}

}  // namespace tessera::runtime
