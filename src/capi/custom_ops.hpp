// Custom ops through the C API: what Tessera reads of an OrtCustomOp when it
// is added to a domain (each callback asked once, later members only when the
// op's `version` says they exist), the ep::CustomOp a session runs it as, and
// the kernel that calls the op's CreateKernel/KernelCompute.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "capi/handles.hpp"
#include "ep/custom_ops.hpp"

namespace tessera::capi {

// ONNX Runtime API versions that added members to OrtCustomOp.
constexpr uint32_t kOpVersionCharacteristics = 8;  // Get{Input,Output}Characteristic
constexpr uint32_t kOpVersionMemoryType = 13;      // GetInputMemoryType
constexpr uint32_t kOpVersionVariadic = 14;        // GetVariadic*
constexpr uint32_t kOpVersionComputeV2 = 16;       // CreateKernelV2, KernelComputeV2
constexpr uint32_t kOpVersionStartEnd = 17;        // InferOutputShapeFn, Get{Start,End}Version

struct CustomOpFormal {
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;  // any type
  OrtCustomOpInputOutputCharacteristic characteristic = INPUT_OUTPUT_REQUIRED;
  OrtMemType memory = OrtMemTypeDefault;
};

// One OrtCustomOp as read at registration.
struct CustomOpSpec {
  const OrtCustomOp* op = nullptr;
  const OrtApi* api = nullptr;  // the table of the op's version
  std::string domain, name;
  int since = 1, until = 0x7fffffff;
  std::vector<CustomOpFormal> inputs, outputs;
  int variadic_input_min = 1, variadic_output_min = 1;
  bool variadic_input_homogeneous = true, variadic_output_homogeneous = true;
  bool v2 = false;     // CreateKernelV2 / KernelComputeV2
  bool infer = false;  // InferOutputShapeFn
  // Keeps the custom-op library loaded while sessions use the op (null when
  // the application registered the op itself).
  std::shared_ptr<void> library;
};

// Reads `op` (throws kInvalidArgument naming the op and what is wrong).
std::shared_ptr<CustomOpSpec> read_custom_op(const std::string& domain, const OrtCustomOp* op);

// The op as a session runs it: a CPU provider kernel with its type rules.
std::shared_ptr<const ep::CustomOp> make_custom_op(std::shared_ptr<const CustomOpSpec> spec);

// Output k's element type from the inputs' element types: the declared type,
// or for "any type" (UNDEFINED) the type of the first "any type" input.
DataType custom_op_output_type(const CustomOpSpec& spec, size_t k,
                               const std::vector<DataType>& inputs);

// The output types and shapes InferOutputShapeFn sets for `node` from its
// inputs' types, over `declared` (the types from the op's declarations);
// an error status fails naming the node.
std::vector<ir::TypeInfo> infer_custom_op_shapes(const CustomOpSpec& spec, const ir::Node& node,
                                                 const std::vector<ir::TypeInfo>& inputs,
                                                 std::vector<ir::TypeInfo> declared);

// The kernel of one node of a custom op.
std::unique_ptr<ep::OpKernel> make_custom_op_kernel(
    std::shared_ptr<const CustomOpSpec> spec, const ep::KernelInfo& info,
    const std::map<std::string, std::string>& session_config);

}  // namespace tessera::capi
