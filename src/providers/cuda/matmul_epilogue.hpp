// MatMul + bias Add (+ Relu) found in a graph, to run as one cuBLASLt call
// with the BIAS (RELU_BIAS) epilogue instead of two or three kernels and two
// passes over the product. Plain C++ (the matching is tested without a GPU).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "ep/execution_provider.hpp"

namespace tessera::cuda {

// One match: node indices, and the names of the fused step's inputs.
struct MatMulEpilogue {
  std::vector<size_t> nodes;  // MatMul, Add, and Relu when present
  std::string a, b, bias;
  bool relu = false;
};

// The matches among the nodes `claimed` (by index) allows: a MatMul whose B
// is a 2-D constant (so the product is one GEMM, A's batch folded into M),
// whose only reader is an Add of a 1-D constant bias of B's columns, itself
// optionally read only by a Relu; no intermediate value is read anywhere else
// (other nodes, subgraphs, graph outputs).
std::vector<MatMulEpilogue> find_matmul_epilogues(const ep::GraphView& view,
                                                  const std::vector<bool>& claimed);

// The match a fused group was made from (its nodes as find_matmul_epilogues
// gave them); kInvalidArgument when the group is not one.
MatMulEpilogue epilogue_of_group(const ep::GraphView& view, const std::vector<size_t>& nodes);

}  // namespace tessera::cuda
