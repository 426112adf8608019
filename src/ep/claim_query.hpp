// What a provider's claim check may ask about one node, from static
// information only: ranks and dims as type inference knows them, constant
// inputs, attributes. Shared by the providers that decide per node (oneDNN,
// CUDA) whether their kernel supports what the type constraints allow.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ep/execution_provider.hpp"

namespace tessera::ep {

// What a claim check may ask about one node, from static information only.
class ClaimQuery {
 public:
  ClaimQuery(const GraphView& view, const ir::Node& node) : view_(view), node_(node) {}
  const ir::Node& node() const { return node_; }
  int64_t opset() const { return view_.opset(node_); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  bool has_output(size_t i) const { return i < node_.outputs.size() && !node_.outputs[i].empty(); }
  // Static rank of input i, when known.
  std::optional<size_t> rank(size_t i) const;
  // Static dims of input i (nullopt per unknown dim), when the rank is known.
  std::optional<std::vector<std::optional<int64_t>>> dims(size_t i) const;
  // The input's value when it is fixed for the session (an initializer that is
  // not also a graph input), else nullptr.
  const Tensor* constant(size_t i) const;

  int64_t attr_int(const char* name, int64_t def) const;
  float attr_float(const char* name, float def) const;
  std::string attr_string(const char* name, const std::string& def) const;
  std::vector<int64_t> attr_ints(const char* name) const;
  std::vector<float> attr_floats(const char* name) const;

 private:
  const GraphView& view_;
  const ir::Node& node_;
};

}  // namespace tessera::ep
