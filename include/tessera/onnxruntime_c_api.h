/* Tessera's C ABI: the function table and types of ONNX Runtime's C API
 * (OrtApi, API version 30), so that a program or language binding built
 * against ONNX Runtime runs on Tessera by loading libtessera.so instead.
 *
 * Layouts here are binary interface facts and must not change: the order of
 * the entries of OrtApi and OrtModelEditorApi (generated from
 * src/capi/api_entries.txt and src/capi/model_editor_entries.txt into
 * tessera/ort_api_table.h), the members of OrtAllocator and OrtCustomOp, and
 * the values of every enum. docs/c_api.md lists every entry with the API
 * version that introduced it and whether Tessera implements it; an entry it
 * does not implement returns an OrtStatus with ORT_NOT_IMPLEMENTED naming the
 * entry.
 *
 * Every function returning OrtStatus* returns NULL on success; a non-null
 * status is owned by the caller and given back with ReleaseStatus. */
#ifndef TESSERA_ONNXRUNTIME_C_API_H
#define TESSERA_ONNXRUNTIME_C_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORT_API_VERSION 30

#ifdef __cplusplus
extern "C" {
#define TESSERA_NOEXCEPT noexcept
#else
#define TESSERA_NOEXCEPT
#endif

/* Calling convention and character type of paths (narrow on every platform
 * Tessera builds for). */
#define ORT_API_CALL
#define ORTCHAR_T char
#ifndef ORT_TSTR
#define ORT_TSTR(X) X
#endif
#if defined(__GNUC__)
#define ORT_EXPORT __attribute__((visibility("default")))
#else
#define ORT_EXPORT
#endif

/* Element types of tensors. The numbering is ONNX Runtime's (it differs from
 * ONNX's TensorProto for the 2-bit types and float8e8m0). */
typedef enum ONNXTensorElementDataType {
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FNUZ,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2FNUZ,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT4,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0,
} ONNXTensorElementDataType;

typedef enum ONNXType {
  ONNX_TYPE_UNKNOWN,
  ONNX_TYPE_TENSOR,
  ONNX_TYPE_SEQUENCE,
  ONNX_TYPE_MAP,
  ONNX_TYPE_OPAQUE,
  ONNX_TYPE_SPARSETENSOR,
  ONNX_TYPE_OPTIONAL
} ONNXType;

typedef enum OrtSparseFormat {
  ORT_SPARSE_UNDEFINED = 0,
  ORT_SPARSE_COO = 0x1,
  ORT_SPARSE_CSRC = 0x2,
  ORT_SPARSE_BLOCK_SPARSE = 0x4
} OrtSparseFormat;

enum OrtSparseIndicesFormat {
  ORT_SPARSE_COO_INDICES,
  ORT_SPARSE_CSR_INNER_INDICES,
  ORT_SPARSE_CSR_OUTER_INDICES,
  ORT_SPARSE_BLOCK_SPARSE_INDICES
};

typedef enum OrtLoggingLevel {
  ORT_LOGGING_LEVEL_VERBOSE,
  ORT_LOGGING_LEVEL_INFO,
  ORT_LOGGING_LEVEL_WARNING,
  ORT_LOGGING_LEVEL_ERROR,
  ORT_LOGGING_LEVEL_FATAL,
} OrtLoggingLevel;

typedef enum OrtErrorCode {
  ORT_OK,
  ORT_FAIL,
  ORT_INVALID_ARGUMENT,
  ORT_NO_SUCHFILE,
  ORT_NO_MODEL,
  ORT_ENGINE_ERROR,
  ORT_RUNTIME_EXCEPTION,
  ORT_INVALID_PROTOBUF,
  ORT_MODEL_LOADED,
  ORT_NOT_IMPLEMENTED,
  ORT_INVALID_GRAPH,
  ORT_EP_FAIL,
  ORT_MODEL_LOAD_CANCELED,
  ORT_MODEL_REQUIRES_COMPILATION,
  ORT_NOT_FOUND,
  ORT_DEVICE_RESET,
} OrtErrorCode;

typedef enum OrtOpAttrType {
  ORT_OP_ATTR_UNDEFINED = 0,
  ORT_OP_ATTR_INT,
  ORT_OP_ATTR_INTS,
  ORT_OP_ATTR_FLOAT,
  ORT_OP_ATTR_FLOATS,
  ORT_OP_ATTR_STRING,
  ORT_OP_ATTR_STRINGS,
  ORT_OP_ATTR_GRAPH,
  ORT_OP_ATTR_TENSOR,
} OrtOpAttrType;

/* Handles: opaque to the application, created and released through the table. */
#define TESSERA_ORT_HANDLE(X) \
  struct Ort##X;              \
  typedef struct Ort##X Ort##X
TESSERA_ORT_HANDLE(Env);
TESSERA_ORT_HANDLE(Status);
TESSERA_ORT_HANDLE(MemoryInfo);
TESSERA_ORT_HANDLE(IoBinding);
TESSERA_ORT_HANDLE(Session);
TESSERA_ORT_HANDLE(Value);
TESSERA_ORT_HANDLE(RunOptions);
TESSERA_ORT_HANDLE(TypeInfo);
TESSERA_ORT_HANDLE(TensorTypeAndShapeInfo);
TESSERA_ORT_HANDLE(MapTypeInfo);
TESSERA_ORT_HANDLE(SequenceTypeInfo);
TESSERA_ORT_HANDLE(OptionalTypeInfo);
TESSERA_ORT_HANDLE(SessionOptions);
TESSERA_ORT_HANDLE(CustomOpDomain);
TESSERA_ORT_HANDLE(ModelMetadata);
TESSERA_ORT_HANDLE(ThreadPoolParams);
TESSERA_ORT_HANDLE(ThreadingOptions);
TESSERA_ORT_HANDLE(ArenaCfg);
TESSERA_ORT_HANDLE(PrepackedWeightsContainer);
TESSERA_ORT_HANDLE(TensorRTProviderOptionsV2);
TESSERA_ORT_HANDLE(NvTensorRtRtxProviderOptions);
TESSERA_ORT_HANDLE(CUDAProviderOptionsV2);
TESSERA_ORT_HANDLE(CANNProviderOptions);
TESSERA_ORT_HANDLE(DnnlProviderOptions);
TESSERA_ORT_HANDLE(Op);
TESSERA_ORT_HANDLE(OpAttr);
TESSERA_ORT_HANDLE(Logger);
TESSERA_ORT_HANDLE(ShapeInferContext);
TESSERA_ORT_HANDLE(LoraAdapter);
TESSERA_ORT_HANDLE(ValueInfo);
TESSERA_ORT_HANDLE(Node);
TESSERA_ORT_HANDLE(Graph);
TESSERA_ORT_HANDLE(Model);
TESSERA_ORT_HANDLE(ModelCompilationOptions);
TESSERA_ORT_HANDLE(HardwareDevice);
TESSERA_ORT_HANDLE(EpDevice);
TESSERA_ORT_HANDLE(KeyValuePairs);
TESSERA_ORT_HANDLE(SyncStream);
TESSERA_ORT_HANDLE(ExternalInitializerInfo);
TESSERA_ORT_HANDLE(ExternalResourceImporter);
TESSERA_ORT_HANDLE(ExternalMemoryHandle);
TESSERA_ORT_HANDLE(ExternalSemaphoreHandle);
TESSERA_ORT_HANDLE(DeviceEpIncompatibilityDetails);
TESSERA_ORT_HANDLE(EpAssignedSubgraph);
TESSERA_ORT_HANDLE(EpAssignedNode);
TESSERA_ORT_HANDLE(KernelInfo);
TESSERA_ORT_HANDLE(KernelContext);

typedef OrtStatus* OrtStatusPtr;
typedef void(ORT_API_CALL* OrtExperimentalFnPtr)(void);

/* An allocator the application and the runtime hand each other. Callers
 * built for older API versions fill only the first members; the runtime
 * reads the later ones only when `version` says they are there. */
typedef struct OrtAllocator {
  uint32_t version;
  void*(ORT_API_CALL* Alloc)(struct OrtAllocator* this_, size_t size);
  void(ORT_API_CALL* Free)(struct OrtAllocator* this_, void* p);
  const struct OrtMemoryInfo*(ORT_API_CALL* Info)(const struct OrtAllocator* this_);
  void*(ORT_API_CALL* Reserve)(struct OrtAllocator* this_, size_t size);
  OrtStatusPtr(ORT_API_CALL* GetStats)(const struct OrtAllocator* this_, OrtKeyValuePairs** out);
  void*(ORT_API_CALL* AllocOnStream)(struct OrtAllocator* this_, size_t size, OrtSyncStream* stream);
  OrtStatusPtr(ORT_API_CALL* Shrink)(struct OrtAllocator* this_);
} OrtAllocator;

typedef void(ORT_API_CALL* OrtLoggingFunction)(void* param, OrtLoggingLevel severity,
                                               const char* category, const char* logid,
                                               const char* code_location, const char* message);

typedef enum GraphOptimizationLevel {
  ORT_DISABLE_ALL = 0,
  ORT_ENABLE_BASIC = 1,
  ORT_ENABLE_EXTENDED = 2,
  ORT_ENABLE_LAYOUT = 3,
  ORT_ENABLE_ALL = 99
} GraphOptimizationLevel;

typedef enum ExecutionMode {
  ORT_SEQUENTIAL = 0,
  ORT_PARALLEL = 1,
} ExecutionMode;

typedef enum OrtLanguageProjection {
  ORT_PROJECTION_C = 0,
  ORT_PROJECTION_CPLUSPLUS = 1,
  ORT_PROJECTION_CSHARP = 2,
  ORT_PROJECTION_PYTHON = 3,
  ORT_PROJECTION_JAVA = 4,
  ORT_PROJECTION_WINML = 5,
  ORT_PROJECTION_NODEJS = 6,
} OrtLanguageProjection;

struct OrtCustomOp;
typedef struct OrtCustomOp OrtCustomOp;

typedef enum OrtAllocatorType {
  OrtInvalidAllocator = -1,
  OrtDeviceAllocator = 0,
  OrtArenaAllocator = 1,
  OrtReadOnlyAllocator = 2,
} OrtAllocatorType;

/* Which of a provider's memories: its default (device) memory, or host memory
 * it reads inputs from / writes outputs to. */
typedef enum OrtMemType {
  OrtMemTypeCPUInput = -2,
  OrtMemTypeCPUOutput = -1,
  OrtMemTypeCPU = OrtMemTypeCPUOutput,
  OrtMemTypeDefault = 0,
} OrtMemType;

typedef enum OrtDeviceMemoryType {
  OrtDeviceMemoryType_DEFAULT = 0,
  OrtDeviceMemoryType_HOST_ACCESSIBLE = 5,
} OrtDeviceMemoryType;

typedef enum OrtMemoryInfoDeviceType {
  OrtMemoryInfoDeviceType_CPU = 0,
  OrtMemoryInfoDeviceType_GPU = 1,
  OrtMemoryInfoDeviceType_FPGA = 2,
  OrtMemoryInfoDeviceType_NPU = 3,
} OrtMemoryInfoDeviceType;

typedef enum OrtHardwareDeviceType {
  OrtHardwareDeviceType_CPU,
  OrtHardwareDeviceType_GPU,
  OrtHardwareDeviceType_NPU
} OrtHardwareDeviceType;

typedef enum OrtExecutionProviderDevicePolicy {
  OrtExecutionProviderDevicePolicy_DEFAULT,
  OrtExecutionProviderDevicePolicy_PREFER_CPU,
  OrtExecutionProviderDevicePolicy_PREFER_NPU,
  OrtExecutionProviderDevicePolicy_PREFER_GPU,
  OrtExecutionProviderDevicePolicy_MAX_PERFORMANCE,
  OrtExecutionProviderDevicePolicy_MAX_EFFICIENCY,
  OrtExecutionProviderDevicePolicy_MIN_OVERALL_POWER,
} OrtExecutionProviderDevicePolicy;

typedef enum OrtDeviceEpIncompatibilityReason {
  OrtDeviceEpIncompatibility_NONE = 0,
  OrtDeviceEpIncompatibility_DRIVER_INCOMPATIBLE = 1 << 0,
  OrtDeviceEpIncompatibility_DEVICE_INCOMPATIBLE = 1 << 1,
  OrtDeviceEpIncompatibility_MISSING_DEPENDENCY = 1 << 2,
  OrtDeviceEpIncompatibility_UNKNOWN = (int)(1u << 31)
} OrtDeviceEpIncompatibilityReason;

/* Chooses up to `max_selected` of the offered (provider, device) pairs. */
typedef OrtStatus*(ORT_API_CALL* EpSelectionDelegate)(
    const OrtEpDevice** ep_devices, size_t num_devices, const OrtKeyValuePairs* model_metadata,
    const OrtKeyValuePairs* runtime_metadata, const OrtEpDevice** selected, size_t max_selected,
    size_t* num_selected, void* state);

typedef OrtStatus*(ORT_API_CALL* OrtWriteBufferFunc)(void* state, const void* buffer,
                                                     size_t buffer_num_bytes);

typedef OrtStatus*(ORT_API_CALL* OrtGetInitializerLocationFunc)(
    void* state, const char* initializer_name, const OrtValue* initializer_value,
    const OrtExternalInitializerInfo* external_info,
    OrtExternalInitializerInfo** new_external_info);

/* Bits of ModelCompilationOptions_SetFlags: fail when compiling replaced no
 * node by a compiled one, or when the output file is already there. */
typedef enum OrtCompileApiFlags {
  OrtCompileApiFlags_NONE = 0,
  OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED = 1 << 0,
  OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_EXISTS = 1 << 1
} OrtCompileApiFlags;

typedef enum OrtCudnnConvAlgoSearch {
  OrtCudnnConvAlgoSearchExhaustive,
  OrtCudnnConvAlgoSearchHeuristic,
  OrtCudnnConvAlgoSearchDefault,
} OrtCudnnConvAlgoSearch;

/* Options of the struct-based CUDA appender (mapped onto Tessera's CUDA
 * provider options). */
typedef struct OrtCUDAProviderOptions {
#ifdef __cplusplus
  OrtCUDAProviderOptions()
      : device_id{},
        cudnn_conv_algo_search{OrtCudnnConvAlgoSearchExhaustive},
        gpu_mem_limit{SIZE_MAX},
        arena_extend_strategy{},
        do_copy_in_default_stream{1},
        has_user_compute_stream{},
        user_compute_stream{},
        default_memory_arena_cfg{},
        tunable_op_enable{false},
        tunable_op_tuning_enable{false},
        tunable_op_max_tuning_duration_ms{} {}
#endif
  int device_id;
  OrtCudnnConvAlgoSearch cudnn_conv_algo_search;
  size_t gpu_mem_limit;
  int arena_extend_strategy;
  int do_copy_in_default_stream;
  int has_user_compute_stream;
  void* user_compute_stream;
  OrtArenaCfg* default_memory_arena_cfg;
  int tunable_op_enable;
  int tunable_op_tuning_enable;
  int tunable_op_max_tuning_duration_ms;
} OrtCUDAProviderOptions;

typedef struct OrtROCMProviderOptions {
#ifdef __cplusplus
  OrtROCMProviderOptions()
      : device_id{},
        miopen_conv_exhaustive_search{0},
        gpu_mem_limit{SIZE_MAX},
        arena_extend_strategy{},
        do_copy_in_default_stream{1},
        has_user_compute_stream{},
        user_compute_stream{},
        default_memory_arena_cfg{},
        enable_hip_graph{false},
        tunable_op_enable{false},
        tunable_op_tuning_enable{false},
        tunable_op_max_tuning_duration_ms{} {}
#endif
  int device_id;
  int miopen_conv_exhaustive_search;
  size_t gpu_mem_limit;
  int arena_extend_strategy;
  int do_copy_in_default_stream;
  int has_user_compute_stream;
  void* user_compute_stream;
  OrtArenaCfg* default_memory_arena_cfg;
  int enable_hip_graph;
  int tunable_op_enable;
  int tunable_op_tuning_enable;
  int tunable_op_max_tuning_duration_ms;
} OrtROCMProviderOptions;

typedef struct OrtTensorRTProviderOptions {
  int device_id;
  int has_user_compute_stream;
  void* user_compute_stream;
  int trt_max_partition_iterations;
  int trt_min_subgraph_size;
  size_t trt_max_workspace_size;
  int trt_fp16_enable;
  int trt_int8_enable;
  const char* trt_int8_calibration_table_name;
  int trt_int8_use_native_calibration_table;
  int trt_dla_enable;
  int trt_dla_core;
  int trt_dump_subgraphs;
  int trt_engine_cache_enable;
  const char* trt_engine_cache_path;
  int trt_engine_decryption_enable;
  const char* trt_engine_decryption_lib_path;
  int trt_force_sequential_engine_build;
} OrtTensorRTProviderOptions;

typedef struct OrtMIGraphXProviderOptions {
  int device_id;
  int migraphx_fp16_enable;
  int migraphx_fp8_enable;
  int migraphx_int8_enable;
  int migraphx_use_native_calibration_table;
  const char* migraphx_int8_calibration_table_name;
  int migraphx_save_compiled_model;
  const char* migraphx_save_model_path;
  int migraphx_load_compiled_model;
  const char* migraphx_load_model_path;
  bool migraphx_exhaustive_tune;
  size_t migraphx_mem_limit;
  int migraphx_arena_extend_strategy;
} OrtMIGraphXProviderOptions;

typedef struct OrtOpenVINOProviderOptions {
#ifdef __cplusplus
  OrtOpenVINOProviderOptions()
      : device_type{},
        enable_npu_fast_compile{},
        device_id{},
        num_of_threads{},
        cache_dir{},
        context{},
        enable_opencl_throttling{},
        enable_dynamic_shapes{} {}
#endif
  const char* device_type;
  unsigned char enable_npu_fast_compile;
  const char* device_id;
  size_t num_of_threads;
  const char* cache_dir;
  void* context;
  unsigned char enable_opencl_throttling;
  unsigned char enable_dynamic_shapes;
} OrtOpenVINOProviderOptions;

struct OrtApi;
typedef struct OrtApi OrtApi;
struct OrtTrainingApi;
typedef struct OrtTrainingApi OrtTrainingApi;
struct OrtModelEditorApi;
typedef struct OrtModelEditorApi OrtModelEditorApi;
struct OrtCompileApi;
typedef struct OrtCompileApi OrtCompileApi;
struct OrtInteropApi;
typedef struct OrtInteropApi OrtInteropApi;
struct OrtEpApi;
typedef struct OrtEpApi OrtEpApi;

/* The one exported entry point's answer: the table for an API version
 * (1..ORT_API_VERSION; NULL above) and the runtime's version string. */
struct OrtApiBase {
  const OrtApi*(ORT_API_CALL* GetApi)(uint32_t version)TESSERA_NOEXCEPT;
  const char*(ORT_API_CALL* GetVersionString)(void)TESSERA_NOEXCEPT;
};
typedef struct OrtApiBase OrtApiBase;

ORT_EXPORT const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) TESSERA_NOEXCEPT;

/* Threads the application creates for the runtime's pools. */
typedef void (*OrtThreadWorkerFn)(void* ort_worker_fn_param);
typedef const struct OrtCustomHandleType {
  char __place_holder;
}* OrtCustomThreadHandle;
typedef OrtCustomThreadHandle (*OrtCustomCreateThreadFn)(void* ort_custom_thread_creation_options,
                                                         OrtThreadWorkerFn ort_thread_worker_fn,
                                                         void* ort_worker_fn_param);
typedef void (*OrtCustomJoinThreadFn)(OrtCustomThreadHandle ort_custom_thread_handle);

typedef void* (*OrtThreadPoolWorkEnqueueFn)(void* user_context)TESSERA_NOEXCEPT;
typedef void (*OrtThreadPoolWorkStartFn)(void* user_context, void* enqueue_data) TESSERA_NOEXCEPT;
typedef void (*OrtThreadPoolWorkStopFn)(void* user_context, void* enqueue_data) TESSERA_NOEXCEPT;
typedef void (*OrtThreadPoolWorkAbandonFn)(void* user_context, void* enqueue_data) TESSERA_NOEXCEPT;

typedef struct OrtThreadPoolCallbacksConfig {
  uint32_t version;
  OrtThreadPoolWorkEnqueueFn on_enqueue;
  OrtThreadPoolWorkStartFn on_start_work;
  OrtThreadPoolWorkStopFn on_stop_work;
  OrtThreadPoolWorkAbandonFn on_abandon;
  void* user_context;
} OrtThreadPoolCallbacksConfig;

/* What a custom-op library exports for RegisterCustomOpsLibrary(_V2). */
typedef OrtStatus*(ORT_API_CALL* RegisterCustomOpsFn)(OrtSessionOptions* options,
                                                      const OrtApiBase* api);

/* Called once by RunAsync, from a worker thread, with the run's outputs. */
typedef void (*RunAsyncCallbackFn)(void* user_data, OrtValue** outputs, size_t num_outputs,
                                   OrtStatusPtr status);

typedef enum OrtExternalMemoryHandleType {
  ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE = 0,
  ORT_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP = 1,
  ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_WIN32 = 2,
  ORT_EXTERNAL_MEMORY_HANDLE_TYPE_MEMORY_OPAQUE_FD = 3,
  ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION = 4,
} OrtExternalMemoryHandleType;

typedef struct OrtExternalMemoryDescriptor {
  uint32_t version;
  OrtExternalMemoryHandleType handle_type;
  void* native_handle;
  size_t size_bytes;
  size_t offset_bytes;
} OrtExternalMemoryDescriptor;

typedef enum OrtExternalSemaphoreType {
  ORT_EXTERNAL_SEMAPHORE_D3D12_FENCE = 0,
  ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_WIN32 = 1,
  ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD = 2,
} OrtExternalSemaphoreType;

typedef struct OrtExternalSemaphoreDescriptor {
  uint32_t version;
  OrtExternalSemaphoreType type;
  void* native_handle;
} OrtExternalSemaphoreDescriptor;

typedef enum OrtGraphicsApi {
  ORT_GRAPHICS_API_NONE = 0,
  ORT_GRAPHICS_API_D3D12 = 1,
  ORT_GRAPHICS_API_VULKAN = 2,
} OrtGraphicsApi;

typedef struct OrtGraphicsInteropConfig {
  uint32_t version;
  OrtGraphicsApi graphics_api;
  void* command_queue;
  const OrtKeyValuePairs* additional_options;
} OrtGraphicsInteropConfig;

typedef struct OrtExternalTensorDescriptor {
  uint32_t version;
  ONNXTensorElementDataType element_type;
  const int64_t* shape;
  size_t rank;
  size_t offset_bytes;
} OrtExternalTensorDescriptor;

typedef enum OrtCompiledModelCompatibility {
  OrtCompiledModelCompatibility_EP_NOT_APPLICABLE = 0,
  OrtCompiledModelCompatibility_EP_SUPPORTED_OPTIMAL,
  OrtCompiledModelCompatibility_EP_SUPPORTED_PREFER_RECOMPILATION,
  OrtCompiledModelCompatibility_EP_UNSUPPORTED,
} OrtCompiledModelCompatibility;

typedef struct OrtEnvCreationOptions {
  uint32_t version;
  int32_t logging_severity_level;
  const char* log_id;
  OrtLoggingFunction custom_logging_function;
  void* custom_logging_param;
  const OrtThreadingOptions* threading_options;
  const OrtKeyValuePairs* config_entries;
} OrtEnvCreationOptions;

#ifdef __cplusplus
}
#endif

/* struct OrtApi, generated from src/capi/api_entries.txt (named beside this
   file, so that -I<prefix>/include/onnxruntime alone finds it through
   include/onnxruntime/onnxruntime_c_api.h). */
#include "ort_api_table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum OrtCustomOpInputOutputCharacteristic {
  INPUT_OUTPUT_REQUIRED = 0,
  INPUT_OUTPUT_OPTIONAL,
  INPUT_OUTPUT_VARIADIC,
} OrtCustomOpInputOutputCharacteristic;

/* An operator implemented by the application or a custom-op library. The
 * runtime reads the later members only when `version` says the library was
 * built with them. */
struct OrtCustomOp {
  uint32_t version;
  void*(ORT_API_CALL* CreateKernel)(const struct OrtCustomOp* op, const OrtApi* api,
                                    const OrtKernelInfo* info);
  const char*(ORT_API_CALL* GetName)(const struct OrtCustomOp* op);
  const char*(ORT_API_CALL* GetExecutionProviderType)(const struct OrtCustomOp* op);
  ONNXTensorElementDataType(ORT_API_CALL* GetInputType)(const struct OrtCustomOp* op,
                                                        size_t index);
  size_t(ORT_API_CALL* GetInputTypeCount)(const struct OrtCustomOp* op);
  ONNXTensorElementDataType(ORT_API_CALL* GetOutputType)(const struct OrtCustomOp* op,
                                                         size_t index);
  size_t(ORT_API_CALL* GetOutputTypeCount)(const struct OrtCustomOp* op);
  void(ORT_API_CALL* KernelCompute)(void* op_kernel, OrtKernelContext* context);
  void(ORT_API_CALL* KernelDestroy)(void* op_kernel);
  OrtCustomOpInputOutputCharacteristic(ORT_API_CALL* GetInputCharacteristic)(
      const struct OrtCustomOp* op, size_t index);
  OrtCustomOpInputOutputCharacteristic(ORT_API_CALL* GetOutputCharacteristic)(
      const struct OrtCustomOp* op, size_t index);
  OrtMemType(ORT_API_CALL* GetInputMemoryType)(const struct OrtCustomOp* op, size_t index);
  int(ORT_API_CALL* GetVariadicInputMinArity)(const struct OrtCustomOp* op);
  int(ORT_API_CALL* GetVariadicInputHomogeneity)(const struct OrtCustomOp* op);
  int(ORT_API_CALL* GetVariadicOutputMinArity)(const struct OrtCustomOp* op);
  int(ORT_API_CALL* GetVariadicOutputHomogeneity)(const struct OrtCustomOp* op);
  OrtStatusPtr(ORT_API_CALL* CreateKernelV2)(const struct OrtCustomOp* op, const OrtApi* api,
                                             const OrtKernelInfo* info, void** kernel);
  OrtStatusPtr(ORT_API_CALL* KernelComputeV2)(void* op_kernel, OrtKernelContext* context);
  OrtStatusPtr(ORT_API_CALL* InferOutputShapeFn)(const struct OrtCustomOp* op,
                                                 OrtShapeInferContext* context);
  int(ORT_API_CALL* GetStartVersion)(const struct OrtCustomOp* op);
  int(ORT_API_CALL* GetEndVersion)(const struct OrtCustomOp* op);
  size_t(ORT_API_CALL* GetMayInplace)(int** input_index, int** output_index);
  void(ORT_API_CALL* ReleaseMayInplace)(int* input_index, int* output_index);
  size_t(ORT_API_CALL* GetAliasMap)(int** input_index, int** output_index);
  void(ORT_API_CALL* ReleaseAliasMap)(int* input_index, int* output_index);
};

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_ONNXRUNTIME_C_API_H */
