// A kernel's handle on its op's shape rule in the schema table
// (ops/schema.hpp), found once when the kernel is made: kernels size their
// outputs with the same rule the optimizer's static shapes use.
#pragma once
#include <vector>

#include "ep/kernel.hpp"
#include "ops/schema.hpp"

namespace tessera::ep {

class OpShape {
 public:
  explicit OpShape(const KernelInfo& info)
      : schema_(&ops::schema_of(info.node(), info.opset())), opset_(info.opset()) {}

  const ops::OpSchema& schema() const { return *schema_; }
  int64_t opset() const { return opset_; }
  // Output k's shape for the node's inputs (null: omitted); fails naming the
  // node and input when the rule rejects them.
  Shape output(const KernelContext& ctx, std::vector<const Tensor*> inputs, size_t k = 0) const {
    return ops::output_shape(*schema_, ctx.node(), opset_, std::move(inputs), k);
  }
  ops::OutShapes outputs(const KernelContext& ctx, std::vector<const Tensor*> inputs) const {
    return ops::output_shapes(*schema_, ctx.node(), opset_, std::move(inputs));
  }

 private:
  const ops::OpSchema* schema_;
  int64_t opset_;
};

}  // namespace tessera::ep
