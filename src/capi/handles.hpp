// What the C API's opaque handles are inside: each Ort* struct the header
// declares is defined here over Tessera's own objects. Handles are created by
// the table's Create* entries and freed by its Release* entries.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/value.hpp"
#include "ep/data_transfer.hpp"
#include "ep/execution_provider.hpp"
#include "ep/kernel.hpp"
#include "ir/type_info.hpp"
#include "runtime/environment.hpp"
#include "runtime/io_binding.hpp"
#include "runtime/session.hpp"
#include "runtime/session_options.hpp"
#include "tessera/onnxruntime_c_api.h"

struct OrtEnv {
  OrtLoggingLevel log_level = ORT_LOGGING_LEVEL_WARNING;
  std::string log_id;
  OrtLoggingFunction logger = nullptr;
  void* logger_param = nullptr;
  bool global_thread_pools = false;
  // SetPerSessionThreadPoolCallbacks: reported by the pools of sessions
  // created afterwards with threads of their own (version 0: none).
  OrtThreadPoolCallbacksConfig session_pool_callbacks{};
  int references = 0;  // the process has one environment, shared by every CreateEnv*
};

struct OrtThreadingOptions {
  int intra_op_threads = 0;
  int inter_op_threads = 0;
  bool allow_spinning = true;
  bool denormal_as_zero = false;
  std::string intra_op_affinity;
  // SetGlobalCustom*: how the global pools start and join their threads.
  OrtCustomCreateThreadFn create_thread = nullptr;
  void* thread_creation_options = nullptr;
  OrtCustomJoinThreadFn join_thread = nullptr;
};

struct OrtArenaCfg {
  tessera::ArenaConfig config;
};

struct OrtSessionOptions {
  tessera::SessionOptions options;
  std::vector<tessera::ProviderSpec> providers;  // in the order they were appended
  bool mem_pattern = true;
  bool per_session_threads = true;
  bool deterministic_compute = false;
  // SessionOptionsSetCustom*: how the session's own pools start and join
  // their threads.
  OrtCustomCreateThreadFn create_thread = nullptr;
  void* thread_creation_options = nullptr;
  OrtCustomJoinThreadFn join_thread = nullptr;
  // Chooses providers from the environment's devices at session creation
  // when no provider was appended.
  EpSelectionDelegate selection_delegate = nullptr;
  void* selection_state = nullptr;
  // SessionOptionsSetLoadCancellationFlag's flag: another thread may set it
  // while a session is created from these options. Copies take its value.
  struct CancelFlag {
    std::atomic<bool> set{false};
    CancelFlag() = default;
    CancelFlag(const CancelFlag& o) : set(o.set.load()) {}
    CancelFlag& operator=(const CancelFlag& o) {
      set = o.set.load();
      return *this;
    }
  } load_canceled;
};

struct OrtMemoryInfo {
  tessera::MemoryInfo info;
  int id = 0;  // as given to CreateMemoryInfo
  OrtMemType mem_type = OrtMemTypeDefault;
  OrtAllocatorType allocator_type = OrtArenaAllocator;
};

struct OrtEpAssignedNode {
  std::string name, domain, op_type;
};
struct OrtEpAssignedSubgraph {
  std::string provider;
  std::vector<std::unique_ptr<OrtEpAssignedNode>> nodes;
  std::vector<const OrtEpAssignedNode*> node_list;
};

// Sessions made with one share packed weights (src/capi/session.cpp).
struct OrtPrepackedWeightsContainer {};

struct OrtSession {
  explicit OrtSession(std::unique_ptr<tessera::Session> s) : session(std::move(s)) {}
  std::unique_ptr<tessera::Session> session;  // null while a model editor session is unfinished
  // A model editor session (CreateModelEditorSession*): the loaded model that
  // ApplyModelToModelEditorSession changes until FinalizeModelEditorSession
  // creates the session from it, and the environment it was created in.
  std::unique_ptr<tessera::ir::Model> editing;
  const OrtEnv* env = nullptr;
  // The session, failing for a model editor session not yet finalized.
  tessera::Session& get() const {
    tessera::check(session != nullptr,
                   "the session is a model editor session that FinalizeModelEditorSession has "
                   "not finished");
    return *session;
  }
  // The node-to-provider groups Session_GetEpGraphAssignmentInfo hands out.
  mutable std::vector<std::unique_ptr<OrtEpAssignedSubgraph>> assigned;
  mutable std::vector<const OrtEpAssignedSubgraph*> assigned_list;
  // Memory descriptions handed out by SessionGetMemoryInfoFor*: they live
  // as long as the session.
  mutable std::mutex mu;
  mutable std::vector<OrtMemoryInfo> input_memory, output_memory;
};

struct OrtValue {
  OrtValue() = default;
  explicit OrtValue(tessera::Value v) : value(std::move(v)) {}
  tessera::Value value;
  // Filled on the first GetTensorMemoryInfo; lives as long as the value.
  mutable std::unique_ptr<OrtMemoryInfo> memory;
};

struct OrtRunOptions {
  tessera::RunOptions options;
  OrtSyncStream* stream = nullptr;
};

// A loaded LoRA adapter; run options it is made active in share it.
struct OrtLoraAdapter {
  std::shared_ptr<const tessera::onnx::Adapter> adapter;
};

struct OrtTensorTypeAndShapeInfo {
  ONNXTensorElementDataType elem_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  bool has_shape = false;            // false: the rank is unknown
  std::vector<int64_t> dims;         // -1 where a dimension is not known
  std::vector<std::string> symbols;  // "" where a dimension has no name
};

struct OrtTypeInfo;
struct OrtMapTypeInfo {
  ONNXTensorElementDataType key_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::unique_ptr<OrtTypeInfo> value_type;
};
struct OrtSequenceTypeInfo {
  std::unique_ptr<OrtTypeInfo> element_type;
};
struct OrtOptionalTypeInfo {
  std::unique_ptr<OrtTypeInfo> contained_type;
};

// A value's or a graph input's type; the cast accessors hand out pointers to
// the members, owned by this object.
struct OrtTypeInfo {
  ONNXType type = ONNX_TYPE_UNKNOWN;
  std::string denotation;
  std::unique_ptr<OrtTensorTypeAndShapeInfo> tensor;  // tensor and sparse tensor
  std::unique_ptr<OrtMapTypeInfo> map;
  std::unique_ptr<OrtSequenceTypeInfo> sequence;
  std::unique_ptr<OrtOptionalTypeInfo> optional;
};

struct OrtModelMetadata {
  std::string producer_name, graph_name, domain, description, graph_description;
  int64_t version = 0;
  std::vector<std::pair<std::string, std::string>> custom;
};

struct OrtIoBinding {
  std::unique_ptr<tessera::IoBinding> binding;
};

struct OrtKeyValuePairs {
  std::vector<std::string> keys, values;
  // Views of the strings above, refreshed on every change.
  std::vector<const char*> key_ptrs, value_ptrs;
  void set(const std::string& key, const std::string& value);
  void remove(const std::string& key);
  const char* get(const std::string& key) const;
  void refresh();
};

struct OrtHardwareDevice {
  tessera::HardwareDevice device;
  std::string vendor;
  OrtKeyValuePairs metadata;
};

struct OrtEpDevice {
  std::string ep_name, ep_vendor;
  const OrtHardwareDevice* device = nullptr;
  OrtKeyValuePairs metadata, options;
  OrtMemoryInfo memory;       // the provider's memory on the device
  OrtMemoryInfo host_memory;  // host memory it reads and writes directly
};

struct OrtDeviceEpIncompatibilityDetails {
  uint32_t reasons = OrtDeviceEpIncompatibility_NONE;
  std::string notes;
  int32_t error_code = 0;
};

struct OrtSyncStream {
  std::unique_ptr<tessera::ep::Stream> stream;
  const OrtEpDevice* device = nullptr;
};

// Provider options built key by key (CreateCUDAProviderOptions, ...): the
// provider checks the keys and values when a session creates it.
struct OrtCUDAProviderOptionsV2 {
  std::map<std::string, std::string> options;
};
struct OrtDnnlProviderOptions {
  std::map<std::string, std::string> options;
};
// Option objects of providers Tessera does not have: they hold what the
// application sets, and appending them to session options is refused.
struct OrtTensorRTProviderOptionsV2 {
  std::map<std::string, std::string> options;
};
struct OrtCANNProviderOptions {
  std::map<std::string, std::string> options;
};

// Custom ops (docs/custom_ops.md). A domain collects the application's ops
// until AddCustomOpDomain hands them to session options; the ops themselves
// stay the application's (or its library's) and must outlive the sessions.
struct OrtCustomOpDomain {
  std::string domain;
  std::vector<const OrtCustomOp*> ops;
};

// Where a custom op's log lines go: Tessera's log, tagged with the node.
struct OrtLogger {
  std::string tag;
};

// What a custom op's kernel sees of its node: at creation, and afterwards
// through a copy (CopyKernelInfo). Lives as long as the kernel.
struct OrtKernelInfo {
  const tessera::ep::KernelInfo* info = nullptr;
  std::shared_ptr<const tessera::ep::KernelInfo> copy;  // a CopyKernelInfo's own
  std::shared_ptr<const std::map<std::string, std::string>> session_config;
  int since_version = 1;  // the first opset the custom op serves
  OrtLogger logger;
  // Constant inputs handed out by KernelInfoGetConstantInput_tensor, made on request.
  mutable std::mutex mu;
  mutable std::map<size_t, std::unique_ptr<OrtValue>> constants;
};

// One call of a custom op's compute: the node's values as OrtValues (made
// on request; outputs once KernelContext_GetOutput allocates them) and the
// scratch memory handed out, freed when the call returns.
struct OrtKernelContext {
  tessera::ep::KernelContext* ctx = nullptr;
  const OrtLogger* logger = nullptr;
  const std::vector<tessera::DataType>* output_types = nullptr;  // each output's element type
  std::vector<std::unique_ptr<OrtValue>> inputs, outputs;
  std::vector<std::shared_ptr<void>> scratch;
};

// One node's attribute as a custom op's shape inference reads it.
struct OrtOpAttr {
  tessera::ir::Attribute attr;
};

// A custom op's InferOutputShapeFn call: the node's input types and shapes,
// its attributes, and the output types and shapes the function sets.
struct OrtShapeInferContext {
  const tessera::ir::Node* node = nullptr;
  std::vector<OrtTensorTypeAndShapeInfo> inputs;
  std::vector<std::unique_ptr<OrtTensorTypeAndShapeInfo>> outputs;       // null: not set
  mutable std::map<std::string, std::unique_ptr<OrtOpAttr>> attributes;  // made on request
};

// Graphs: built by the model editor table (CreateGraph, ...) and read back by
// the Graph_*, Node_* and ValueInfo_* entries. An OrtGraph is a view of an
// ir::Graph (its own, or a subgraph attribute's) that hands out one OrtNode
// per node and one OrtValueInfo per value name, made on request and owned by
// the graph, so a pointer the application got stays valid while the graph
// lives.
struct OrtModel;

// A named value: until SetGraphInputs/SetGraphOutputs takes it, a name and a
// type the application made (CreateValueInfo); afterwards, a value of `graph`.
struct OrtValueInfo {
  std::string name;
  tessera::ir::TypeInfo type;
  const OrtGraph* graph = nullptr;  // null: made by CreateValueInfo
  // Made on request, owned here.
  mutable std::unique_ptr<OrtTypeInfo> type_info;
  mutable std::unique_ptr<OrtValue> initializer;
};

// A node: until AddNodeToGraph takes it, the application's (CreateNode);
// afterwards the node at `index` of `graph`.
struct OrtNode {
  const OrtGraph* graph = nullptr;
  size_t index = 0;
  tessera::ir::Node own;  // the node while it belongs to no graph
  const tessera::ir::Node& node() const;
  // Made on request, owned here: the attributes in node order, and one
  // OrtGraph per graph attribute (with the attribute's name).
  mutable std::vector<std::unique_ptr<OrtOpAttr>> attributes;
  mutable std::vector<std::pair<std::string, std::unique_ptr<OrtGraph>>> subgraphs;
  mutable bool attributes_made = false, subgraphs_made = false;
};

struct OrtGraph {
  std::shared_ptr<tessera::ir::Graph> graph = std::make_shared<tessera::ir::Graph>();
  // A subgraph: the node whose attribute it is, and that node's graph (where
  // its outer-scope values live). A graph view: the graph it was cut from.
  const OrtNode* parent_node = nullptr;
  const OrtGraph* outer = nullptr;
  const OrtGraph* view_of = nullptr;
  // An editor graph: the model AddGraphToModel put it in (null before).
  const OrtModel* model = nullptr;
  // Editor initializers whose memory stays the application's
  // (AddInitializerToGraph with data_is_external): shared, never copied.
  std::vector<std::string> external_initializers;

  mutable std::mutex mu;                                // guards the handles below, made on request
  mutable std::vector<std::unique_ptr<OrtNode>> nodes;  // one per node, in order
  mutable std::map<std::string, std::unique_ptr<OrtValueInfo>> values;
};

// A model of the editor: its opset imports and, once AddGraphToModel ran, its graph.
struct OrtModel {
  std::vector<tessera::ir::OpsetImport> opsets;
  std::unique_ptr<OrtGraph> graph;
  int64_t ir_version = 0;  // the ONNX IR version the model is written in
};

// Where an initializer's bytes live in a file.
struct OrtExternalInitializerInfo {
  std::string path;
  int64_t offset = 0;
  size_t size = 0;
};

// One operator made by CreateOp and run by InvokeOp (from a custom op's
// compute) with the CPU provider's kernel for it, outside any graph.
struct OrtOp {
  std::shared_ptr<tessera::ep::ExecutionProvider> provider;  // whose kernel it is
  std::unique_ptr<tessera::ir::Node> node;     // the kernel's node (inputs "0", "1", ...)
  std::vector<tessera::DataType> input_types;  // kUndefined: not constrained
  std::vector<tessera::DataType> output_types;
  std::unique_ptr<tessera::ep::KernelInfo> info;
  std::unique_ptr<tessera::ep::OpKernel> kernel;
};
