#include <utility>

#include "core/tensor_ints.hpp"
#include "ops/schema.hpp"

namespace tessera::ops {

std::string ShapeQuery::input_desc(size_t i) const {
  std::string s = str_cat("input ", i);
  if (i < node_.inputs.size()) s += str_cat(" '", node_.inputs[i], "'");
  if (const Shape* x = shape(i)) s += str_cat(" of shape ", x->to_string());
  return s;
}

const Shape* TensorShapeQuery::shape(size_t i) const {
  return i < inputs_.size() && inputs_[i] ? &inputs_[i]->shape() : nullptr;
}

std::optional<std::vector<int64_t>> TensorShapeQuery::ints(size_t i) const {
  const Tensor* t = i < inputs_.size() ? inputs_[i] : nullptr;
  if (!t || (t->dtype() != DataType::kInt64 && t->dtype() != DataType::kInt32)) return std::nullopt;
  return read_ints(*t);
}

OutShapes output_shapes(const OpSchema& schema, const ir::Node& node, int64_t opset,
                        std::vector<const Tensor*> inputs) {
  if (!schema.shape_rule)
    fail(ErrorCode::kRuntimeException, node.describe(), ": internal: the schema has no shape rule");
  return schema.shape_rule(TensorShapeQuery(node, opset, schema, std::move(inputs)));
}

Shape output_shape(const OpSchema& schema, const ir::Node& node, int64_t opset,
                   std::vector<const Tensor*> inputs, size_t k) {
  OutShapes out = output_shapes(schema, node, opset, std::move(inputs));
  if (k >= out.size() || !out[k])
    fail(ErrorCode::kInvalidArgument, node.describe(), ": the shape of output ", k,
         " does not follow from the inputs given");
  return std::move(*out[k]);
}

}  // namespace tessera::ops
