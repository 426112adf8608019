// Thread creation hooks (session options and global threading options) and
// the environment's per-session thread-pool work callbacks.
#include "capi/thread_hooks.hpp"

#include "capi/api_status.hpp"
#include "capi/handles.hpp"

namespace tessera::capi {

std::shared_ptr<const ThreadHooks> make_thread_hooks(OrtCustomCreateThreadFn create,
                                                     void* creation_options,
                                                     OrtCustomJoinThreadFn join,
                                                     const OrtThreadPoolCallbacksConfig* callbacks,
                                                     const char* where) {
  check(bool(create) == bool(join), where, " set a custom ",
        create ? "create-thread function but no join-thread function"
               : "join-thread function but no create-thread function",
        ": the pools need both, to start their threads and to wait for them");
  const bool with_callbacks = callbacks != nullptr && callbacks->version != 0 &&
                              (callbacks->on_enqueue || callbacks->on_start_work ||
                               callbacks->on_stop_work || callbacks->on_abandon);
  if (!create && !with_callbacks) return nullptr;
  auto hooks = std::make_shared<ThreadHooks>();
  if (create) {
    hooks->create = [create, creation_options](ThreadHooks::WorkerFn worker,
                                               void* arg) -> const void* {
      return create(creation_options, worker, arg);
    };
    hooks->join = [join](const void* handle) { join(static_cast<OrtCustomThreadHandle>(handle)); };
  }
  if (with_callbacks) {
    const OrtThreadPoolCallbacksConfig c = *callbacks;
    if (c.on_enqueue) hooks->on_enqueue = [c] { return c.on_enqueue(c.user_context); };
    if (c.on_start_work)
      hooks->on_start = [c](void* data) { c.on_start_work(c.user_context, data); };
    if (c.on_stop_work) hooks->on_stop = [c](void* data) { c.on_stop_work(c.user_context, data); };
    if (c.on_abandon) hooks->on_abandon = [c](void* data) { c.on_abandon(c.user_context, data); };
  }
  return hooks;
}

OrtStatus* ORT_API_CALL SessionOptionsSetCustomCreateThreadFn(
    OrtSessionOptions* options, OrtCustomCreateThreadFn ort_custom_create_thread_fn) noexcept {
  return guard("SessionOptionsSetCustomCreateThreadFn", [&] {
    need(options, "options");
    options->create_thread = ort_custom_create_thread_fn;
  });
}

OrtStatus* ORT_API_CALL SessionOptionsSetCustomThreadCreationOptions(
    OrtSessionOptions* options, void* ort_custom_thread_creation_options) noexcept {
  return guard("SessionOptionsSetCustomThreadCreationOptions", [&] {
    need(options, "options");
    options->thread_creation_options = ort_custom_thread_creation_options;
  });
}

OrtStatus* ORT_API_CALL SessionOptionsSetCustomJoinThreadFn(
    OrtSessionOptions* options, OrtCustomJoinThreadFn ort_custom_join_thread_fn) noexcept {
  return guard("SessionOptionsSetCustomJoinThreadFn", [&] {
    need(options, "options");
    options->join_thread = ort_custom_join_thread_fn;
  });
}

OrtStatus* ORT_API_CALL SetGlobalCustomCreateThreadFn(
    OrtThreadingOptions* tp_options, OrtCustomCreateThreadFn ort_custom_create_thread_fn) noexcept {
  return guard("SetGlobalCustomCreateThreadFn", [&] {
    need(tp_options, "threading options");
    tp_options->create_thread = ort_custom_create_thread_fn;
  });
}

OrtStatus* ORT_API_CALL SetGlobalCustomThreadCreationOptions(
    OrtThreadingOptions* tp_options, void* ort_custom_thread_creation_options) noexcept {
  return guard("SetGlobalCustomThreadCreationOptions", [&] {
    need(tp_options, "threading options");
    tp_options->thread_creation_options = ort_custom_thread_creation_options;
  });
}

OrtStatus* ORT_API_CALL SetGlobalCustomJoinThreadFn(
    OrtThreadingOptions* tp_options, OrtCustomJoinThreadFn ort_custom_join_thread_fn) noexcept {
  return guard("SetGlobalCustomJoinThreadFn", [&] {
    need(tp_options, "threading options");
    tp_options->join_thread = ort_custom_join_thread_fn;
  });
}

OrtStatus* ORT_API_CALL
SetPerSessionThreadPoolCallbacks(OrtEnv* env, const OrtThreadPoolCallbacksConfig* config) noexcept {
  return guard("SetPerSessionThreadPoolCallbacks", [&] {
    need(env, "env");
    need(config, "config");
    check(config->version >= 1 && config->version <= ORT_API_VERSION, "config->version is ",
          config->version, "; set it to the API version the config was written for (1..",
          ORT_API_VERSION, ")");
    env->session_pool_callbacks = *config;
  });
}

}  // namespace tessera::capi
