// Sessions: creation from a path or bytes, their inputs and outputs, and runs.
#include <functional>
#include <memory>

#include "capi/api_status.hpp"
#include "capi/async_runs.hpp"
#include "capi/convert.hpp"
#include "capi/thread_hooks.hpp"
#include "runtime/copy_tensors.hpp"

namespace tessera::capi {

const OrtEnv* current_env();
std::vector<const OrtEpDevice*> current_ep_devices();

namespace {

// The providers an application's selection delegate picks from the
// environment's devices, in its order, with the CPU provider last.
std::vector<ProviderSpec> delegate_providers(const OrtSessionOptions& o) {
  std::vector<const OrtEpDevice*> devices = current_ep_devices();
  std::vector<const OrtEpDevice*> selected(devices.size(), nullptr);
  size_t n = 0;
  OrtKeyValuePairs model_metadata;
  OrtStatus* s = o.selection_delegate(devices.data(), devices.size(), &model_metadata, nullptr,
                                      selected.data(), selected.size(), &n, o.selection_state);
  if (s != nullptr) {
    const std::string msg = s->message;
    delete s;
    fail(ErrorCode::kFail, "the EP selection delegate failed: ", msg);
  }
  check(n <= selected.size(), "the EP selection delegate selected ", n, " devices of ",
        selected.size(), " offered");
  std::vector<ProviderSpec> out;
  auto has = [&](const std::string& name) {
    for (const auto& p : out)
      if (p.name == name) return true;
    return false;
  };
  for (size_t i = 0; i < n; ++i) {
    check(selected[i] != nullptr, "the EP selection delegate selected a null device");
    if (!has(selected[i]->ep_name)) out.push_back({selected[i]->ep_name, {}});
  }
  if (!has("CPUExecutionProvider")) out.push_back({"CPUExecutionProvider", {}});
  return out;
}

struct Settings {
  SessionOptions options;
  std::vector<ProviderSpec> providers;
};

Settings settings(const OrtEnv* env, const OrtSessionOptions* options) {
  need(env, "env");
  Settings s;
  if (options == nullptr) {
    s.options.thread_hooks = make_thread_hooks(nullptr, nullptr, nullptr,
                                               &env->session_pool_callbacks, "the session options");
    return s;
  }
  s.options = options->options;
  s.options.thread_hooks =
      make_thread_hooks(options->create_thread, options->thread_creation_options,
                        options->join_thread, &env->session_pool_callbacks, "the session options");
  s.providers = options->providers;
  if (s.providers.empty() && options->selection_delegate != nullptr)
    s.providers = delegate_providers(*options);
  // A session that gives up its own threads runs on the pools the
  // environment was created with.
  if (!options->per_session_threads) {
    check(env->global_thread_pools,
          "the session options disable per-session threads (DisablePerSessionThreads), but the "
          "environment was created without global thread pools (CreateEnvWithGlobalThreadPools)");
    s.options.use_per_session_threads = false;
  }
  return s;
}

const Session& sess(const OrtSession* s) {
  need(s, "session");
  return s->get();
}

const IoInfo& io_at(const std::vector<IoInfo>& list, size_t index, const char* what) {
  check(index < list.size(), what, " index ", index, " is out of range: the model has ",
        list.size(), " ", what, "s");
  return list[index];
}

std::vector<std::pair<std::string, Value>> feeds(const char* const* names,
                                                 const OrtValue* const* values, size_t n) {
  const auto list = string_list(names, n, "input_names");
  if (n > 0) need(values, "inputs");
  std::vector<std::pair<std::string, Value>> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    check(values[i] != nullptr, "input '", list[i], "' (position ", i, ") is null");
    out.emplace_back(list[i], values[i]->value);
  }
  return out;
}

// Writes `result` into the application's tensor `dst`, which must have its
// element type and shape.
void write_into(const std::string& name, const Value& result, OrtValue& dst) {
  check(result.is_tensor() && dst.value.is_tensor(), "output '", name,
        "': only tensors can be written into a preallocated value");
  const Tensor& src = result.tensor();
  Tensor& out = dst.value.tensor();
  check(src.dtype() == out.dtype() && src.shape() == out.shape(), "output '", name, "' is ",
        data_type_name(src.dtype()), src.shape().to_string(), " but the preallocated value is ",
        data_type_name(out.dtype()), out.shape().to_string());
  if (src.raw_data() == out.raw_data()) return;
  copy_tensors({&src}, {&out});
}

void run(const OrtSession* session, const OrtRunOptions* run_options,
         const char* const* input_names, const OrtValue* const* inputs, size_t input_len,
         const char* const* output_names, size_t output_names_len, OrtValue** outputs) {
  const Session& s = sess(session);
  auto in = feeds(input_names, inputs, input_len);
  const auto names = string_list(output_names, output_names_len, "output_names");
  check(output_names_len > 0, "no output names were given");
  need(outputs, "outputs");
  static const RunOptions kDefaults;
  const RunOptions& ro = run_options != nullptr ? run_options->options : kDefaults;
  // The application's preallocated outputs go to the run, whose producers
  // write into them where type, shape and memory fit (no copy afterwards).
  std::vector<Value> preallocated(names.size());
  bool any = false;
  for (size_t i = 0; i < names.size(); ++i)
    if (outputs[i] != nullptr) {
      preallocated[i] = outputs[i]->value;
      any = true;
    }
  std::vector<Value> results =
      any ? s.run_on_devices(in, names, ro, &preallocated) : s.run(in, names, ro);
  for (size_t i = 0; i < names.size(); ++i)
    if (outputs[i] != nullptr) write_into(names[i], results[i], *outputs[i]);
  for (size_t i = 0; i < names.size(); ++i) {
    if (outputs[i] != nullptr) continue;
    // Outputs the application did not place come back in host memory, as
    // from a run without preallocated outputs.
    Value& v = results[i];
    if (any && v.is_tensor() && !v.tensor().memory_info().host_accessible())
      v = Value(copy_to(v.tensor(), cpu_memory_info()));
    outputs[i] = new OrtValue{std::move(v)};
  }
}

bool canceled(const OrtSessionOptions* options) {
  return options != nullptr && options->load_canceled.set.load();
}

}  // namespace

// Runs `make` as entry `entry` unless the options' load cancellation flag is
// set. The flag is looked at before and after creation (not between the
// stages): a session whose creation was canceled while it ran is discarded.
OrtStatus* create_session(const char* entry, const OrtSessionOptions* options, OrtSession** out,
                          const std::function<OrtSession*()>& make) {
  auto canceled_status = [&] {
    std::string message = entry;
    message.append(": session creation was canceled (SessionOptionsSetLoadCancellationFlag)");
    return make_status(ORT_MODEL_LOAD_CANCELED, std::move(message));
  };
  if (canceled(options)) return canceled_status();
  OrtStatus* s = guard(entry, [&] {
    need(out, "out");
    *out = make();
  });
  if (s == nullptr && canceled(options)) {
    delete *out;
    *out = nullptr;
    return canceled_status();
  }
  return s;
}

OrtStatus* ORT_API_CALL CreateSession(const OrtEnv* env, const ORTCHAR_T* model_path,
                                      const OrtSessionOptions* options, OrtSession** out) noexcept {
  return create_session("CreateSession", options, out, [&] {
    need(model_path, "model_path");
    Settings s = settings(env, options);
    return new OrtSession{Session::create(model_path, s.options, s.providers)};
  });
}

OrtStatus* ORT_API_CALL CreateSessionFromArray(const OrtEnv* env, const void* model_data,
                                               size_t model_data_length,
                                               const OrtSessionOptions* options,
                                               OrtSession** out) noexcept {
  return create_session("CreateSessionFromArray", options, out, [&] {
    need(model_data, "model_data");
    check(model_data_length > 0, "model_data_length is 0");
    Settings s = settings(env, options);
    return new OrtSession{
        Session::create_from_bytes(model_data, model_data_length, s.options, s.providers)};
  });
}

// Prepacked weights containers: sessions made with the same container share
// the packed forms of their weights. Tessera's sessions share packed weights
// (and the initializers they come from) process-wide through the
// environment's cache when "session.share_initializers" is on, its default;
// a session made with a container has that sharing on whatever its options
// say, so the container needs no store of its own.
OrtStatus* ORT_API_CALL
CreatePrepackedWeightsContainer(OrtPrepackedWeightsContainer** out) noexcept {
  return guard("CreatePrepackedWeightsContainer", [&] {
    need(out, "out");
    *out = new OrtPrepackedWeightsContainer{};
  });
}

void ORT_API_CALL ReleasePrepackedWeightsContainer(OrtPrepackedWeightsContainer* input) noexcept {
  delete input;
}

namespace {

Settings sharing_settings(const OrtEnv* env, const OrtSessionOptions* options,
                          const OrtPrepackedWeightsContainer* container) {
  need(container, "prepacked_weights_container");
  Settings s = settings(env, options);
  s.options.config_entries["session.share_initializers"] = std::string("1");
  return s;
}

}  // namespace

OrtStatus* ORT_API_CALL CreateSessionWithPrepackedWeightsContainer(
    const OrtEnv* env, const ORTCHAR_T* model_path, const OrtSessionOptions* options,
    OrtPrepackedWeightsContainer* prepacked_weights_container, OrtSession** out) noexcept {
  return create_session("CreateSessionWithPrepackedWeightsContainer", options, out, [&] {
    need(model_path, "model_path");
    Settings s = sharing_settings(env, options, prepacked_weights_container);
    return new OrtSession{Session::create(model_path, s.options, s.providers)};
  });
}

OrtStatus* ORT_API_CALL CreateSessionFromArrayWithPrepackedWeightsContainer(
    const OrtEnv* env, const void* model_data, size_t model_data_length,
    const OrtSessionOptions* options, OrtPrepackedWeightsContainer* prepacked_weights_container,
    OrtSession** out) noexcept {
  return create_session("CreateSessionFromArrayWithPrepackedWeightsContainer", options, out, [&] {
    need(model_data, "model_data");
    check(model_data_length > 0, "model_data_length is 0");
    Settings s = sharing_settings(env, options, prepacked_weights_container);
    return new OrtSession{
        Session::create_from_bytes(model_data, model_data_length, s.options, s.providers)};
  });
}

// A session over a model built in memory (the model editor's), created as
// CreateSession's are.
OrtSession* new_session(const OrtEnv* env, ir::Model model, const OrtSessionOptions* options) {
  Settings s = settings(env, options);
  return new OrtSession{Session::create_from_model(std::move(model), s.options, s.providers)};
}

void ORT_API_CALL ReleaseSession(OrtSession* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL Run(OrtSession* session, const OrtRunOptions* run_options,
                            const char* const* input_names, const OrtValue* const* inputs,
                            size_t input_len, const char* const* output_names,
                            size_t output_names_len, OrtValue** outputs) noexcept {
  return guard("Run", [&] {
    run(session, run_options, input_names, inputs, input_len, output_names, output_names_len,
        outputs);
  });
}

OrtStatus* ORT_API_CALL RunAsync(OrtSession* session, const OrtRunOptions* run_options,
                                 const char* const* input_names, const OrtValue* const* input,
                                 size_t input_len, const char* const* output_names,
                                 size_t output_names_len, OrtValue** output,
                                 RunAsyncCallbackFn run_async_callback, void* user_data) noexcept {
  return guard("RunAsync", [&] {
    need(reinterpret_cast<const void*>(run_async_callback), "run_async_callback");
    sess(session);
    need(output, "output");
    // Inputs and names are copied now; the application keeps `output` (where
    // the results go) and the session alive until the callback.
    auto in = std::make_shared<std::vector<OrtValue>>();
    for (const auto& [name, value] : feeds(input_names, input, input_len)) in->emplace_back(value);
    auto in_names = std::make_shared<std::vector<std::string>>(
        string_list(input_names, input_len, "input_names"));
    auto out_names = std::make_shared<std::vector<std::string>>(
        string_list(output_names, output_names_len, "output_names"));
    auto ro =
        std::make_shared<OrtRunOptions>(run_options != nullptr ? *run_options : OrtRunOptions{});
    post_async_run([=] {
      std::vector<const char*> inp, outp;
      std::vector<const OrtValue*> vals;
      for (size_t i = 0; i < in->size(); ++i) {
        inp.push_back((*in_names)[i].c_str());
        vals.push_back(&(*in)[i]);
      }
      for (const auto& n : *out_names) outp.push_back(n.c_str());
      OrtStatus* status = guard("RunAsync", [&] {
        run(session, ro.get(), inp.data(), vals.data(), vals.size(), outp.data(), outp.size(),
            output);
      });
      run_async_callback(user_data, output, out_names->size(), status);
    });
  });
}

OrtStatus* ORT_API_CALL SessionGetInputCount(const OrtSession* session, size_t* out) noexcept {
  return guard("SessionGetInputCount", [&] {
    need(out, "out");
    *out = sess(session).inputs().size();
  });
}

OrtStatus* ORT_API_CALL SessionGetOutputCount(const OrtSession* session, size_t* out) noexcept {
  return guard("SessionGetOutputCount", [&] {
    need(out, "out");
    *out = sess(session).outputs().size();
  });
}

OrtStatus* ORT_API_CALL SessionGetOverridableInitializerCount(const OrtSession* session,
                                                              size_t* out) noexcept {
  return guard("SessionGetOverridableInitializerCount", [&] {
    need(out, "out");
    *out = sess(session).overridable_initializers().size();
  });
}

OrtStatus* ORT_API_CALL SessionGetInputTypeInfo(const OrtSession* session, size_t index,
                                                OrtTypeInfo** type_info) noexcept {
  return guard("SessionGetInputTypeInfo", [&] {
    need(type_info, "type_info");
    *type_info = make_type_info(io_at(sess(session).inputs(), index, "input").type).release();
  });
}

OrtStatus* ORT_API_CALL SessionGetOutputTypeInfo(const OrtSession* session, size_t index,
                                                 OrtTypeInfo** type_info) noexcept {
  return guard("SessionGetOutputTypeInfo", [&] {
    need(type_info, "type_info");
    *type_info = make_type_info(io_at(sess(session).outputs(), index, "output").type).release();
  });
}

OrtStatus* ORT_API_CALL SessionGetOverridableInitializerTypeInfo(const OrtSession* session,
                                                                 size_t index,
                                                                 OrtTypeInfo** type_info) noexcept {
  return guard("SessionGetOverridableInitializerTypeInfo", [&] {
    need(type_info, "type_info");
    const auto& list = sess(session).overridable_initializers();
    *type_info = make_type_info(io_at(list, index, "overridable initializer").type).release();
  });
}

OrtStatus* ORT_API_CALL SessionGetInputName(const OrtSession* session, size_t index,
                                            OrtAllocator* allocator, char** value) noexcept {
  return guard("SessionGetInputName", [&] {
    need(value, "value");
    *value = allocate_string(allocator, io_at(sess(session).inputs(), index, "input").name);
  });
}

OrtStatus* ORT_API_CALL SessionGetOutputName(const OrtSession* session, size_t index,
                                             OrtAllocator* allocator, char** value) noexcept {
  return guard("SessionGetOutputName", [&] {
    need(value, "value");
    *value = allocate_string(allocator, io_at(sess(session).outputs(), index, "output").name);
  });
}

OrtStatus* ORT_API_CALL SessionGetOverridableInitializerName(const OrtSession* session,
                                                             size_t index, OrtAllocator* allocator,
                                                             char** value) noexcept {
  return guard("SessionGetOverridableInitializerName", [&] {
    need(value, "value");
    const auto& list = sess(session).overridable_initializers();
    *value = allocate_string(allocator, io_at(list, index, "overridable initializer").name);
  });
}

OrtStatus* ORT_API_CALL SessionEndProfiling(OrtSession* session, OrtAllocator* allocator,
                                            char** out) noexcept {
  return guard("SessionEndProfiling", [&] {
    need(session, "session");
    need(out, "out");
    *out = allocate_string(allocator, session->get().end_profiling());
  });
}

OrtStatus* ORT_API_CALL SessionGetProfilingStartTimeNs(const OrtSession* session,
                                                       uint64_t* out) noexcept {
  return guard("SessionGetProfilingStartTimeNs", [&] {
    need(out, "out");
    *out = static_cast<uint64_t>(sess(session).profiling_start_ns());
  });
}

}  // namespace tessera::capi
