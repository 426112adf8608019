// Provider options held as key/value maps (the option objects of
// CreateCUDAProviderOptions, CreateTensorRTProviderOptions, ...): how they
// are updated, printed and refused.
#pragma once
#include <map>
#include <string>

namespace tessera::capi {

// "key1=value1;key2=value2", keys in order.
std::string options_string(const std::map<std::string, std::string>& options);
// Sets each keys[i] to values[i]; an empty key or a null array or entry is an error.
void update(std::map<std::string, std::string>& options, const char* const* keys,
            const char* const* values, size_t n);
// A pointer option's value as stored ("0x..."), and back.
std::string address_string(const void* p);
void* address_from_string(const std::string& s);
// Fails (ORT_FAIL) saying Tessera has no such provider, listing those it
// has, then `instead` (a hint; may be empty).
[[noreturn]] void refuse(const char* provider, const char* instead);

inline constexpr const char* kInsteadOfTensorRT =
    "for NVIDIA GPUs use Tessera's CUDA provider (SessionOptionsAppendExecutionProvider_CUDA_V2 "
    "with CreateCUDAProviderOptions)";

}  // namespace tessera::capi
