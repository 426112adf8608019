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

/* Bumped on every incompatible change to the structs or functions below. */
#define TESSERA_EP_ABI_VERSION 1u

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
 * and compiled groups. */
typedef struct TsrEpGraph TsrEpGraph;
typedef struct TsrEpCapability TsrEpCapability;
typedef struct TsrEpComputeContext TsrEpComputeContext;
typedef struct TsrEpProvider TsrEpProvider;
typedef struct TsrEpCompiled TsrEpCompiled;

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
   * (synchronous when there is no stream). */
  int (*can_copy)(const TsrEpProvider* p, const TsrEpMemory* src, const TsrEpMemory* dst);
  TsrEpError (*copy)(const TsrEpProvider* p, const TsrEpCopy* copies, size_t count);
  /* Streams: NULL for a synchronous provider. Otherwise waits until all work
   * queued by compute() and copy() is done; the runtime calls it before host
   * code reads anything the provider wrote. */
  TsrEpError (*synchronize)(const TsrEpProvider* p);
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
