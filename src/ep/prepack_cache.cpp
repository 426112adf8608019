#include "ep/prepack_cache.hpp"

#include <cstring>

namespace tessera::ep {

namespace {

// A 128-bit digest of n bytes: four multiply-xorshift lanes over 8-byte
// words (about 15 GB/s, so hashing a model's weights costs little next to
// packing them), folded into two words. Not cryptographic: it tells apart
// the weights a process loads, not weights crafted to collide.
void digest(const void* data, size_t n, uint64_t out[2]) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t lane[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                      0x082efa98ec4e6c89ull};
  const auto* p = static_cast<const unsigned char*>(data);
  auto mix = [&](uint64_t& h, uint64_t w) {
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  };
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * size_t(l), 8);
      mix(lane[l], w);
    }
  uint64_t tail = 0;
  for (size_t k = 0; i + k < n; ++k) tail |= uint64_t(p[i + k]) << (8 * (k % 8));
  mix(lane[0], tail);
  mix(lane[1], uint64_t(n));
  uint64_t a = lane[0], b = lane[1];
  mix(a, lane[2]);
  mix(a, lane[3]);
  mix(b, lane[3]);
  mix(b, lane[2]);
  mix(b, a);
  out[0] = a;
  out[1] = b;
}

uint64_t hash_of(const uint64_t d[2], const std::string& kind) {
  const uint64_t h = d[0] ^ (d[1] << 1);
  return h ^ (std::hash<std::string>()(kind) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

}  // namespace

std::shared_ptr<const void> PrepackCache::find(uint64_t hash, const Key& key) const {
  auto [lo, hi] = entries_.equal_range(hash);
  for (auto it = lo; it != hi; ++it) {
    if (!(it->second.key == key)) continue;
    if (auto v = it->second.value.lock()) return v;
  }
  return nullptr;
}

void PrepackCache::prune() {
  std::erase_if(entries_, [](const auto& kv) { return kv.second.value.expired(); });
}

std::shared_ptr<const void> PrepackCache::get_erased(
    const Tensor& constant, const std::string& kind, const std::vector<int64_t>& params,
    std::type_index type, const std::function<std::shared_ptr<const void>()>& make) {
  // Only host bytes can be digested; strings hold pointers, not their bytes.
  if (!constant.has_data() || !constant.memory_info().host_accessible() ||
      constant.dtype() == DataType::kString)
    return make();
  Key key{{0, 0}, constant.dtype(), constant.shape().dims(), kind, params, type};
  digest(constant.raw_data(), constant.byte_size(), key.digest);
  const uint64_t h = hash_of(key.digest, kind);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto v = find(h, key)) return v;
  }
  // Packed outside the lock, so sessions created at once do not wait on each
  // other's packing; the first one to finish is kept and shared.
  std::shared_ptr<const void> made = make();
  std::lock_guard<std::mutex> lock(mu_);
  if (auto v = find(h, key)) return v;
  prune();
  entries_.emplace(h, Entry{std::move(key), made});
  return made;
}

size_t PrepackCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& kv : entries_) n += !kv.second.value.expired();
  return n;
}

}  // namespace tessera::ep
