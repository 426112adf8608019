// Session options, sessions, runs and IO binding.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "tessera/cxx/value.hpp"

namespace tessera::api {

class SessionOptions {
 public:
  SessionOptions() {
    OrtSessionOptions* o = nullptr;
    check(c_api().CreateSessionOptions(&o));
    h_.reset(o);
  }
  SessionOptions& intra_op_threads(int n) {
    check(c_api().SetIntraOpNumThreads(h_.get(), n));
    return *this;
  }
  // Runs the session on the environment's global thread pools
  // (Env::with_global_thread_pools) instead of pools of its own.
  SessionOptions& disable_per_session_threads() {
    check(c_api().DisablePerSessionThreads(h_.get()));
    return *this;
  }
  SessionOptions& inter_op_threads(int n) {
    check(c_api().SetInterOpNumThreads(h_.get(), n));
    return *this;
  }
  SessionOptions& optimization_level(::GraphOptimizationLevel level) {
    check(c_api().SetSessionGraphOptimizationLevel(h_.get(), level));
    return *this;
  }
  SessionOptions& execution_mode(::ExecutionMode mode) {
    check(c_api().SetSessionExecutionMode(h_.get(), mode));
    return *this;
  }
  SessionOptions& profiling(const std::string& file_prefix) {
    check(c_api().EnableProfiling(h_.get(), file_prefix.c_str()));
    return *this;
  }
  SessionOptions& optimized_model_path(const std::string& path) {
    check(c_api().SetOptimizedModelFilePath(h_.get(), path.c_str()));
    return *this;
  }
  SessionOptions& config(const std::string& key, const std::string& value) {
    check(c_api().AddSessionConfigEntry(h_.get(), key.c_str(), value.c_str()));
    return *this;
  }
  SessionOptions& free_dimension(const std::string& name, int64_t size) {
    check(c_api().AddFreeDimensionOverrideByName(h_.get(), name.c_str(), size));
    return *this;
  }
  // Appends a provider by name ("CPU", "CUDA", "CUDAExecutionProvider", a
  // plugin's name) with its options; providers run in the order appended.
  SessionOptions& provider(const std::string& name,
                           const std::map<std::string, std::string>& options = {}) {
    std::vector<const char*> k, v;
    for (const auto& [key, value] : options) {
      k.push_back(key.c_str());
      v.push_back(value.c_str());
    }
    check(c_api().SessionOptionsAppendExecutionProvider(h_.get(), name.c_str(), k.data(), v.data(),
                                                        k.size()));
    return *this;
  }
  // Appends the provider of `device` for that device.
  SessionOptions& provider(const Env& env, const EpDevice& device,
                           const std::map<std::string, std::string>& options = {}) {
    std::vector<const char*> k, v;
    for (const auto& [key, value] : options) {
      k.push_back(key.c_str());
      v.push_back(value.c_str());
    }
    const OrtEpDevice* d = device.get();
    check(c_api().SessionOptionsAppendExecutionProvider_V2(h_.get(), env.get(), &d, 1, k.data(),
                                                           v.data(), k.size()));
    return *this;
  }
  const OrtSessionOptions* get() const noexcept { return h_.get(); }
  OrtSessionOptions* get() noexcept { return h_.get(); }

 private:
  Owned<OrtSessionOptions> h_;
};

class RunOptions {
 public:
  RunOptions() {
    OrtRunOptions* o = nullptr;
    check(c_api().CreateRunOptions(&o));
    h_.reset(o);
  }
  RunOptions& tag(const std::string& t) {
    check(c_api().RunOptionsSetRunTag(h_.get(), t.c_str()));
    return *this;
  }
  RunOptions& config(const std::string& key, const std::string& value) {
    check(c_api().AddRunConfigEntry(h_.get(), key.c_str(), value.c_str()));
    return *this;
  }
  // Safe from another thread: runs using these options stop between nodes.
  void terminate() { check(c_api().RunOptionsSetTerminate(h_.get())); }
  const OrtRunOptions* get() const noexcept { return h_.get(); }

 private:
  Owned<OrtRunOptions> h_;
};

class IoBinding;

class Session {
 public:
  Session(const Env& env, const std::string& model_path, const SessionOptions& options = {}) {
    OrtSession* s = nullptr;
    check(c_api().CreateSession(env.get(), model_path.c_str(), options.get(), &s));
    h_.reset(s);
  }
  Session(const Env& env, const void* model_bytes, size_t size,
          const SessionOptions& options = {}) {
    OrtSession* s = nullptr;
    check(c_api().CreateSessionFromArray(env.get(), model_bytes, size, options.get(), &s));
    h_.reset(s);
  }

  std::vector<std::string> input_names() const {
    return names(c_api().SessionGetInputCount, c_api().SessionGetInputName);
  }
  std::vector<std::string> output_names() const {
    return names(c_api().SessionGetOutputCount, c_api().SessionGetOutputName);
  }
  // The declared type of input or output `i` (tensors only).
  TensorInfo input_info(size_t i) const { return info(c_api().SessionGetInputTypeInfo, i); }
  TensorInfo output_info(size_t i) const { return info(c_api().SessionGetOutputTypeInfo, i); }
  // The declared type of input or output `i`, of any kind.
  TypeInfo input_type(size_t i) const { return type(c_api().SessionGetInputTypeInfo, i); }
  TypeInfo output_type(size_t i) const { return type(c_api().SessionGetOutputTypeInfo, i); }

  // Runs with inputs by name; returns the outputs asked for, in that order.
  std::vector<Value> run(const std::vector<std::string>& input_names,
                         const std::vector<Value>& inputs,
                         const std::vector<std::string>& output_names,
                         const RunOptions* options = nullptr) {
    if (input_names.size() != inputs.size())
      throw Error(ORT_INVALID_ARGUMENT, "run: " + std::to_string(input_names.size()) +
                                            " names for " + std::to_string(inputs.size()) +
                                            " inputs");
    std::vector<const char*> in, out;
    std::vector<const OrtValue*> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      in.push_back(input_names[i].c_str());
      values.push_back(inputs[i].get());
    }
    for (const auto& n : output_names) out.push_back(n.c_str());
    std::vector<OrtValue*> results(out.size(), nullptr);
    check(c_api().Run(h_.get(), options != nullptr ? options->get() : nullptr, in.data(),
                      values.data(), values.size(), out.data(), out.size(), results.data()));
    std::vector<Value> owned;
    for (OrtValue* v : results) owned.emplace_back(v);
    return owned;
  }
  inline void run(IoBinding& binding, const RunOptions* options = nullptr);

  // The model's metadata value for `key`, or "" when absent.
  std::string metadata(const std::string& key) const {
    OrtModelMetadata* m = nullptr;
    check(c_api().SessionGetModelMetadata(h_.get(), &m));
    Owned<OrtModelMetadata> owned(m);
    char* v = nullptr;
    OrtAllocator* a = default_allocator();
    check(c_api().ModelMetadataLookupCustomMetadataMap(m, a, key.c_str(), &v));
    return take_string(v, a);
  }
  OrtSession* get() const noexcept { return h_.get(); }

 private:
  using CountFn = OrtStatus*(ORT_API_CALL*)(const OrtSession*, size_t*)TESSERA_NOEXCEPT;
  using NameFn = OrtStatus*(ORT_API_CALL*)(const OrtSession*, size_t, OrtAllocator*,
                                           char**)TESSERA_NOEXCEPT;
  using InfoFn = OrtStatus*(ORT_API_CALL*)(const OrtSession*, size_t,
                                           OrtTypeInfo**)TESSERA_NOEXCEPT;

  std::vector<std::string> names(CountFn count, NameFn name) const {
    size_t n = 0;
    check(count(h_.get(), &n));
    std::vector<std::string> out;
    OrtAllocator* a = default_allocator();
    for (size_t i = 0; i < n; ++i) {
      char* s = nullptr;
      check(name(h_.get(), i, a, &s));
      out.push_back(take_string(s, a));
    }
    return out;
  }
  TypeInfo type(InfoFn fn, size_t i) const {
    OrtTypeInfo* t = nullptr;
    check(fn(h_.get(), i, &t));
    Owned<OrtTypeInfo> owned(t);
    return TypeInfo::from(t);
  }
  TensorInfo info(InfoFn fn, size_t i) const {
    OrtTypeInfo* t = nullptr;
    check(fn(h_.get(), i, &t));
    Owned<OrtTypeInfo> owned(t);
    const OrtTensorTypeAndShapeInfo* tensor = nullptr;
    check(c_api().CastTypeInfoToTensorInfo(t, &tensor));
    if (tensor == nullptr)
      throw Error(ORT_INVALID_ARGUMENT, "value " + std::to_string(i) + " is not a tensor");
    return TensorInfo::from(tensor);
  }

  Owned<OrtSession> h_;
};

// Inputs and outputs bound ahead of runs, in memory the application chooses.
class IoBinding {
 public:
  explicit IoBinding(Session& session) {
    OrtIoBinding* b = nullptr;
    check(c_api().CreateIoBinding(session.get(), &b));
    h_.reset(b);
  }
  void bind_input(const std::string& name, const Value& value) {
    check(c_api().BindInput(h_.get(), name.c_str(), value.get()));
  }
  void bind_output(const std::string& name, const Value& preallocated) {
    check(c_api().BindOutput(h_.get(), name.c_str(), preallocated.get()));
  }
  void bind_output(const std::string& name, const OrtMemoryInfo* memory) {
    check(c_api().BindOutputToDevice(h_.get(), name.c_str(), memory));
  }
  std::vector<Value> outputs() const {
    OrtAllocator* a = default_allocator();
    OrtValue** list = nullptr;
    size_t n = 0;
    check(c_api().GetBoundOutputValues(h_.get(), a, &list, &n));
    std::vector<Value> out;
    for (size_t i = 0; i < n; ++i) out.emplace_back(list[i]);
    if (list != nullptr) check(c_api().AllocatorFree(a, list));
    return out;
  }
  void clear() {
    c_api().ClearBoundInputs(h_.get());
    c_api().ClearBoundOutputs(h_.get());
  }
  OrtIoBinding* get() const noexcept { return h_.get(); }

 private:
  Owned<OrtIoBinding> h_;
};

inline void Session::run(IoBinding& binding, const RunOptions* options) {
  check(c_api().RunWithBinding(h_.get(), options != nullptr ? options->get() : nullptr,
                               binding.get()));
}

}  // namespace tessera::api
