// OrtAllocator over Tessera's allocators, and Tessera allocators over the
// application's OrtAllocators.
#pragma once
#include <memory>

#include "capi/handles.hpp"
#include "core/allocator.hpp"

namespace tessera::capi {

// An OrtAllocator whose memory comes from a Tessera allocator. The function
// pointers come first (the OrtAllocator layout), so the application can call
// them directly.
struct CApiAllocator : OrtAllocator {
  explicit CApiAllocator(std::shared_ptr<Allocator> impl);
  std::shared_ptr<Allocator> impl;
  OrtMemoryInfo memory;
};

// The process's default host allocator (never released).
CApiAllocator* default_allocator();
bool is_default_allocator(const OrtAllocator* a);
// Whether `a` is one of Tessera's (then its memory comes from impl).
const CApiAllocator* as_ours(const OrtAllocator* a);
// A Tessera allocator for memory from `a`: its own allocator when it is one of
// Tessera's, else an adapter that calls the application's functions.
std::shared_ptr<Allocator> tessera_allocator(OrtAllocator* a);

}  // namespace tessera::capi
