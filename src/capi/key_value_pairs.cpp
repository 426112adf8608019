// Key/value lists: device metadata, provider options, statistics.
#include <algorithm>

#include "capi/api_status.hpp"
#include "capi/handles.hpp"

void OrtKeyValuePairs::refresh() {
  key_ptrs.clear();
  value_ptrs.clear();
  for (size_t i = 0; i < keys.size(); ++i) {
    key_ptrs.push_back(keys[i].c_str());
    value_ptrs.push_back(values[i].c_str());
  }
}

void OrtKeyValuePairs::set(const std::string& key, const std::string& value) {
  auto it = std::find(keys.begin(), keys.end(), key);
  if (it != keys.end()) {
    values[static_cast<size_t>(it - keys.begin())] = value;
  } else {
    keys.push_back(key);
    values.push_back(value);
  }
  refresh();
}

void OrtKeyValuePairs::remove(const std::string& key) {
  auto it = std::find(keys.begin(), keys.end(), key);
  if (it == keys.end()) return;
  values.erase(values.begin() + (it - keys.begin()));
  keys.erase(it);
  refresh();
}

const char* OrtKeyValuePairs::get(const std::string& key) const {
  auto it = std::find(keys.begin(), keys.end(), key);
  return it == keys.end() ? nullptr : values[static_cast<size_t>(it - keys.begin())].c_str();
}

namespace tessera::capi {

// These entries return nothing: a null argument makes them do nothing.
void ORT_API_CALL CreateKeyValuePairs(OrtKeyValuePairs** out) noexcept {
  if (out == nullptr) return;
  *out = new (std::nothrow) OrtKeyValuePairs();
}

void ORT_API_CALL AddKeyValuePair(OrtKeyValuePairs* kvps, const char* key,
                                  const char* value) noexcept {
  if (kvps == nullptr || key == nullptr || value == nullptr || key[0] == '\0') return;
  try {
    kvps->set(key, value);
  } catch (...) {
  }
}

const char* ORT_API_CALL GetKeyValue(const OrtKeyValuePairs* kvps, const char* key) noexcept {
  if (kvps == nullptr || key == nullptr) return nullptr;
  return kvps->get(key);
}

void ORT_API_CALL GetKeyValuePairs(const OrtKeyValuePairs* kvps, const char* const** keys,
                                   const char* const** values, size_t* num_entries) noexcept {
  if (kvps == nullptr || keys == nullptr || values == nullptr || num_entries == nullptr) return;
  *keys = kvps->key_ptrs.data();
  *values = kvps->value_ptrs.data();
  *num_entries = kvps->keys.size();
}

void ORT_API_CALL RemoveKeyValuePair(OrtKeyValuePairs* kvps, const char* key) noexcept {
  if (kvps == nullptr || key == nullptr) return;
  kvps->remove(key);
}

void ORT_API_CALL ReleaseKeyValuePairs(OrtKeyValuePairs* input) noexcept { delete input; }

}  // namespace tessera::capi
