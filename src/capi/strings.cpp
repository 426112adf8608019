// String tensors: filled and read element by element or all at once.
#include <cstring>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {
namespace {

const Tensor& strings_of(const OrtValue* v) {
  need(v, "value");
  check(v->value.is_tensor(), "the value is a ", v->value.kind_name(), ", not a tensor");
  const Tensor& t = v->value.tensor();
  check(t.dtype() == DataType::kString, "the tensor holds ", data_type_name(t.dtype()),
        ", not strings");
  check(t.memory_info().host_accessible(), "the string tensor is not in host memory");
  return t;
}

std::string* mutable_strings(OrtValue* v) {
  strings_of(v);
  return v->value.tensor().mutable_data<std::string>();
}

size_t count(const Tensor& t) { return static_cast<size_t>(t.shape().num_elements()); }

void check_index(const Tensor& t, size_t index) {
  check(index < count(t), "element ", index, " is outside the tensor's ", count(t), " elements");
}

}  // namespace

OrtStatus* ORT_API_CALL FillStringTensor(OrtValue* value, const char* const* s,
                                         size_t s_len) noexcept {
  return guard("FillStringTensor", [&] {
    const size_t n = count(strings_of(value));
    check(s_len == n, "got ", s_len, " strings for a tensor of ", n, " elements");
    const auto items = string_list(s, s_len, "strings");
    std::string* dst = mutable_strings(value);
    for (size_t i = 0; i < n; ++i) dst[i] = items[i];
  });
}

OrtStatus* ORT_API_CALL FillStringTensorElement(OrtValue* value, const char* s,
                                                size_t index) noexcept {
  return guard("FillStringTensorElement", [&] {
    need(s, "string");
    check_index(strings_of(value), index);
    mutable_strings(value)[index] = s;
  });
}

OrtStatus* ORT_API_CALL GetResizedStringTensorElementBuffer(OrtValue* value, size_t index,
                                                            size_t length_in_bytes,
                                                            char** buffer) noexcept {
  return guard("GetResizedStringTensorElementBuffer", [&] {
    need(buffer, "buffer");
    check_index(strings_of(value), index);
    std::string& dst = mutable_strings(value)[index];
    dst.resize(length_in_bytes);
    *buffer = dst.data();
  });
}

OrtStatus* ORT_API_CALL GetStringTensorDataLength(const OrtValue* value, size_t* len) noexcept {
  return guard("GetStringTensorDataLength", [&] {
    need(len, "len");
    const Tensor& t = strings_of(value);
    const std::string* p = t.data<std::string>();
    size_t total = 0;
    for (size_t i = 0; i < count(t); ++i) total += p[i].size();
    *len = total;
  });
}

OrtStatus* ORT_API_CALL GetStringTensorContent(const OrtValue* value, void* s, size_t s_len,
                                               size_t* offsets, size_t offsets_len) noexcept {
  return guard("GetStringTensorContent", [&] {
    const Tensor& t = strings_of(value);
    const size_t n = count(t);
    check(offsets_len == n, "offsets has room for ", offsets_len, " entries; the tensor has ", n,
          " strings");
    const std::string* p = t.data<std::string>();
    size_t total = 0;
    for (size_t i = 0; i < n; ++i) total += p[i].size();
    check(s_len >= total, "the buffer holds ", s_len, " bytes; the strings need ", total);
    if (n > 0) need(offsets, "offsets");
    if (total > 0) need(s, "s");
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      offsets[i] = at;
      if (!p[i].empty()) std::memcpy(static_cast<char*>(s) + at, p[i].data(), p[i].size());
      at += p[i].size();
    }
  });
}

OrtStatus* ORT_API_CALL GetStringTensorElementLength(const OrtValue* value, size_t index,
                                                     size_t* out) noexcept {
  return guard("GetStringTensorElementLength", [&] {
    need(out, "out");
    const Tensor& t = strings_of(value);
    check_index(t, index);
    *out = t.data<std::string>()[index].size();
  });
}

OrtStatus* ORT_API_CALL GetStringTensorElement(const OrtValue* value, size_t s_len, size_t index,
                                               void* s) noexcept {
  return guard("GetStringTensorElement", [&] {
    const Tensor& t = strings_of(value);
    check_index(t, index);
    const std::string& e = t.data<std::string>()[index];
    check(s_len >= e.size(), "the buffer holds ", s_len, " bytes; element ", index, " has ",
          e.size());
    if (!e.empty()) {
      need(s, "s");
      std::memcpy(s, e.data(), e.size());
    }
  });
}

}  // namespace tessera::capi
