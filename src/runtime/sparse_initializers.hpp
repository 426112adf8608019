// Sparse initializers (SparseTensorProto) at session creation: one that every
// reader takes sparse (ops::input_takes_sparse) stays sparse, so a large,
// mostly empty weight is never materialized; any other becomes a dense
// initializer, as ONNX's dense operators read it.
#pragma once
#include <string>

#include "ir/graph.hpp"

namespace tessera::runtime {

// Moves the sparse initializers of `graph` and its subgraphs that some reader
// needs dense into their graph's dense initializers. A graph input (the
// caller may feed it dense), a graph output and a value read from a subgraph
// are densified too.
void densify_sparse_initializers(ir::Graph& graph, const std::string& where);

}  // namespace tessera::runtime
