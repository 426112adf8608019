#include "capi/allocators.hpp"

#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {
namespace {

void* ORT_API_CALL alloc_fn(OrtAllocator* self, size_t size) {
  try {
    return static_cast<CApiAllocator*>(self)->impl->alloc(size);
  } catch (...) {
    return nullptr;  // the C contract: null when memory cannot be had
  }
}

void ORT_API_CALL free_fn(OrtAllocator* self, void* p) {
  if (p != nullptr) static_cast<CApiAllocator*>(self)->impl->free(p);
}

const OrtMemoryInfo* ORT_API_CALL info_fn(const OrtAllocator* self) {
  return &static_cast<const CApiAllocator*>(self)->memory;
}

OrtStatus* ORT_API_CALL stats_fn(const OrtAllocator* self, OrtKeyValuePairs** out) {
  return guard("OrtAllocator::GetStats", [&] {
    need(out, "out");
    const AllocatorStats s = static_cast<const CApiAllocator*>(self)->impl->stats();
    auto kv = std::make_unique<OrtKeyValuePairs>();
    kv->set("InUse", std::to_string(s.in_use));
    kv->set("MaxInUse", std::to_string(s.peak));
    kv->set("TotalAllocated", std::to_string(s.reserved));
    kv->set("NumAllocs", std::to_string(s.num_allocs));
    *out = kv.release();
  });
}

void* ORT_API_CALL alloc_on_stream_fn(OrtAllocator* self, size_t size, OrtSyncStream*) {
  return alloc_fn(self, size);
}

OrtStatus* ORT_API_CALL shrink_fn(OrtAllocator* self) {
  return guard("OrtAllocator::Shrink",
               [&] { static_cast<CApiAllocator*>(self)->impl->release_cached(); });
}

// A Tessera allocator that takes memory from the application's OrtAllocator.
class ForeignAllocator : public Allocator {
 public:
  explicit ForeignAllocator(OrtAllocator* a) : a_(a) {
    check(a->Alloc != nullptr && a->Free != nullptr && a->Info != nullptr,
          "the allocator lacks its Alloc, Free or Info function");
    const OrtMemoryInfo* m = a->Info(a);
    check(m != nullptr, "the allocator's Info function returned null");
    info_ = m->info;
  }
  void* alloc(size_t bytes) override {
    void* p = a_->Alloc(a_, bytes);
    check_code(p != nullptr, ErrorCode::kOutOfMemory,
               "the application's allocator returned null for ", bytes, " bytes");
    return p;
  }
  void free(void* p) override { a_->Free(a_, p); }
  const MemoryInfo& info() const override { return info_; }

 private:
  OrtAllocator* a_;
  MemoryInfo info_;
};

}  // namespace

CApiAllocator::CApiAllocator(std::shared_ptr<Allocator> a) : OrtAllocator{}, impl(std::move(a)) {
  version = ORT_API_VERSION;
  Alloc = alloc_fn;
  Free = free_fn;
  Info = info_fn;
  Reserve = alloc_fn;
  GetStats = stats_fn;
  AllocOnStream = alloc_on_stream_fn;
  Shrink = shrink_fn;
  memory = to_ort_memory(impl->info());
}

CApiAllocator* default_allocator() {
  static CApiAllocator* a =
      new CApiAllocator(default_cpu_allocator());  // lives as long as the process
  return a;
}

bool is_default_allocator(const OrtAllocator* a) { return a == default_allocator(); }

const CApiAllocator* as_ours(const OrtAllocator* a) {
  return a != nullptr && a->Alloc == alloc_fn ? static_cast<const CApiAllocator*>(a) : nullptr;
}

std::shared_ptr<Allocator> tessera_allocator(OrtAllocator* a) {
  need(a, "allocator");
  if (const CApiAllocator* ours = as_ours(a)) return ours->impl;
  return std::make_shared<ForeignAllocator>(a);
}

}  // namespace tessera::capi
