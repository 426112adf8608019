// One call of a custom op's compute (OrtKernelContext): the node's inputs,
// its outputs allocated on request with the shape the op gives, the run's
// allocator, scratch memory, the session's thread pool and a logger.
#include "capi/allocators.hpp"
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "core/logging.hpp"

namespace tessera::capi {
namespace {

OrtKernelContext& kc(const OrtKernelContext* context) {
  need(context, "kernel context");
  need(context->ctx, "kernel context");
  return const_cast<OrtKernelContext&>(*context);
}

void check_host_memory(const OrtMemoryInfo* mem_info) {
  need(mem_info, "memory info");
  check(mem_info->info.host_accessible(), "custom ops run on the CPU provider, which has no ",
        mem_info->info.to_string(), " memory");
}

}  // namespace

OrtStatus* ORT_API_CALL KernelContext_GetInputCount(const OrtKernelContext* context,
                                                    size_t* out) noexcept {
  return guard("KernelContext_GetInputCount", [&] {
    need(out, "out");
    *out = kc(context).ctx->num_inputs();
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetOutputCount(const OrtKernelContext* context,
                                                     size_t* out) noexcept {
  return guard("KernelContext_GetOutputCount", [&] {
    need(out, "out");
    *out = kc(context).ctx->num_outputs();
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetInput(const OrtKernelContext* context, size_t index,
                                               const OrtValue** out) noexcept {
  return guard("KernelContext_GetInput", [&] {
    need(out, "out");
    OrtKernelContext& c = kc(context);
    check(index < c.ctx->num_inputs(), c.ctx->node().describe(), ": input index ", index,
          " is out of range (the node has ", c.ctx->num_inputs(), ")");
    *out = nullptr;
    const Value* v = c.ctx->input_value(index);
    if (!v) return;  // an omitted optional input
    auto& slot = c.inputs[index];
    if (!slot) slot = std::make_unique<OrtValue>(*v);
    *out = slot.get();
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetOutput(OrtKernelContext* context, size_t index,
                                                const int64_t* dim_values, size_t dim_count,
                                                OrtValue** out) noexcept {
  return guard("KernelContext_GetOutput", [&] {
    need(out, "out");
    OrtKernelContext& c = kc(context);
    const ir::Node& node = c.ctx->node();
    check(index < c.ctx->num_outputs(), node.describe(), ": output index ", index,
          " is out of range (the node has ", c.ctx->num_outputs(), ")");
    if (dim_count > 0) need(dim_values, "dim_values");
    std::vector<int64_t> dims(dim_values, dim_values + dim_count);
    for (size_t i = 0; i < dim_count; ++i)
      check(dims[i] >= 0, node.describe(), ": dimension ", i, " of output ", index,
            " is negative (", dims[i], ")");
    Shape shape(std::move(dims));
    auto& slot = c.outputs[index];
    if (slot && slot->value.is_tensor() && slot->value.tensor().shape() == shape) {
      *out = slot.get();  // asked again with the same shape: the same tensor
      return;
    }
    DataType t = (*c.output_types)[index];
    if (t == DataType::kUndefined) t = c.ctx->output_type(index);
    check(t != DataType::kUndefined, node.describe(), ": the element type of output ", index,
          " is not known (the custom op declares it as any type and no input of any type gives "
          "it)");
    Tensor& tensor = c.ctx->output(index, shape, t);
    slot = std::make_unique<OrtValue>(Value(tensor));
    *out = slot.get();
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetAllocator(const OrtKernelContext* context,
                                                   const OrtMemoryInfo* mem_info,
                                                   OrtAllocator** out) noexcept {
  return guard("KernelContext_GetAllocator", [&] {
    need(out, "out");
    OrtKernelContext& c = kc(context);
    check_host_memory(mem_info);
    *out = new CApiAllocator(c.ctx->allocator() ? c.ctx->allocator() : default_cpu_allocator());
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetScratchBuffer(const OrtKernelContext* context,
                                                       const OrtMemoryInfo* mem_info,
                                                       size_t count_or_bytes, void** out) noexcept {
  return guard("KernelContext_GetScratchBuffer", [&] {
    need(out, "out");
    OrtKernelContext& c = kc(context);
    check_host_memory(mem_info);
    *out = nullptr;
    if (count_or_bytes == 0) return;
    std::shared_ptr<Allocator> a =
        c.ctx->allocator() ? c.ctx->allocator() : default_cpu_allocator();
    void* p = a->alloc(count_or_bytes);
    // Scratch memory lives until the compute call returns.
    c.scratch.emplace_back(p, [a](void* q) { a->free(q); });
    *out = p;
  });
}

OrtStatus* ORT_API_CALL KernelContext_ParallelFor(const OrtKernelContext* context,
                                                  void (*fn)(void*, size_t), size_t total,
                                                  size_t num_batch, void* usr_data) noexcept {
  return guard("KernelContext_ParallelFor", [&] {
    check(fn != nullptr, "fn is null");
    OrtKernelContext& c = kc(context);
    if (total == 0) return;
    if (total == 1) {
      fn(usr_data, 0);
      return;
    }
    ThreadPool& pool = c.ctx->thread_pool();
    // num_batch 0: the pool's own split; otherwise at most that many chunks.
    const int64_t n = static_cast<int64_t>(total);
    if (num_batch == 0 || num_batch >= total) {
      pool.parallel_for(n, 1e6, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) fn(usr_data, size_t(i));
      });
      return;
    }
    const int64_t batches = static_cast<int64_t>(num_batch);
    pool.parallel_for(batches, 1e6, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t begin = n * b / batches, end = n * (b + 1) / batches;
        for (int64_t i = begin; i < end; ++i) fn(usr_data, size_t(i));
      }
    });
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetGPUComputeStream(const OrtKernelContext* context,
                                                          void** out) noexcept {
  return guard("KernelContext_GetGPUComputeStream", [&] {
    need(out, "out");
    kc(context);
    *out = nullptr;  // custom ops run on the CPU provider: no stream
  });
}

// Resources are what a provider with streams and library handles (CUDA's
// stream, cuBLAS handle, ...) lends its kernels; custom ops run on the CPU
// provider, which has none, so every id answers null, as a CPU kernel gets.
OrtStatus* ORT_API_CALL KernelContext_GetResource(const OrtKernelContext* context,
                                                  int resource_version, int resource_id,
                                                  void** resource) noexcept {
  return guard("KernelContext_GetResource", [&] {
    need(resource, "resource");
    kc(context);
    check(resource_version >= 1, "resource_version ", resource_version,
          " is not a version (versions start at 1)");
    check(resource_id >= 0, "resource_id ", resource_id, " is negative");
    *resource = nullptr;
  });
}

// The run's stream for the kernel's provider: the CPU provider's kernels
// finish their work before they return, so there is none.
OrtStatus* ORT_API_CALL KernelContext_GetSyncStream(const OrtKernelContext* context,
                                                    OrtSyncStream** out) noexcept {
  return guard("KernelContext_GetSyncStream", [&] {
    need(out, "out");
    kc(context);
    *out = nullptr;
  });
}

// The tensor the caller bound to an output (IO binding, or Run's
// preallocated outputs): the kernel may write into it and skip GetOutput.
// Null when nothing is bound to that output.
OrtStatus* ORT_API_CALL KernelContext_GetPreallocatedOutput(const OrtKernelContext* context,
                                                            size_t output_index,
                                                            OrtValue** output) noexcept {
  return guard("KernelContext_GetPreallocatedOutput", [&] {
    need(output, "output");
    OrtKernelContext& c = kc(context);
    check(output_index < c.ctx->num_outputs(), c.ctx->node().describe(), ": output index ",
          output_index, " is out of range (the node has ", c.ctx->num_outputs(), ")");
    *output = nullptr;
    const Value* bound = c.ctx->bound_output(output_index);
    if (!bound) return;
    auto& slot = c.outputs[output_index];
    // The same handle GetOutput hands out for this tensor, so the two agree.
    if (!slot || !slot->value.is_tensor() ||
        slot->value.tensor().raw_data() != bound->tensor().raw_data())
      slot = std::make_unique<OrtValue>(*bound);
    *output = slot.get();
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetLogger(const OrtKernelContext* context,
                                                const OrtLogger** logger) noexcept {
  return guard("KernelContext_GetLogger", [&] {
    need(logger, "logger");
    *logger = kc(context).logger;
  });
}

OrtStatus* ORT_API_CALL Logger_LogMessage(const OrtLogger* logger,
                                          OrtLoggingLevel log_severity_level, const char* message,
                                          const ORTCHAR_T* file_path, int line_number,
                                          const char* func_name) noexcept {
  return guard("Logger_LogMessage", [&] {
    need(logger, "logger");
    need(message, "message");
    const int level = static_cast<int>(log_severity_level);
    check(level >= 0 && level <= 4, "logging level ", level, " is not 0 (verbose) to 4 (fatal)");
    std::string where;
    if (file_path)
      where = str_cat(" (", file_path, ":", line_number, func_name ? " " : "",
                      func_name ? func_name : "", ")");
    log(static_cast<Severity>(level), logger->tag, message, where);
  });
}

OrtStatus* ORT_API_CALL Logger_GetLoggingSeverityLevel(const OrtLogger* logger,
                                                       OrtLoggingLevel* out) noexcept {
  return guard("Logger_GetLoggingSeverityLevel", [&] {
    need(logger, "logger");
    need(out, "out");
    *out = static_cast<OrtLoggingLevel>(active_log_severity());
  });
}

}  // namespace tessera::capi
