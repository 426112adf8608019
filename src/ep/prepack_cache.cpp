#include "ep/prepack_cache.hpp"

namespace tessera::ep {

namespace {

uint64_t hash_of(const void* data, const std::string& kind) {
  const uint64_t h = std::hash<const void*>()(data);
  return h ^ (std::hash<std::string>()(kind) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

}  // namespace

std::shared_ptr<const void> PrepackCache::find(uint64_t hash, const Key& key,
                                               const std::shared_ptr<Buffer>& source) const {
  auto [lo, hi] = entries_.equal_range(hash);
  for (auto it = lo; it != hi; ++it) {
    if (!(it->second.key == key) || it->second.source.lock() != source) continue;
    if (auto v = it->second.value.lock()) return v;
  }
  return nullptr;
}

void PrepackCache::prune() {
  std::erase_if(entries_, [](const auto& kv) {
    return kv.second.value.expired() || kv.second.source.expired();
  });
}

std::shared_ptr<const void> PrepackCache::get_erased(
    const Tensor& constant, const std::string& kind, const std::vector<int64_t>& params,
    std::type_index type, const std::function<std::shared_ptr<const void>()>& make) {
  const std::shared_ptr<Buffer>& source = constant.buffer();
  if (!source) return make();  // no memory to name it by: not shared
  Key key{constant.raw_data(), constant.dtype(), constant.shape().dims(), kind, params, type};
  const uint64_t h = hash_of(key.data, kind);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto v = find(h, key, source)) return v;
  }
  // Packed outside the lock, so sessions created at once do not wait on each
  // other's packing; the first one to finish is kept and shared.
  std::shared_ptr<const void> made = make();
  std::lock_guard<std::mutex> lock(mu_);
  if (auto v = find(h, key, source)) return v;
  prune();
  entries_.emplace(h, Entry{std::move(key), source, made});
  return made;
}

size_t PrepackCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& kv : entries_) n += !kv.second.value.expired() && !kv.second.source.expired();
  return n;
}

}  // namespace tessera::ep
