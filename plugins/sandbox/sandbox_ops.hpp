// The sandbox's operators: what it claims (claim_reason) and how it runs
// them (run_op), float32 only. Plain loops, written for clarity over speed:
// the sandbox exists to test the runtime's provider machinery.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/tessera_ep_api.h"

namespace sandbox {

using Dims = std::vector<int64_t>;

// A float tensor in sandbox memory (or a view of one).
struct Tensor {
  Dims dims;
  float* data = nullptr;
  int64_t size() const;
};

// One node, copied out of the graph at compile time.
struct OpDesc {
  std::string name, op;
  int64_t opset = 0;
  std::vector<std::string> inputs, outputs;  // "" for omitted optional inputs
  // Attributes, with ONNX defaults filled in where the op has them.
  float alpha = 0, beta = 0;
  int64_t trans_a = 0, trans_b = 0, axis = 0, group = 1, count_include_pad = 0;
  std::string auto_pad = "NOTSET";
  Dims kernel_shape, strides, pads, dilations;
  bool has_axis = false;
};

// Empty when the sandbox can run this node; else why not.
std::string claim_reason(const TsrEpHostApi& host, const TsrEpGraph* g, size_t node);
// Reads a node's attributes into an OpDesc.
OpDesc describe_node(const TsrEpHostApi& host, const TsrEpGraph* g, size_t node);
// The shape of the node's output given its inputs (throws SandboxError on a mismatch).
Dims output_dims(const OpDesc& op, const std::vector<const Tensor*>& in);
// Computes `out` (allocated with output_dims) from `in` (nullptr: omitted).
void run_op(const OpDesc& op, const std::vector<const Tensor*>& in, Tensor& out);

}  // namespace sandbox
