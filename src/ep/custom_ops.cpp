#include "ep/custom_ops.hpp"

namespace tessera::ep {

const CustomOp* find_custom_op(const CustomOps& ops, const std::string& domain,
                               const std::string& op_type, int64_t opset) {
  for (const auto& op : ops)
    if (op->def.domain == domain && op->def.op_type == op_type && opset >= op->def.since &&
        opset <= op->def.until)
      return op.get();
  return nullptr;
}

}  // namespace tessera::ep
