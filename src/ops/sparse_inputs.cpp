#include "ops/sparse_inputs.hpp"

namespace tessera::ops {

bool input_takes_sparse(const ir::Node& node, size_t input) {
  return node.domain == "com.microsoft" && node.op_type == "SparseToDenseMatMul" && input == 0;
}

}  // namespace tessera::ops
