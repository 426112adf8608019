// OrtStatus and the guard every C entry runs its body in: Tessera's errors
// (and anything else thrown) become a status carrying the matching
// OrtErrorCode and the full message; nothing crosses the C boundary as an
// exception.
#pragma once
#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "tessera/onnxruntime_c_api.h"

struct OrtStatus {
  OrtErrorCode code;
  std::string message;
};

namespace tessera::capi {

OrtErrorCode to_ort_code(ErrorCode code);
OrtStatus* make_status(OrtErrorCode code, std::string message);
OrtStatus* not_implemented(const char* entry);

// Runs `body` (which returns nothing) and turns what it throws into a status
// whose message starts with the entry's name.
template <typename F>
OrtStatus* guard(const char* entry, F&& body) noexcept {
  try {
    std::forward<F>(body)();
    return nullptr;
  } catch (const Error& e) {
    return make_status(to_ort_code(e.code()), std::string(entry) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return make_status(ORT_FAIL, std::string(entry) + ": out of memory");
  } catch (const std::exception& e) {
    return make_status(ORT_RUNTIME_EXCEPTION, std::string(entry) + ": " + e.what());
  } catch (...) {
    return make_status(ORT_RUNTIME_EXCEPTION, std::string(entry) + ": unknown exception");
  }
}

// The integer a caller passed for an enum parameter, read without an
// enum-typed load: a C caller may pass any int, and loading a value outside
// the enumerators' range as the enum is undefined in C++. Entries check it
// before using the parameter as the enum.
template <typename E>
int raw_enum(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "enum parameters are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Throws kInvalidArgument naming the parameter when a required pointer is null.
inline void need(const void* p, const char* what) { check(p != nullptr, what, " is null"); }

}  // namespace tessera::capi
