/* Tessera's C ABI for execution-provider plugins.
 *
 * A plugin is a shared library that exports two symbols:
 *
 *   uint32_t tessera_ep_abi_version(void);
 *       returns TESSERA_EP_ABI_VERSION as the plugin saw it when built. The
 *       runtime refuses a library whose version differs from its own.
 *   const TsrEpFactoryApi* tessera_ep_factory(const TsrEpHostApi* host);
 *       returns the plugin's factory table (static storage). `host` stays
 *       valid while the library is loaded.
 *
 * Everything crossing this boundary is a plain C type: the plugin never sees
 * the runtime's C++ classes, and the runtime never sees the plugin's. Errors
 * are returned as a `const char*` message (NULL means success); the plugin
 * owns the text, which must stay valid until its next call on the same
 * thread. Element types are ONNX TensorProto.DataType numbers (1 = float).
 * docs/writing-a-provider.md walks through the sandbox plugin that uses all of it.
 */
#ifndef TESSERA_EP_API_H
#define TESSERA_EP_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on every incompatible change to the structs or functions below.
 * 2: streams (create_stream, copy_async, stream_synchronize, release_stream). */
#define TESSERA_EP_ABI_VERSION 2u

typedef const char* TsrEpError; /* NULL: success; else a message owned by the plugin */

enum {
  TSR_EP_DEVICE_CPU = 0,
  TSR_EP_DEVICE_GPU = 1,
  TSR_EP_DEVICE_NPU = 2,
  TSR_EP_DEVICE_FPGA = 3
};

/* A memory space. Two tensors need a copy between them unless both are
 * host-accessible or all of device_type, vendor_id and device_id agree. */
typedef struct TsrEpMemory {
  int32_t device_type; /* TSR_EP_DEVICE_* */
  uint32_t vendor_id;
  int32_t device_id;
  int32_t host_accessible; /* nonzero: host code may read and write it directly */
} TsrEpMemory;

/* A hardware device the factory can run on. */
typedef struct TsrEpDevice {
  int32_t device_type;
  uint32_t vendor_id;
  int32_t device_id;
  const char* description;
} TsrEpDevice;

/* A dense, row-major tensor. `data` is in the memory the tensor's owner says. */
typedef struct TsrEpTensor {
  int32_t elem_type;
  size_t rank;
  const int64_t* dims;
  void* data;
} TsrEpTensor;

/* Opaque handles. The runtime owns graphs, capabilities and compute contexts
 * (valid only during the call they are passed to); the plugin owns providers
 * and compiled groups, and the streams it hands out (until release_stream). */
typedef struct TsrEpGraph TsrEpGraph;
typedef struct TsrEpCapability TsrEpCapability;
typedef struct TsrEpComputeContext TsrEpComputeContext;
typedef struct TsrEpProvider TsrEpProvider;
typedef struct TsrEpCompiled TsrEpCompiled;
typedef struct TsrEpStream TsrEpStream; /* a provider's ordered work queue (plugin-owned) */

/* Functions the runtime gives the plugin: a read-only view of the graph being
 * partitioned, the capability answer, and output allocation during compute.
 * Strings returned stay valid during the call that received the graph. */
typedef struct TsrEpHostApi {
  uint32_t abi_version;
  /* Graph: nodes by index. An omitted optional input is "". */
  size_t (*num_nodes)(const TsrEpGraph* g);
  const char* (*node_name)(const TsrEpGraph* g, size_t node);
  const char* (*node_op_type)(const TsrEpGraph* g, size_t node);
  const char* (*node_domain)(const TsrEpGraph* g, size_t node); /* "" is ai.onnx */
  int64_t (*node_opset)(const TsrEpGraph* g, size_t node);
  size_t (*node_num_inputs)(const TsrEpGraph* g, size_t node);
  const char* (*node_input)(const TsrEpGraph* g, size_t node, size_t i);
  size_t (*node_num_outputs)(const TsrEpGraph* g, size_t node);
  const char* (*node_output)(const TsrEpGraph* g, size_t node, size_t i);
  /* Static type of a value: returns 0 when unknown or not a tensor. *rank is
   * -1 when the rank is unknown; unknown dims are -1. At most max_dims dims
   * are written. */
  int (*value_type)(const TsrEpGraph* g, const char* value, int32_t* elem_type, int64_t* rank,
                    int64_t* dims, size_t max_dims);
  /* A value fixed for the session (an initializer no input overrides), in host
   * memory: returns 1 and fills *out, else 0. */
  int (*value_constant)(const TsrEpGraph* g, const char* value, TsrEpTensor* out);
  /* Attributes: return 1 when present with that type, else 0. */
  int (*attr_int)(const TsrEpGraph* g, size_t node, const char* name, int64_t* out);
  int (*attr_float)(const TsrEpGraph* g, size_t node, const char* name, float* out);
  int (*attr_string)(const TsrEpGraph* g, size_t node, const char* name, const char** out);
  int (*attr_ints)(const TsrEpGraph* g, size_t node, const char* name, const int64_t** values,
                   size_t* count);
  /* Any attribute of that name, of any type (to decline unknown ones). */
  int (*has_attr)(const TsrEpGraph* g, size_t node, const char* name);
  size_t (*node_num_attrs)(const TsrEpGraph* g, size_t node);
  const char* (*node_attr_name)(const TsrEpGraph* g, size_t node, size_t i);

  /* Capability answer. fused != 0: the nodes are compiled together into one
   * callable. fused == 0: each node gets its own callable (a kernel). */
  void (*claim)(TsrEpCapability* cap, const size_t* nodes, size_t count, int fused);
  void (*decline)(TsrEpCapability* cap, size_t node, const char* reason);

  /* During compute: allocates output i (in the provider's memory, through its
   * allocator) and returns its data pointer; NULL on failure. Outputs the
   * runtime does not need may still be allocated; call it once per output. */
  void* (*allocate_output)(TsrEpComputeContext* ctx, size_t i, int32_t elem_type, size_t rank,
                           const int64_t* dims);
  size_t (*num_outputs)(const TsrEpComputeContext* ctx);
} TsrEpHostApi;

/* One copy between memory spaces. */
typedef struct TsrEpCopy {
  const void* src;
  TsrEpMemory src_memory;
  void* dst;
  TsrEpMemory dst_memory;
  size_t bytes;
} TsrEpCopy;

/* The provider: what it runs, how, and where its memory lives. */
typedef struct TsrEpProviderApi {
  void (*memory)(const TsrEpProvider* p, TsrEpMemory* out);
  /* Claims among `candidates` (node indices) with host->claim / host->decline. */
  TsrEpError (*get_capability)(const TsrEpProvider* p, const TsrEpGraph* g,
                               const size_t* candidates, size_t count, TsrEpCapability* cap);
  /* One callable for the nodes given (topological order). `inputs` and
   * `outputs` name the values crossing the group's boundary, in the order
   * compute() receives and produces them. The graph is valid only during
   * this call: copy what compute() needs. */
  TsrEpError (*compile)(const TsrEpProvider* p, const TsrEpGraph* g, const size_t* nodes,
                        size_t count, const char* const* inputs, size_t num_inputs,
                        const char* const* outputs, size_t num_outputs, TsrEpCompiled** out);
  /* Runs a compiled group; may be called from several threads at once. An
   * omitted optional input has data == NULL and rank 0. */
  TsrEpError (*compute)(const TsrEpCompiled* c, TsrEpComputeContext* ctx, const TsrEpTensor* inputs,
                        size_t num_inputs);
  void (*release_compiled)(TsrEpCompiled* c);
  /* The allocator of the provider's memory. */
  void* (*alloc)(TsrEpProvider* p, size_t bytes);
  void (*free)(TsrEpProvider* p, void* data);
  /* Data transfer: whether it can copy src -> dst, and a batch of copies
   * made at once (complete on return, or at synchronize() for a provider
   * that has it). Streams (below) queue copies asynchronously instead. */
  int (*can_copy)(const TsrEpProvider* p, const TsrEpMemory* src, const TsrEpMemory* dst);
  TsrEpError (*copy)(const TsrEpProvider* p, const TsrEpCopy* copies, size_t count);
  /* NULL for a provider whose compute() and copy() are complete on return.
   * Otherwise waits until all work queued by compute() and copy() is done;
   * the runtime calls it before host code reads anything the provider wrote. */
  TsrEpError (*synchronize)(const TsrEpProvider* p);

  /* Streams: ordered queues of asynchronous copies, created by the provider
   * and used by the runtime's copy_tensors(src, dst, stream). Optional: a
   * provider without streams leaves all four NULL (the runtime then copies
   * with copy() and gives callers a null stream); one with streams sets all
   * four (a table with some set and some NULL is refused at load time).
   *
   * Ownership and lifetime: a stream belongs to the provider that created
   * it and is owned by the runtime until it passes it to release_stream().
   * The runtime releases every stream before releasing its provider, and
   * passes a stream only to its own provider's copy_async().
   *
   * Threads: the runtime never calls two functions on the same stream at
   * once; different streams may be used from different threads at the same
   * time, and alongside the provider's other functions.
   *
   * Errors: every error of an asynchronous copy surfaces at the next
   * stream_synchronize() on that stream (never dropped); what a failed
   * stream does with the work queued after the failure is the plugin's
   * choice (the sandbox skips it), but stream_synchronize() must report the
   * first failure, and the stream must be usable again after reporting it. */

  /* Creates a stream on *out. An error here is raised to the caller of
   * create_stream(). */
  TsrEpError (*create_stream)(TsrEpProvider* p, TsrEpStream** out);
  /* Queues `count` copies on `s` after the work already queued there, and
   * returns without waiting for them. The array itself need not outlive the
   * call (copy what you need), but the memory each copy reads and writes
   * stays valid and unchanged until stream_synchronize() or release_stream()
   * returns. Returns an error only for what it can tell at once (e.g. a
   * stream of another provider); then nothing of this batch was queued.
   * Failures found while copying are kept for stream_synchronize(). */
  TsrEpError (*copy_async)(TsrEpProvider* p, TsrEpStream* s, const TsrEpCopy* copies, size_t count);
  /* Blocks until everything queued on `s` so far has finished. Returns NULL
   * when all of it succeeded, else the first failure since the previous
   * stream_synchronize() (a message saying which copy failed and why, owned
   * by the plugin as for every error). Either way the stream is idle and
   * usable afterwards. */
  TsrEpError (*stream_synchronize)(TsrEpStream* s);
  /* Finishes the work still queued on `s` (it runs, it is not dropped),
   * then frees the stream: nothing of its work runs after this returns.
   * Returns the first failure not yet reported by stream_synchronize(), or
   * NULL; the runtime logs it, since a destructor cannot raise it. `s` is
   * invalid afterwards whatever it returns. */
  TsrEpError (*release_stream)(TsrEpStream* s);
} TsrEpProviderApi;

/* The factory: who the plugin is, what it sees, and how to create providers. */
typedef struct TsrEpFactoryApi {
  uint32_t abi_version; /* TESSERA_EP_ABI_VERSION */
  const char* name;     /* the provider's name, e.g. "SandboxExecutionProvider" */
  const char* vendor;
  const char* version;
  /* Whether the provider can run here; on 0, *why_not says why. */
  int (*is_available)(const char** why_not);
  /* The devices it sees; returns the count and points *devices at them. */
  size_t (*devices)(const TsrEpDevice** devices);
  /* Validates options (an unknown key or bad value is an error listing the
   * valid ones) and creates a provider. */
  TsrEpError (*create_provider)(const char* const* keys, const char* const* values, size_t count,
                                TsrEpProvider** out);
  void (*release_provider)(TsrEpProvider* p);
  const TsrEpProviderApi* provider_api;
} TsrEpFactoryApi;

typedef uint32_t (*TsrEpAbiVersionFn)(void);
typedef const TsrEpFactoryApi* (*TsrEpFactoryFn)(const TsrEpHostApi* host);

#define TESSERA_EP_ABI_VERSION_SYMBOL "tessera_ep_abi_version"
#define TESSERA_EP_FACTORY_SYMBOL "tessera_ep_factory"

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_EP_API_H */
