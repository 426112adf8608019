// CUDAExecutionProvider: device memory in an arena, copies on streams, and
// kernels from cuda_kernel.hpp's op table. A node is claimed only when its
// kernel supports the node's types, attributes and ranks; the rest falls back
// to the next provider with the reason in the partition report.
#include "providers/cuda/cuda_provider.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "core/arena_allocator.hpp"
#include "core/device.hpp"
#include "ep/provider_abilities.hpp"
#include "providers/cuda/arch_support.hpp"
#include "providers/cuda/cuda_allocator.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/cuda_math_ops.hpp"
#include "providers/cuda/cuda_transfer.hpp"
#include "providers/cuda/matmul_epilogue.hpp"
#include "providers/cuda/stream_gate.hpp"

namespace tessera::cuda {

namespace {

const std::string kName = "CUDAExecutionProvider";

void register_all(CudaOpTable& t) {
  register_cuda_elementwise(t);
  register_cuda_math_ops(t);
  register_cuda_binary_ops(t);
  register_cuda_quantize(t);
  register_cuda_norm(t);
  register_cuda_matmul(t);
  register_cuda_conv(t);
  register_cuda_shape_ops(t);
  register_cuda_views(t);
  register_cuda_cnn_ops(t);
  register_cuda_reduce(t);
  register_cuda_transformer_fusions(t);
  register_cuda_recurrent(t);
  register_cuda_index_ops(t);
}

// A CUDA graph of one recorded run, with the checks its kernels deferred
// (Gather's index flags), which each replay defers again.
class CudaCapturedRun : public ep::CapturedRun {
 public:
  CudaCapturedRun(int device, cudaGraphExec_t exec, std::vector<std::function<void()>> checks)
      : device_(device), exec_(exec), checks_(std::move(checks)) {}
  ~CudaCapturedRun() override {
    cudaSetDevice(device_);
    cudaGraphExecDestroy(exec_);
  }
  void replay(ep::Stream& stream) const override {
    CudaStream& s = cuda_stream(stream);
    check_cuda(cudaSetDevice(device_), "cudaSetDevice", where());
    check_cuda(cudaGraphLaunch(exec_, s.get()), "cudaGraphLaunch", where());
    for (const auto& c : checks_) s.defer_check(c);
  }

 private:
  std::string where() const { return str_cat(kName, " device ", device_, " (CUDA graph)"); }
  int device_;
  cudaGraphExec_t exec_;
  std::vector<std::function<void()>> checks_;
};

class CudaProvider : public ep::ExecutionProvider,
                     public ep::FusedCompiler,
                     public ep::RunStreamProvider,
                     public ep::RunCapturer {
 public:
  CudaProvider(const ep::ProviderOptions& options, const CudaOptions& parsed)
      : info_(cuda_memory_info(parsed.device_id)) {
    options_ = options;
    auto env = std::make_shared<const CudaEnv>(parsed, parsed.device_id);
    table_.env = env;
    register_all(table_);
    transfer_ = std::make_unique<CudaDataTransfer>(env);
    streams_ = std::make_shared<StreamPool>(parsed.device_id);
    ArenaConfig arena;
    arena.extend = parsed.arena_extend_strategy;
    arena.memory_limit = parsed.gpu_mem_limit;
    allocator_ = std::make_shared<ArenaAllocator>(
        std::make_shared<CudaDeviceAllocator>(parsed.device_id), arena);
  }
  const std::string& name() const override { return kName; }
  const MemoryInfo& memory_info() const override { return info_; }
  // The arena with this provider's gpu_mem_limit; sessions use it as it is.
  std::shared_ptr<Allocator> allocator() const override { return allocator_; }
  const ep::KernelRegistry& kernel_registry() const override { return table_.registry; }
  const ep::DataTransfer* data_transfer() const override { return transfer_.get(); }
  std::unique_ptr<ep::Stream> create_stream() const override {
    return std::make_unique<CudaStream>(table_.env->device());
  }
  // A run's kernels and copies queue on: the run's "cuda.compute_stream"
  // entry, else the user_compute_stream option, else a pooled stream of its
  // own, so concurrent runs do not wait for each other.
  std::unique_ptr<ep::Stream> run_stream(
      const std::map<std::string, std::string>* run_config) const override {
    const int device = table_.env->device();
    uintptr_t caller = table_.env->options().user_compute_stream;
    if (run_config)
      if (auto it = run_config->find(kRunStreamKey); it != run_config->end())
        caller = parse_run_stream(it->second);
    if (!caller) return streams_->lease();
    // Under CUDA graphs, runs sharing a caller's stream take turns: another
    // run's work queued while this one captures would be recorded into it.
    std::function<void(cudaStream_t)> release;
    if (capture_runs())
      release = [token = enter_stream_gate(device, caller)](cudaStream_t) mutable {
        token.reset();
      };
    return std::make_unique<CudaStream>(device, reinterpret_cast<cudaStream_t>(caller),
                                        std::move(release));
  }
  bool capture_runs() const override { return table_.env->options().enable_cuda_graph; }
  // Relaxed mode: a kernel may still grow the arena (cudaMalloc) while its
  // work is being recorded; the recorded run keeps that memory.
  void begin_capture(ep::Stream& stream) const override {
    CudaStream& s = cuda_stream(stream);
    table_.env->set_device();
    check_cuda(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeRelaxed),
               "cudaStreamBeginCapture", table_.env->where());
    s.record_checks();
  }
  std::unique_ptr<ep::CapturedRun> end_capture(ep::Stream& stream) const override {
    CudaStream& s = cuda_stream(stream);
    std::vector<std::function<void()>> checks = s.take_recorded_checks();
    table_.env->set_device();
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(s.get(), &graph);
    if (ended != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      // The call that broke the capture left its error as this thread's
      // last one; the next launch check must not take it for its own.
      cudaGetLastError();
    }
    check_cuda(ended,
               "cudaStreamEndCapture (a kernel of the run did what a CUDA graph cannot hold, "
               "such as waiting for the stream)",
               table_.env->where());
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check_cuda(made, "cudaGraphInstantiate", table_.env->where());
    return std::make_unique<CudaCapturedRun>(table_.env->device(), exec, std::move(checks));
  }

  ep::Capability get_capability(const ep::GraphView& view) const override {
    ep::Capability cap;
    const std::vector<bool> on_host = host_shape_nodes(view);
    std::vector<bool> claimed(view.graph->nodes.size(), false);
    for (size_t idx : view.candidates) {
      std::string why = on_host[idx] ? kHostShapeReason : claim_check(view, idx);
      if (why.empty())
        claimed[idx] = true;
      else
        cap.declined.push_back({idx, why});
    }
    // MatMul + bias (+ Relu) run as one step; every other node alone.
    std::vector<bool> grouped(claimed.size(), false);
    for (const auto& e : find_matmul_epilogues(view, claimed)) {
      cap.groups.push_back({e.nodes, true});
      for (size_t n : e.nodes) grouped[n] = true;
    }
    for (size_t idx : view.candidates)
      if (claimed[idx] && !grouped[idx]) cap.groups.push_back({{idx}, false});
    return cap;
  }

  std::vector<std::unique_ptr<ep::OpKernel>> compile(
      const ep::GraphView& view, const std::vector<ep::FusedGroup>& groups) const override {
    std::vector<std::unique_ptr<ep::OpKernel>> out;
    for (const auto& g : groups) out.push_back(make_matmul_epilogue(table_.env, view, g));
    return out;
  }

 private:
  static constexpr const char* kHostShapeReason =
      "computes a shape from host integers (Shape/Size outputs, constants): left to the CPU, "
      "which saves a copy to the device and back for each such node";

  // Shape computations stay on the host. Shape and Size write their dims in
  // host memory; a node that reads only such values or integer constants and
  // writes only integers (Gather, Concat, Unsqueeze... of dims) is left to the
  // CPU provider, whose result Reshape or Expand then reads where it is.
  // Here each would cost a copy in, a kernel and its synchronisation.
  static std::vector<bool> host_shape_nodes(const ep::GraphView& view) {
    const auto& nodes = view.graph->nodes;
    std::vector<bool> mark(nodes.size(), false);
    std::unordered_set<std::string> host_ints;
    auto is_int = [&](const std::string& v) {
      const ir::TypeInfo* t = view.type_of(v);
      return t && t->is_tensor() &&
             (t->elem_type == DataType::kInt64 || t->elem_type == DataType::kInt32);
    };
    for (const auto& [name, t] : view.graph->initializers)
      if (t.dtype() == DataType::kInt64 || t.dtype() == DataType::kInt32) host_ints.insert(name);
    for (const auto& in : view.graph->inputs) host_ints.erase(in.name);  // overridable
    std::vector<bool> candidate(nodes.size(), false);
    for (size_t idx : view.candidates) candidate[idx] = true;
    // Node order need not be topological here: repeat until nothing changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t idx = 0; idx < nodes.size(); ++idx) {
        const ir::Node& n = nodes[idx];
        if (mark[idx] || !candidate[idx] || n.inputs.empty()) continue;
        bool host = n.op_type == "Shape" || n.op_type == "Size";
        if (!host) {
          host = true;
          for (const auto& in : n.inputs) host &= in.empty() || host_ints.count(in) > 0;
          for (const auto& out : n.outputs) host &= out.empty() || is_int(out);
        }
        if (!host) continue;
        for (const auto& out : n.outputs)
          if (!out.empty()) changed |= host_ints.insert(out).second;
        // Shape and Size themselves run here (their outputs are host values).
        if (n.op_type != "Shape" && n.op_type != "Size") {
          mark[idx] = true;
          changed = true;
        }
      }
    }
    return mark;
  }

  // "" when a kernel here runs the node, else why not.
  std::string claim_check(const ep::GraphView& view, size_t idx) const {
    const ir::Node& node = view.graph->nodes[idx];
    auto m = ep::lookup_kernel(table_.registry, view, node);
    if (!m.entry) return m.reason.empty() ? "no CUDA kernel for this node" : m.reason;
    // The registry lets an unknown type through (it cannot tell it from an
    // omitted input), but an unknown static type could turn out to be anything
    // at run time: every input a type constraint covers must be known.
    auto types = view.input_types(node);
    for (const auto& c : m.entry->def.constraints)
      for (int idx : c.inputs) {
        const size_t last = c.variadic && idx == c.inputs.back() ? types.size() : size_t(idx) + 1;
        for (size_t k = size_t(idx); k < last && k < types.size(); ++k)
          if (!node.inputs[k].empty() && types[k] == DataType::kUndefined)
            return str_cat("input ", k, "'s static type is not known (constraint ", c.name,
                           " needs it)");
      }
    return table_.checks.at(node.op_type)(ep::ClaimQuery(view, node));
  }

  MemoryInfo info_;
  CudaOpTable table_;
  std::unique_ptr<CudaDataTransfer> transfer_;
  std::shared_ptr<Allocator> allocator_;
  std::shared_ptr<StreamPool> streams_;
};

// The architectures this build has kernels for (CMAKE_CUDA_ARCHITECTURES).
const std::vector<BuiltArch>& built_archs() {
  static const std::vector<BuiltArch> archs = parse_built_archs(TESSERA_CUDA_ARCHITECTURES);
  return archs;
}

struct DeviceInfo {
  std::string name;
  int capability = 0;  // major * 10 + minor
  size_t memory = 0;
};

DeviceInfo device_info(int device) {
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties",
             str_cat(kName, " device ", device));
  return {p.name, p.major * 10 + p.minor, p.totalGlobalMem};
}

struct Usable {
  std::vector<int> devices;
  std::vector<std::string> names;  // per device id
  std::string why_not;             // when `devices` is empty
};

// The devices this build can run on, or why none; asked once per process
// (is_available() is called on every copy_tensors()).
const Usable& usable() {
  static const Usable u = [] {
    Usable out;
    const CudaProbe& probe = cuda_probe();
    if (probe.device_count == 0) {
      out.why_not = probe.why_not;
      return out;
    }
    for (int d = 0; d < probe.device_count; ++d) {
      DeviceInfo info;
      try {
        info = device_info(d);
      } catch (const Error& e) {
        out.why_not += str_cat(out.why_not.empty() ? "" : "; ", e.what());
        out.names.push_back("");
        continue;
      }
      out.names.push_back(info.name);
      if (kernels_for_device(built_archs(), info.capability).empty())
        out.why_not +=
            str_cat(out.why_not.empty() ? "" : "; ", "device ", d, " (", info.name, ", sm_",
                    info.capability, ") has no kernels in this build, which has code for ",
                    describe_built_archs(built_archs()),
                    "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=", info.capability);
      else
        out.devices.push_back(d);
    }
    return out;
  }();
  return u;
}

std::vector<int> usable_devices(std::string* why_not) {
  const Usable& u = usable();
  if (u.devices.empty() && why_not) *why_not = u.why_not;
  return u.devices;
}

std::string library_of(const void* symbol) {
  Dl_info where{};
  return dladdr(symbol, &where) && where.dli_fname ? where.dli_fname : "(unknown path)";
}

std::string version_string(int v, int major_div, int minor_div) {
  return str_cat(v / major_div, ".", (v % major_div) / minor_div);
}

class CudaProviderFactory : public ep::ProviderFactory,
                            public ep::FactoryDiagnostics,
                            public ep::KernelCatalog {
 public:
  CudaProviderFactory() { register_all(catalog_); }
  const std::string& name() const override { return kName; }
  bool is_available(std::string* why_not) const override {
    std::string why;
    const bool ok = !usable_devices(&why).empty();
    if (!ok && why_not) *why_not = why;
    return ok;
  }
  std::shared_ptr<ep::ExecutionProvider> create(const ep::ProviderOptions& o) const override {
    // Options first: a bad one is the caller's to fix on any machine.
    const CudaOptions parsed = parse_cuda_options(o, cuda_probe().device_count);
    std::string why;
    const std::vector<int> usable = usable_devices(&why);
    if (usable.empty()) fail(ErrorCode::kEPFail, kName, " is not available: ", why);
    if (std::find(usable.begin(), usable.end(), parsed.device_id) == usable.end())
      fail(ErrorCode::kInvalidArgument, kName, ": device_id ", parsed.device_id,
           " is a GPU this build has no kernels for (it has code for ",
           describe_built_archs(built_archs()), ")");
    return std::make_shared<CudaProvider>(o, parsed);
  }
  std::vector<HardwareDevice> devices() const override {
    std::vector<HardwareDevice> out;
    for (int d : usable().devices)
      out.push_back({DeviceType::kGPU, kNvidiaVendorId, d, usable().names[size_t(d)]});
    return out;
  }
  const ep::KernelRegistry& kernel_catalog() const override { return catalog_.registry; }

  std::vector<std::string> diagnostics() const override {
    const CudaProbe& p = cuda_probe();
    std::vector<std::string> lines;
    lines.push_back(str_cat("CUDA runtime ", version_string(p.runtime_version, 1000, 10),
                            ", loaded from ",
                            library_of(reinterpret_cast<const void*>(&cudaGetDeviceCount))));
    lines.push_back(p.driver_version ? str_cat("CUDA driver: supports CUDA ",
                                               version_string(p.driver_version, 1000, 10))
                                     : std::string("CUDA driver: none found (no libcuda.so.1)"));
    const size_t v = cudnnGetVersion();
    lines.push_back(str_cat(
        "cuDNN ", v / 10000, ".", (v % 10000) / 100, ".", v % 100, ", loaded from ",
        library_of(reinterpret_cast<const void*>(&cudnnGetVersion)), " (built with ", CUDNN_MAJOR,
        ".", CUDNN_MINOR, ".", CUDNN_PATCHLEVEL, "; ", CUDNN_MAJOR, ".x required)"));
    try {
      const CublasLtApi& lt = cublaslt();
      lines.push_back(str_cat("cuBLASLt ", lt.version / 10000, ".", (lt.version % 10000) / 100, ".",
                              lt.version % 100, ", loaded from ", lt.path,
                              " (opened at run time; tried ", TESSERA_CUBLASLT_SONAME, ", then ",
                              TESSERA_CUBLASLT_PATH, ")"));
    } catch (const Error& e) {
      lines.push_back(str_cat("cuBLASLt: ", e.what()));
    }
    lines.push_back(
        str_cat("kernels built for GPU architectures: ", describe_built_archs(built_archs())));
    lines.push_back(str_cat("devices: ", p.device_count));
    for (int d = 0; d < p.device_count; ++d) {
      try {
        DeviceInfo info = device_info(d);
        const std::string kernels = kernels_for_device(built_archs(), info.capability);
        lines.push_back(
            str_cat("device ", d, ": ", info.name, ", compute capability ", info.capability / 10,
                    ".", info.capability % 10, ", ", info.memory >> 20,
                    " MiB; kernels: ", kernels.empty() ? "none in this build" : kernels));
      } catch (const Error& e) {
        lines.push_back(str_cat("device ", d, ": ", e.what()));
      }
    }
    return lines;
  }

 private:
  CudaOpTable catalog_;  // no env: listed by `tessera ops`, never run
};

}  // namespace

std::shared_ptr<ep::ProviderFactory> make_cuda_provider_factory() {
  return std::make_shared<CudaProviderFactory>();
}

std::shared_ptr<ep::ExecutionProvider> make_cuda_provider_unchecked(
    const ep::ProviderOptions& options) {
  return std::make_shared<CudaProvider>(options, parse_cuda_options(options, 0));
}

uintptr_t cuda_stream_handle(const ep::Stream* stream) {
  const auto* s = dynamic_cast<const CudaStream*>(stream);
  check(s != nullptr, kName, ": cuda_stream_handle: not a CUDA stream");
  return reinterpret_cast<uintptr_t>(s->get());
}

}  // namespace tessera::cuda
