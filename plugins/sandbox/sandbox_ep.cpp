// The sandbox execution provider, as a plugin: the two exported entry points
// and the factory and provider tables of include/tessera/tessera_ep_api.h.
// Its device is host memory kept apart (sandbox_arena.hpp) and presented as a
// GPU of its own vendor, so the runtime must copy at every border; its kernels
// refuse any pointer that is not the device's own.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "sandbox_arena.hpp"
#include "sandbox_counters.hpp"
#include "sandbox_ops.hpp"
#include "sandbox_stream.hpp"
#include "tessera/tessera_ep_api.h"

namespace {
// One memory per device, as on real hardware: every live provider instance (a
// session's, the environment's) shares the same arena, so a tensor allocated
// by one can be fed to another's kernels. The providers own it together and
// it goes, quarantine and all, with the last of them; the runtime releases a
// provider only after every tensor allocated through it, and unloads the
// library after that. (A static arena that outlived them was leaked each time
// the runtime unloaded the library, at exit at the latest.)
std::shared_ptr<sandbox::Arena> device_arena() {
  static std::mutex mu;
  static std::weak_ptr<sandbox::Arena> shared;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<sandbox::Arena> arena = shared.lock();
  if (!arena) {
    arena.reset(new sandbox::Arena, [](sandbox::Arena* a) {
      delete a;
      sandbox::counters().live_arenas--;
    });
    sandbox::counters().live_arenas++;
    shared = arena;
  }
  return arena;
}
}  // namespace

struct TsrEpProvider {
  std::shared_ptr<sandbox::Arena> device = device_arena();
  sandbox::Arena& arena = *device;
  bool fuse = true;
  std::chrono::milliseconds stream_delay{0};
};

// A stream and the provider that created it (copy_async refuses any other).
struct TsrEpStream {
  TsrEpProvider* provider;
  sandbox::Stream queue;
};

struct TsrEpCompiled {
  TsrEpProvider* provider = nullptr;
  std::vector<sandbox::OpDesc> ops;
  std::vector<std::string> inputs, outputs;
};

namespace {

using sandbox::kVendor;
const char* kName = "SandboxExecutionProvider";
const TsrEpHostApi* g_host = nullptr;

// The ABI's error strings: valid until the next failing call on this thread.
TsrEpError error(const std::string& message) {
  thread_local std::string text;
  text = message;
  return text.c_str();
}

void memory(const TsrEpProvider*, TsrEpMemory* out) { *out = {TSR_EP_DEVICE_GPU, kVendor, 0, 0}; }

size_t find_root(std::vector<size_t>& parent, size_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// With fuse=1, supported nodes joined by data edges are claimed as one fused
// group each (the runtime splits any group that would form a cycle); with
// fuse=0 each node is claimed as a kernel of its own.
TsrEpError get_capability(const TsrEpProvider* p, const TsrEpGraph* g, const size_t* candidates,
                          size_t count, TsrEpCapability* cap) {
  try {
    std::vector<size_t> supported;
    for (size_t i = 0; i < count; ++i) {
      std::string why = sandbox::claim_reason(*g_host, g, candidates[i]);
      if (why.empty())
        supported.push_back(candidates[i]);
      else
        g_host->decline(cap, candidates[i], why.c_str());
    }
    if (!p->fuse) {
      g_host->claim(cap, supported.data(), supported.size(), 0);
      return nullptr;
    }
    std::vector<size_t> parent(supported.size());
    std::iota(parent.begin(), parent.end(), size_t(0));
    std::map<std::string, size_t> producer;  // value -> position in `supported`
    for (size_t k = 0; k < supported.size(); ++k)
      for (size_t o = 0; o < g_host->node_num_outputs(g, supported[k]); ++o)
        producer[g_host->node_output(g, supported[k], o)] = k;
    for (size_t k = 0; k < supported.size(); ++k)
      for (size_t i = 0; i < g_host->node_num_inputs(g, supported[k]); ++i) {
        auto it = producer.find(g_host->node_input(g, supported[k], i));
        if (it != producer.end()) parent[find_root(parent, k)] = find_root(parent, it->second);
      }
    std::map<size_t, std::vector<size_t>> groups;
    for (size_t k = 0; k < supported.size(); ++k)
      groups[find_root(parent, k)].push_back(supported[k]);
    for (auto& [root, nodes] : groups) g_host->claim(cap, nodes.data(), nodes.size(), 1);
    return nullptr;
  } catch (const std::exception& e) {
    return error(std::string("get_capability: ") + e.what());
  }
}

TsrEpError compile(const TsrEpProvider* p, const TsrEpGraph* g, const size_t* nodes, size_t count,
                   const char* const* inputs, size_t num_inputs, const char* const* outputs,
                   size_t num_outputs, TsrEpCompiled** out) {
  try {
    auto c = std::make_unique<TsrEpCompiled>();
    c->provider = const_cast<TsrEpProvider*>(p);
    c->inputs.assign(inputs, inputs + num_inputs);
    c->outputs.assign(outputs, outputs + num_outputs);
    std::map<std::string, bool> known;
    for (const auto& v : c->inputs) known[v] = true;
    for (size_t k = 0; k < count; ++k) {
      c->ops.push_back(sandbox::describe_node(*g_host, g, nodes[k]));
      for (const auto& v : c->ops.back().inputs)
        if (!v.empty() && !known.count(v))
          return error("compile: '" + v + "' read by node '" + c->ops.back().name +
                       "' is neither a group input nor produced earlier in the group");
      for (const auto& v : c->ops.back().outputs) known[v] = true;
    }
    *out = c.release();
    return nullptr;
  } catch (const std::exception& e) {
    return error(std::string("compile: ") + e.what());
  }
}

void release_compiled(TsrEpCompiled* c) { delete c; }

// Frees the group's temporaries however compute() ends.
struct Temporaries {
  sandbox::Arena& arena;
  std::vector<void*> blocks;
  ~Temporaries() {
    for (void* b : blocks) arena.free(b);
  }
};

void require_own(const sandbox::Arena& arena, const void* data, int64_t elements,
                 const std::string& what) {
  size_t bytes = size_t(elements) * sizeof(float);
  if (bytes && !arena.owns(data, bytes)) {
    char ptr[32];
    std::snprintf(ptr, sizeof ptr, "%p", data);
    throw sandbox::SandboxError{what + " at " + ptr + " (" + std::to_string(bytes) +
                                " bytes) is not sandbox device memory"};
  }
}

TsrEpError compute(const TsrEpCompiled* c, TsrEpComputeContext* ctx, const TsrEpTensor* inputs,
                   size_t num_inputs) {
  try {
    sandbox::Arena& arena = c->provider->arena;
    if (num_inputs != c->inputs.size())
      return error("compute: " + std::to_string(num_inputs) + " inputs, the group has " +
                   std::to_string(c->inputs.size()));
    std::map<std::string, sandbox::Tensor> env;
    for (size_t i = 0; i < num_inputs; ++i) {
      const TsrEpTensor& t = inputs[i];
      if (t.elem_type != 1) return error("input '" + c->inputs[i] + "' is not float32");
      sandbox::Tensor s{sandbox::Dims(t.dims, t.dims + t.rank), static_cast<float*>(t.data)};
      require_own(arena, s.data, s.size(), "input '" + c->inputs[i] + "'");
      env[c->inputs[i]] = std::move(s);
    }
    Temporaries temps{arena, {}};
    for (const auto& op : c->ops) {
      std::vector<const sandbox::Tensor*> in;
      for (const auto& v : op.inputs) in.push_back(v.empty() ? nullptr : &env.at(v));
      sandbox::Tensor out{sandbox::output_dims(op, in), nullptr};
      const std::string& name = op.outputs[0];
      size_t k = 0;
      while (k < c->outputs.size() && c->outputs[k] != name) ++k;
      if (k < c->outputs.size()) {
        out.data = static_cast<float*>(
            g_host->allocate_output(ctx, k, 1, out.dims.size(), out.dims.data()));
        if (!out.data) return error("could not allocate output '" + name + "'");
        require_own(arena, out.data, out.size(), "output '" + name + "'");
      } else {
        out.data = static_cast<float*>(arena.alloc(size_t(out.size()) * sizeof(float)));
        if (!out.data) return error("out of sandbox memory for '" + name + "'");
        temps.blocks.push_back(out.data);
      }
      sandbox::run_op(op, in, out);
      env[name] = std::move(out);
    }
    return nullptr;
  } catch (const sandbox::SandboxError& e) {
    return error(e.message);
  } catch (const std::exception& e) {
    return error(std::string("compute: ") + e.what());
  }
}

void* alloc(TsrEpProvider* p, size_t bytes) { return p->arena.alloc(bytes); }
void free_block(TsrEpProvider* p, void* data) { p->arena.free(data); }

int can_copy(const TsrEpProvider*, const TsrEpMemory* src, const TsrEpMemory* dst) {
  bool s = sandbox::is_device(*src), d = sandbox::is_device(*dst);
  return (s || d) && (s || src->host_accessible) && (d || dst->host_accessible);
}

TsrEpError copy(const TsrEpProvider* p, const TsrEpCopy* copies, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    std::string failure = sandbox::copy_checked(p->arena, copies[i]);
    if (!failure.empty()) return error("copy " + std::to_string(i) + ": " + failure);
  }
  return nullptr;
}

// Streams: each has a worker thread of its own (sandbox_stream.hpp).
TsrEpError create_stream(TsrEpProvider* p, TsrEpStream** out) {
  try {
    *out = new TsrEpStream{p, sandbox::Stream(p->arena, p->stream_delay)};
    sandbox::counters().live_streams++;
    return nullptr;
  } catch (const std::exception& e) {
    return error(std::string("create_stream: ") + e.what());
  }
}

TsrEpError copy_async(TsrEpProvider* p, TsrEpStream* s, const TsrEpCopy* copies, size_t count) {
  if (s->provider != p) return error("copy_async: the stream belongs to another provider");
  try {
    s->queue.enqueue(copies, count);
    return nullptr;
  } catch (const std::exception& e) {
    return error(std::string("copy_async: ") + e.what());
  }
}

TsrEpError stream_synchronize(TsrEpStream* s) {
  std::string failure = s->queue.synchronize();
  return failure.empty() ? nullptr : error(failure);
}

TsrEpError release_stream(TsrEpStream* s) {
  std::string failure = s->queue.finish();
  delete s;
  sandbox::counters().live_streams--;
  return failure.empty() ? nullptr : error(failure);
}

int is_available(const char**) { return 1; }

size_t devices(const TsrEpDevice** out) {
  static const TsrEpDevice device = {TSR_EP_DEVICE_GPU, kVendor, 0,
                                     "sandbox device (host memory kept apart, checked)"};
  *out = &device;
  return 1;
}

TsrEpError create_provider(const char* const* keys, const char* const* values, size_t count,
                           TsrEpProvider** out) {
  auto p = std::make_unique<TsrEpProvider>();
  for (size_t i = 0; i < count; ++i) {
    std::string key = keys[i], value = values[i];
    if (key == "fuse") {
      if (value != "0" && value != "1")
        return error("option 'fuse' must be 0 or 1, got '" + value + "'");
      p->fuse = value == "1";
    } else if (key == "stream_delay_ms") {
      char* end = nullptr;
      long ms = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end || ms < 0 || ms > 10000)
        return error("option 'stream_delay_ms' must be an integer from 0 to 10000, got '" + value +
                     "'");
      p->stream_delay = std::chrono::milliseconds(ms);
    } else {
      return error("unknown option '" + key +
                   "'; valid options are: fuse (0 or 1), stream_delay_ms (0 to 10000)");
    }
  }
  *out = p.release();
  sandbox::counters().live_providers++;
  return nullptr;
}

void release_provider(TsrEpProvider* p) {
  delete p;
  sandbox::counters().live_providers--;
}

const TsrEpProviderApi kProviderApi = {.memory = memory,
                                       .get_capability = get_capability,
                                       .compile = compile,
                                       .compute = compute,
                                       .release_compiled = release_compiled,
                                       .alloc = alloc,
                                       .free = free_block,
                                       .can_copy = can_copy,
                                       .copy = copy,
                                       .synchronize = nullptr,  // compute and copy finish on return
                                       .create_stream = create_stream,
                                       .copy_async = copy_async,
                                       .stream_synchronize = stream_synchronize,
                                       .release_stream = release_stream};

const TsrEpFactoryApi kFactoryApi = {
    TESSERA_EP_ABI_VERSION, kName,   "Tessera sandbox", "1.0",
    is_available,           devices, create_provider,   release_provider,
    &kProviderApi};

}  // namespace

extern "C" __attribute__((visibility("default"))) uint32_t tessera_ep_abi_version(void) {
  return TESSERA_EP_ABI_VERSION;
}

// A test hook, not part of the plugin ABI: the tests dlsym it to see what the
// sandbox did. Names: "live_providers" and "live_streams" (created, not yet
// released), "live_arenas" (device memories alive: 1 while any provider is),
// "stream_copies" (copies made by stream worker threads since the library
// was loaded). UINT64_MAX for any other name.
extern "C" __attribute__((visibility("default"))) uint64_t tessera_sandbox_counter(
    const char* name) {
  const sandbox::Counters& c = sandbox::counters();
  std::string n = name ? name : "";
  if (n == "live_providers") return c.live_providers;
  if (n == "live_arenas") return c.live_arenas;
  if (n == "live_streams") return c.live_streams;
  if (n == "stream_copies") return c.stream_copies;
  return UINT64_MAX;
}

extern "C" __attribute__((visibility("default"))) const TsrEpFactoryApi* tessera_ep_factory(
    const TsrEpHostApi* host) {
  if (!host || host->abi_version != TESSERA_EP_ABI_VERSION) return nullptr;
  g_host = host;
  return &kFactoryApi;
}
