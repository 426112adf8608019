#include "ep/plugin_provider.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <filesystem>
#include <mutex>

#include "core/logging.hpp"
#include "ep/plugin_file_check.hpp"
#include "ep/plugin_graph.hpp"
#include "ep/provider_abilities.hpp"
#include "ep/provider_registry.hpp"

namespace tessera::ep {

namespace {

// The loaded library: closed when the last factory, provider, kernel or
// tensor allocated through it is gone.
struct Library {
  std::string path;
  void* handle = nullptr;
  const TsrEpFactoryApi* api = nullptr;
  ~Library() {
    if (handle) dlclose(handle);
  }
};

// One provider instance inside the plugin; released after its last user.
struct Handle {
  std::shared_ptr<Library> lib;
  TsrEpProvider* provider = nullptr;
  const TsrEpProviderApi* api() const { return lib->api->provider_api; }
  ~Handle() {
    if (provider && lib->api->release_provider) lib->api->release_provider(provider);
  }
};

[[noreturn]] void plugin_failed(const Library& lib, const std::string& what, TsrEpError err) {
  fail(ErrorCode::kEPFail, lib.api->name, " (", lib.path, "): ", what, ": ", err);
}

void synchronize(const Handle& h) {
  if (!h.api()->synchronize) return;
  if (TsrEpError e = h.api()->synchronize(h.provider)) plugin_failed(*h.lib, "synchronize", e);
}

TsrEpMemory to_c(const MemoryInfo& m) {
  return {int32_t(m.device_type), m.vendor_id, m.device_id, m.host_accessible() ? 1 : 0};
}

DeviceType device_type_of(int32_t t) {
  switch (t) {
    case TSR_EP_DEVICE_GPU:
      return DeviceType::kGPU;
    case TSR_EP_DEVICE_NPU:
      return DeviceType::kNPU;
    case TSR_EP_DEVICE_FPGA:
      return DeviceType::kFPGA;
    default:
      return DeviceType::kCPU;
  }
}

class PluginAllocator : public Allocator {
 public:
  PluginAllocator(std::shared_ptr<Handle> h, MemoryInfo info)
      : h_(std::move(h)), info_(std::move(info)) {}
  void* alloc(size_t bytes) override {
    void* p = h_->api()->alloc(h_->provider, bytes);
    if (!p && bytes)
      fail(ErrorCode::kOutOfMemory, h_->lib->api->name, ": could not allocate ", bytes, " bytes");
    return p;
  }
  void free(void* p) override {
    if (p) h_->api()->free(h_->provider, p);
  }
  const MemoryInfo& info() const override { return info_; }

 private:
  std::shared_ptr<Handle> h_;
  MemoryInfo info_;
};

// One of the plugin's streams. Holds the provider (and so the library) until
// the stream is released; calls on one stream are serialised here, as the
// ABI promises the plugin.
class PluginStream : public Stream {
 public:
  PluginStream(std::shared_ptr<Handle> h, TsrEpStream* s) : h_(std::move(h)), s_(s) {}
  ~PluginStream() override {
    std::lock_guard<std::mutex> lock(mu_);
    // Drains the queue; an error nobody synchronised for is logged, not lost.
    if (TsrEpError e = h_->api()->release_stream(s_))
      log(Severity::kWarning, "plugin", h_->lib->api->name, " (", h_->lib->path,
          "): a stream released with work that failed and was never synchronised: ", e);
  }
  void synchronize() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (TsrEpError e = h_->api()->stream_synchronize(s_))
      plugin_failed(*h_->lib, "stream synchronize", e);
  }
  void copy_async(const Handle& owner, const std::vector<TsrEpCopy>& copies) {
    if (&owner != h_.get())
      fail(ErrorCode::kInvalidArgument, owner.lib->api->name, " (", owner.lib->path,
           "): copy_tensors was given a stream of another provider instance; a plugin's copies "
           "can only be queued on a stream that same provider created");
    std::lock_guard<std::mutex> lock(mu_);
    if (TsrEpError e = h_->api()->copy_async(h_->provider, s_, copies.data(), copies.size()))
      plugin_failed(*h_->lib, "copy_async", e);
  }

 private:
  std::shared_ptr<Handle> h_;
  TsrEpStream* s_;
  std::mutex mu_;
};

class PluginTransfer : public DataTransfer {
 public:
  explicit PluginTransfer(std::shared_ptr<Handle> h) : h_(std::move(h)) {}
  bool can_copy(const MemoryInfo& src, const MemoryInfo& dst) const override {
    TsrEpMemory s = to_c(src), d = to_c(dst);
    return h_->api()->can_copy && h_->api()->can_copy(h_->provider, &s, &d);
  }
  // With a stream of this provider the copies are queued on it (complete at
  // its synchronize()); with none they are complete on return. A stream of
  // any other provider is refused.
  void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                    Stream* stream) const override {
    PluginStream* own = nullptr;
    if (stream) {
      own = dynamic_cast<PluginStream*>(stream);
      if (!own)
        fail(ErrorCode::kInvalidArgument, h_->lib->api->name, " (", h_->lib->path,
             "): copy_tensors was given a stream that another provider created; pass a stream "
             "of the provider that copies (create_stream of the device memory), or none");
    }
    check(src.size() == dst.size(), "copy_tensors: ", src.size(), " sources but ", dst.size(),
          " destinations");
    std::vector<TsrEpCopy> copies;
    for (size_t i = 0; i < src.size(); ++i) {
      check(src[i]->dtype() == dst[i]->dtype() && src[i]->shape() == dst[i]->shape() &&
                src[i]->dtype() != DataType::kString,
            "copy_tensors: ", src[i]->description(), " cannot be copied into ",
            dst[i]->description());
      if (!src[i]->byte_size()) continue;
      copies.push_back({src[i]->raw_data(), to_c(src[i]->memory_info()), dst[i]->mutable_raw_data(),
                        to_c(dst[i]->memory_info()), src[i]->byte_size()});
    }
    if (copies.empty()) return;
    if (own) {
      own->copy_async(*h_, copies);
      return;
    }
    if (TsrEpError e = h_->api()->copy(h_->provider, copies.data(), copies.size()))
      plugin_failed(*h_->lib, "copy", e);
    synchronize(*h_);
  }

 private:
  std::shared_ptr<Handle> h_;
};

// A compiled group (or a single node's kernel) inside the plugin.
class PluginKernel : public OpKernel {
 public:
  PluginKernel(std::shared_ptr<Handle> h, TsrEpCompiled* c) : h_(std::move(h)), c_(c) {}
  ~PluginKernel() override {
    if (h_->api()->release_compiled) h_->api()->release_compiled(c_);
  }
  void compute(KernelContext& ctx) const override {
    std::vector<TsrEpTensor> inputs(ctx.num_inputs());
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input_value(i);
      if (!v || v->is_none()) {
        inputs[i] = {0, 0, nullptr, nullptr};
        continue;
      }
      if (!v->is_tensor())
        ctx.fail_node("input ", i, " is a ", v->kind_name(), "; plugins take tensors only");
      const Tensor& t = v->tensor();
      inputs[i] = {to_onnx_type(t.dtype()), t.rank(), t.shape().dims().data(),
                   const_cast<void*>(t.raw_data())};
    }
    TsrEpComputeContext c;
    c.ctx = &ctx;
    TsrEpError e = h_->api()->compute(c_, &c, inputs.data(), inputs.size());
    if (e || !c.error.empty())
      fail(ErrorCode::kEPFail, ctx.node().name, " (", h_->lib->api->name, "): ", e ? e : "",
           e && !c.error.empty() ? "; " : "", c.error);
    synchronize(*h_);
    for (size_t k = 0; k < ctx.num_outputs(); ++k)
      if (ctx.has_output(k) && (k >= c.allocated.size() || !c.allocated[k]))
        fail(ErrorCode::kEPFail, ctx.node().name, " (", h_->lib->api->name,
             "): the plugin did not produce output ", k, " '", ctx.node().outputs[k], "'");
  }

 private:
  std::shared_ptr<Handle> h_;
  TsrEpCompiled* c_;
};

class PluginProvider : public ExecutionProvider, public FusedCompiler {
 public:
  PluginProvider(std::shared_ptr<Handle> h, const ProviderOptions& options) : h_(std::move(h)) {
    options_ = options;
    name_ = h_->lib->api->name;
    TsrEpMemory m{};
    h_->api()->memory(h_->provider, &m);
    info_.name = name_;
    info_.device_type = device_type_of(m.device_type);
    info_.vendor_id = m.vendor_id;
    info_.device_id = m.device_id;
    info_.mem_type = m.host_accessible ? MemoryType::kHostAccessible : MemoryType::kDefault;
    info_.allocator_type = AllocatorType::kDevice;
    alloc_ = std::make_shared<PluginAllocator>(h_, info_);
    transfer_ = std::make_unique<PluginTransfer>(h_);
  }
  const std::string& name() const override { return name_; }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return alloc_; }
  const KernelRegistry& kernel_registry() const override { return registry_; }
  const DataTransfer* data_transfer() const override { return transfer_.get(); }
  std::unique_ptr<Stream> create_stream() const override {
    if (!h_->api()->create_stream) return nullptr;  // a synchronous plugin
    TsrEpStream* s = nullptr;
    if (TsrEpError e = h_->api()->create_stream(h_->provider, &s))
      plugin_failed(*h_->lib, "create_stream", e);
    if (!s) plugin_failed(*h_->lib, "create_stream", "returned no stream");
    return std::make_unique<PluginStream>(h_, s);
  }

  Capability get_capability(const GraphView& view) const override {
    TsrEpGraph g{&view};
    TsrEpCapability cap;
    cap.view = &view;
    if (TsrEpError e = h_->api()->get_capability(h_->provider, &g, view.candidates.data(),
                                                 view.candidates.size(), &cap))
      plugin_failed(*h_->lib, "get_capability", e);
    return std::move(cap.cap);
  }

  std::vector<std::unique_ptr<OpKernel>> compile(
      const GraphView& view, const std::vector<FusedGroup>& groups) const override {
    TsrEpGraph g{&view};
    std::vector<std::unique_ptr<OpKernel>> out;
    for (const auto& group : groups) {
      std::vector<const char*> ins, outs;
      for (const auto& v : group.node.inputs) ins.push_back(v.c_str());
      for (const auto& v : group.node.outputs) outs.push_back(v.c_str());
      TsrEpCompiled* c = nullptr;
      if (TsrEpError e =
              h_->api()->compile(h_->provider, &g, group.nodes.data(), group.nodes.size(),
                                 ins.data(), ins.size(), outs.data(), outs.size(), &c))
        plugin_failed(*h_->lib, str_cat("compile ", group.node.name), e);
      if (!c) plugin_failed(*h_->lib, str_cat("compile ", group.node.name), "returned nothing");
      out.push_back(std::make_unique<PluginKernel>(h_, c));
    }
    return out;
  }

 private:
  std::shared_ptr<Handle> h_;
  std::string name_;
  MemoryInfo info_;
  std::shared_ptr<Allocator> alloc_;
  std::unique_ptr<PluginTransfer> transfer_;
  KernelRegistry registry_;  // empty: a plugin's kernels are compiled single nodes
};

class PluginFactory : public ProviderFactory, public FactoryDiagnostics {
 public:
  explicit PluginFactory(std::shared_ptr<Library> lib)
      : lib_(std::move(lib)), name_(lib_->api->name) {}
  const std::string& name() const override { return name_; }
  bool is_available(std::string* why_not) const override {
    if (!lib_->api->is_available) return true;
    const char* why = nullptr;
    bool ok = lib_->api->is_available(&why) != 0;
    if (!ok && why_not) *why_not = why ? why : "the plugin says it cannot run here";
    return ok;
  }
  std::shared_ptr<ExecutionProvider> create(const ProviderOptions& options) const override {
    std::vector<const char*> keys, values;
    for (const auto& [k, v] : options) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
    }
    auto h = std::make_shared<Handle>();
    h->lib = lib_;
    if (TsrEpError e =
            lib_->api->create_provider(keys.data(), values.data(), keys.size(), &h->provider))
      fail(ErrorCode::kInvalidArgument, name_, ": ", e);
    if (!h->provider) fail(ErrorCode::kEPFail, name_, ": create_provider returned no provider");
    return std::make_shared<PluginProvider>(std::move(h), options);
  }
  std::vector<std::string> diagnostics() const override {
    std::vector<std::string> d = {
        str_cat("plugin library: ", lib_->path),
        str_cat("vendor ", lib_->api->vendor ? lib_->api->vendor : "?", ", version ",
                lib_->api->version ? lib_->api->version : "?", ", plugin ABI version ",
                lib_->api->abi_version, " (this runtime: ", TESSERA_EP_ABI_VERSION, ")")};
    for (const auto& dev : devices())
      d.push_back(str_cat("device: ", device_type_name(dev.type), " vendor 0x",
                          to_hex(dev.vendor_id), " id ", dev.device_id, " ", dev.name));
    return d;
  }
  // The plugin's own list, so the environment shows its devices without
  // having to create a provider.
  std::vector<HardwareDevice> devices() const override {
    std::vector<HardwareDevice> out;
    if (!lib_->api->devices) return out;
    const TsrEpDevice* list = nullptr;
    size_t n = lib_->api->devices(&list);
    for (size_t i = 0; list && i < n; ++i)
      out.push_back({device_type_of(list[i].device_type), list[i].vendor_id, list[i].device_id,
                     list[i].description ? list[i].description : ""});
    return out;
  }

 private:
  static std::string to_hex(uint32_t v) {
    char buf[16];
    snprintf(buf, sizeof buf, "%04x", v);
    return buf;
  }
  std::shared_ptr<Library> lib_;
  std::string name_;
};

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

struct Registrations {
  std::mutex mu;
  std::vector<RegisteredLibrary> list;
};
Registrations& registrations() {
  static Registrations r;
  return r;
}

}  // namespace

std::shared_ptr<ProviderFactory> load_provider_library(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec))
    fail(ErrorCode::kNoSuchFile, "provider library '", path, "' does not exist");
  auto lib = std::make_shared<Library>();
  lib->path = path;
  // A path without a slash would make dlopen search the system's library path.
  std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  check_plugin_file(open_path);  // a damaged file would crash dlopen, not fail it
  dlerror();
  lib->handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle)
    fail(ErrorCode::kEPFail, "provider library '", path, "' could not be loaded: ", dl_error());
  auto version_fn =
      reinterpret_cast<TsrEpAbiVersionFn>(dlsym(lib->handle, TESSERA_EP_ABI_VERSION_SYMBOL));
  auto factory_fn = reinterpret_cast<TsrEpFactoryFn>(dlsym(lib->handle, TESSERA_EP_FACTORY_SYMBOL));
  if (!version_fn || !factory_fn)
    fail(ErrorCode::kInvalidArgument, "provider library '", path, "' does not export ",
         !version_fn ? TESSERA_EP_ABI_VERSION_SYMBOL : TESSERA_EP_FACTORY_SYMBOL,
         ": it is not a Tessera provider plugin (see include/tessera/tessera_ep_api.h)");
  uint32_t version = version_fn();
  if (version != TESSERA_EP_ABI_VERSION)
    fail(ErrorCode::kInvalidArgument, "provider library '", path,
         "' was built against plugin ABI version ", version,
         " but this runtime implements version ", TESSERA_EP_ABI_VERSION,
         "; rebuild the plugin against this release's tessera_ep_api.h");
  lib->api = factory_fn(&plugin_host_api());
  const TsrEpFactoryApi* a = lib->api;
  if (!a || a->abi_version != TESSERA_EP_ABI_VERSION || !a->name || !*a->name ||
      !a->create_provider || !a->provider_api)
    fail(ErrorCode::kInvalidArgument, "provider library '", path,
         "' returned an incomplete factory table (null, wrong abi_version, no name, no "
         "create_provider or no provider_api)");
  const TsrEpProviderApi* p = a->provider_api;
  if (!p->memory || !p->get_capability || !p->compile || !p->compute || !p->alloc || !p->free ||
      !p->copy || !p->can_copy)
    fail(ErrorCode::kInvalidArgument, "provider library '", path, "' (", a->name,
         ") leaves a required provider function null (memory, get_capability, compile, compute, "
         "alloc, free, can_copy and copy are required)");
  int stream_fns =
      !!p->create_stream + !!p->copy_async + !!p->stream_synchronize + !!p->release_stream;
  if (stream_fns != 0 && stream_fns != 4)
    fail(ErrorCode::kInvalidArgument, "provider library '", path, "' (", a->name,
         ") sets only some of its stream functions (create_stream, copy_async, "
         "stream_synchronize, release_stream): set all four, or none for a synchronous provider");
  log(Severity::kInfo, "plugin", "loaded ", a->name, " ", a->version ? a->version : "", " from ",
      path);
  return std::make_shared<PluginFactory>(std::move(lib));
}

std::string register_provider_library(const std::string& name, const std::string& path) {
  auto& regs = registrations();
  std::lock_guard<std::mutex> lock(regs.mu);
  for (const auto& r : regs.list)
    if (r.name == name)
      fail(ErrorCode::kInvalidArgument, "a provider library is already registered as '", name,
           "' (", r.path, "); unregister it first");
  auto factory = load_provider_library(path);
  auto& registry = ProviderRegistry::instance();
  if (registry.find(factory->name()))
    fail(ErrorCode::kInvalidArgument, "provider library '", path, "' provides ", factory->name(),
         ", which this process already has");
  std::string provider = factory->name();
  registry.add(std::move(factory));
  regs.list.push_back({name, path, provider});
  return provider;
}

void unregister_provider_library(const std::string& name) {
  auto& regs = registrations();
  std::lock_guard<std::mutex> lock(regs.mu);
  for (auto it = regs.list.begin(); it != regs.list.end(); ++it)
    if (it->name == name) {
      ProviderRegistry::instance().remove(it->provider);
      regs.list.erase(it);
      return;
    }
  fail(ErrorCode::kInvalidArgument, "no provider library is registered as '", name, "'");
}

std::vector<RegisteredLibrary> registered_provider_libraries() {
  auto& regs = registrations();
  std::lock_guard<std::mutex> lock(regs.mu);
  return regs.list;
}

}  // namespace tessera::ep

namespace tessera {

std::string register_execution_provider_library(const std::string& name, const std::string& path) {
  return ep::register_provider_library(name, path);
}

void unregister_execution_provider_library(const std::string& name) {
  ep::unregister_provider_library(name);
}

}  // namespace tessera
