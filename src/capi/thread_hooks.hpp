// The application's thread hooks, as the pools take them: its create and
// join functions and the per-session work callbacks, wrapped in a
// tessera::ThreadHooks.
#pragma once
#include <memory>

#include "core/thread_pool.hpp"
#include "tessera/onnxruntime_c_api.h"

namespace tessera::capi {

// Null when nothing is set. `where` names the options object in errors:
// a create function needs a join function and the other way round.
std::shared_ptr<const ThreadHooks> make_thread_hooks(OrtCustomCreateThreadFn create,
                                                     void* creation_options,
                                                     OrtCustomJoinThreadFn join,
                                                     const OrtThreadPoolCallbacksConfig* callbacks,
                                                     const char* where);

}  // namespace tessera::capi
