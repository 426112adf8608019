// Conv post-op fusion: a Conv followed by a residual Add and/or an activation
// runs as one oneDNN convolution with the bias, a binary-add post-op and an
// eltwise post-op, instead of two or three passes over the output.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ep/provider_abilities.hpp"
#include "providers/onednn/dnnl_ops.hpp"

namespace tessera::onednn {

// One step after the convolution, in order.
struct PostOp {
  bool add = false;  // add the side input (same shape as the output)
  EltwiseParams eltwise{dnnl::algorithm::eltwise_relu};  // when !add
};

// Where a Conv kernel finds its inputs among its node's inputs (-1: absent),
// and what runs after the convolution. The default is a plain Conv node.
struct ConvFusion {
  int x = 0, w = 1, b = 2, side = -1;
  std::vector<PostOp> post;
  // true: post-ops inside the convolution primitive; false: one in-place
  // binary/eltwise pass after it (oneDNN 2.6 applies post-ops to plain-layout
  // gemm convolutions with a slow generic loop; see docs/providers.md).
  bool in_primitive = false;
};

// The Conv kernel (dnnl_conv.cpp) with the given fusion; `info` describes the
// Conv node itself (its attributes and constant weights).
std::unique_ptr<ep::OpKernel> make_conv_kernel(const ep::KernelInfo& info, const EnvPtr& env,
                                               ConvFusion fusion);

// A Conv and the nodes folded into it, in order (the Conv first).
struct ConvChain {
  std::vector<size_t> nodes;
  std::string side;  // the residual Add's other input, or ""
};

// Finds chains Conv -> [Add(., side)] -> [activation] whose intermediate values
// have exactly one reader (the next node) and are not graph outputs, and whose
// Add's other input may be the output's shape (checked as far as types tell). `claimable`
// says whether the provider would claim a node on its own (Conv, activation).
class ConvChainFinder {
 public:
  ConvChainFinder(const ep::GraphView& view, std::function<bool(size_t)> claimable);
  // The longest chain starting at Conv node `conv`; a single node when nothing fuses.
  ConvChain find(size_t conv) const;

 private:
  // The one node reading `node`'s only output, when there is exactly one
  // reader, it reads it once, and the value is no graph output.
  std::optional<size_t> sole_reader(size_t node) const;
  bool add_fits(size_t conv, size_t prev, size_t add, std::string* side) const;

  const ep::GraphView& view_;
  std::function<bool(size_t)> claimable_;
  std::vector<std::vector<size_t>> readers_;
};

// Whether op_type is an activation that folds into a Conv as an eltwise post-op.
bool is_fusable_activation(const ir::Node& node);

// Compiles one fused group found by ConvChainFinder into one kernel.
std::unique_ptr<ep::OpKernel> compile_conv_chain(const ep::GraphView& view,
                                                 const ep::FusedGroup& group, const EnvPtr& env);

}  // namespace tessera::onednn
