// What the value entries share: reading a handle's value, shapes passed as
// (pointer, length), and tensors over the application's memory.
#pragma once
#include <memory>

#include "capi/handles.hpp"
#include "core/value.hpp"

namespace tessera::capi {

// The value behind a handle; kInvalidArgument when the handle is null.
const Value& val(const OrtValue* v);
// A shape from (pointer, length): no negative dimension, no overflow.
Shape shape_of(const int64_t* shape, size_t shape_len);
// A tensor over memory the application owns; `keepalive` (may be empty) is
// released when the last reference to the memory goes.
Tensor wrap(const MemoryInfo& memory, void* p_data, size_t p_data_len, const int64_t* shape,
            size_t shape_len, int type, std::shared_ptr<void> keepalive);

}  // namespace tessera::capi
