// The streams of one run. A provider whose kernels queue their work on a
// device stream and return before it is done (ep::RunStreamProvider) gets
// one stream per run; the executor hands it to the
// provider's kernels, queues copies into and out of its memory on it, and
// synchronizes it before the run returns.
//
// Memory is what makes this safe. The executor frees a value when its last
// reader's compute() returns, which for such a provider is when the read is
// queued, not done. A freed block may be handed again to later work of the
// same stream (the stream runs it after the read), but not to another run's
// stream, which could write it first. So each run allocates that provider's
// memory through a RunScopedAllocator: blocks freed during the run go to the
// run's own free list, reused by the run, and reach the shared arena only
// after the run's stream has been synchronized.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/allocator.hpp"
#include "core/value.hpp"
#include "ep/execution_provider.hpp"

namespace tessera::runtime {

class RunScopedAllocator : public Allocator {
 public:
  // `stream` is synchronized (and the run's free blocks given back to `base`)
  // when `base` runs out of memory, before the allocation is tried again.
  RunScopedAllocator(std::shared_ptr<Allocator> base, ep::Stream* stream);
  ~RunScopedAllocator() override;
  void* alloc(size_t bytes) override;
  // During the run: to the run's free list. After close(): to the base.
  void free(void* p) override;
  const MemoryInfo& info() const override { return base_->info(); }
  AllocatorStats stats() const override { return base_->stats(); }
  // The run's stream has passed every use of the free blocks: they go back to
  // the base, and so does every block freed from now on.
  void close();
  // No stream to wait for when the base runs out (the run it was made for
  // has ended; its blocks live on).
  void forget_stream() {
    std::lock_guard<std::mutex> lock(mu_);
    stream_ = nullptr;
  }
  // Blocks on the run's free list (for tests).
  size_t free_blocks() const;

 private:
  void give_back_free_list();  // holds mu_

  std::shared_ptr<Allocator> base_;
  ep::Stream* stream_;
  mutable std::mutex mu_;
  bool closed_ = false;
  std::unordered_map<void*, size_t> sizes_;  // live and free blocks of this run, by address
  std::multimap<size_t, void*> free_;        // free blocks by size
};

class RunStreams {
 public:
  // Asks each provider for a stream for this run; `allocators` are the ones
  // the session gives each provider's kernels (by provider name).
  RunStreams(const std::vector<std::shared_ptr<ep::ExecutionProvider>>& providers,
             const std::vector<std::pair<std::string, std::shared_ptr<Allocator>>>& allocators,
             const std::map<std::string, std::string>* run_config);
  // Waits for the streams if finish() was not called (a failed run), logging
  // rather than throwing their errors.
  ~RunStreams();
  RunStreams(const RunStreams&) = delete;
  RunStreams& operator=(const RunStreams&) = delete;

  // Whether any provider gave a stream (none: the run is all synchronous).
  bool empty() const { return entries_.empty(); }
  // The stream of `provider` for this run, or null.
  ep::Stream* stream_of(const ep::ExecutionProvider* provider) const;
  // The stream of the provider whose memory `memory` is, or null.
  ep::Stream* stream_for_memory(const MemoryInfo& memory) const;
  // What kernels and copies of this run allocate with in place of `base`:
  // the run-scoped allocator over it when it serves a streamed provider's
  // memory, else `base` itself.
  std::shared_ptr<Allocator> allocator(const std::shared_ptr<Allocator>& base) const;
  // Keeps `v` alive until `stream` (one of this run's) is next synchronized
  // through synchronize() or finish(): the host source of a copy queued on it.
  void hold(ep::Stream* stream, Value v);
  // Waits for `stream` (one of this run's), then drops what was held for it.
  void synchronize(ep::Stream* stream);
  // Takes `provider`'s run-scoped allocator, with every block it holds, out
  // of the run (a captured run keeps them); the run goes on with a new one.
  std::shared_ptr<RunScopedAllocator> detach_allocator(const ep::ExecutionProvider* provider);
  // Synchronizes every stream, then gives the runs' free memory back to the
  // arenas and drops the held values. Throws the first stream's error. Once
  // only: later calls do nothing.
  void finish();

 private:
  struct Entry {
    const ep::ExecutionProvider* provider;
    std::unique_ptr<ep::Stream> stream;
    std::shared_ptr<Allocator> base;
    std::shared_ptr<RunScopedAllocator> scoped;
    std::vector<Value> held;  // guarded by mu_
  };
  void finish_impl(bool rethrow);

  std::vector<Entry> entries_;
  std::mutex mu_;
  bool finished_ = false;
};

}  // namespace tessera::runtime
