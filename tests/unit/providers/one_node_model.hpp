// One-node models for the provider tests (oneDNN, CUDA): a model with a single
// node whose inputs are graph inputs or constants, with the feeds for a run.
// Needs no provider, so it is built whichever providers are.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "runtime/session.hpp"

namespace tessera::test {

// A graph input or output of element type `t` and fixed dims.
inline ir::ValueInfo tensor_info(const std::string& name, std::vector<int64_t> dims,
                                 DataType t = DataType::kFloat) {
  std::vector<ir::Dim> d;
  for (int64_t v : dims) d.push_back(ir::Dim{v, ""});
  return {name, ir::TypeInfo::tensor(t, d), ""};
}

// A model with one node whose inputs are graph inputs or (constant = true)
// initializers, so the provider sees them as constant; each input in its
// tensor's element type.
struct OneNode {
  ir::Model model;
  std::vector<std::pair<std::string, Value>> feeds;

  OneNode(const std::string& op, int64_t opset, std::vector<ir::Attribute> attrs = {}) {
    model.ir_version = 9;
    model.opset_imports.push_back({"", opset});
    model.graph.name = op;
    ir::Node n;
    n.name = op + "_node";
    n.op_type = op;
    n.attributes = std::move(attrs);
    model.graph.nodes.push_back(n);
  }
  OneNode& input(const std::string& name, const Tensor& t, bool constant = false) {
    model.graph.nodes[0].inputs.push_back(name);
    if (constant) {
      model.graph.initializers[name] = t;
    } else {
      model.graph.inputs.push_back(tensor_info(name, t.shape().dims(), t.dtype()));
      feeds.emplace_back(name, Value(t));
    }
    return *this;
  }
  OneNode& omitted() {
    model.graph.nodes[0].inputs.push_back("");
    return *this;
  }
  OneNode& output(const std::string& name) {
    model.graph.nodes[0].outputs.push_back(name);
    ir::ValueInfo vi;
    vi.name = name;
    model.graph.outputs.push_back(vi);
    return *this;
  }
};

}  // namespace tessera::test
