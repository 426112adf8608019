// Which node inputs take a sparse tensor as it is. ONNX's own operators read
// dense tensors only; com.microsoft SparseToDenseMatMul multiplies a sparse A
// without densifying it. Sparse initializers stay sparse only where every
// reader is such an input (runtime/sparse_initializers.hpp).
#pragma once
#include <cstddef>

#include "ir/graph.hpp"

namespace tessera::ops {

bool input_takes_sparse(const ir::Node& node, size_t input);

}  // namespace tessera::ops
