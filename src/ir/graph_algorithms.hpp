// Whole-graph algorithms: ordering, validation and scope analysis.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace tessera::ir {

// Reorders graph.nodes topologically, keeping the file order where it already
// is one. `outer_scope` names values visible from enclosing graphs. Throws
// kInvalidGraph naming the nodes on a cycle or an input nobody produces.
void topological_sort(Graph& graph, const std::set<std::string>& outer_scope = {});

// Checks names and references: unique value names (SSA), every node input
// defined, graph outputs produced, each node's domain imported by the model,
// recursively into subgraphs. Throws kInvalidGraph with what and where.
void validate_graph(const Model& model, Graph& graph, const std::set<std::string>& outer_scope,
                    const std::string& where);

// Names a subgraph reads from enclosing scopes (including through nested subgraphs).
std::vector<std::string> outer_scope_reads(const Graph& subgraph);
// Every value a node reads: its (non-empty) inputs, then what its subgraphs
// read from enclosing scopes.
std::vector<std::string> node_reads(const Node& node);

// Gives every unnamed node a stable name "<op_type>_<index>" (recursively),
// so reports and errors can name it.
void name_unnamed_nodes(Graph& graph);

}  // namespace tessera::ir
