// Operators an application adds to a session (custom ops registered through
// the C API): each is a kernel in one provider's lookup, the session's own
// additions to that provider's registry, and the rule that types its outputs.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ep/kernel_registry.hpp"
#include "ir/graph.hpp"

namespace tessera::ep {

// Makes a custom op's kernel for one node; `session_config` is the session's
// configuration entries (SessionOptions::config_entries).
using CustomKernelFactory = std::function<std::unique_ptr<OpKernel>(
    const KernelInfo& info, const std::map<std::string, std::string>& session_config)>;

struct CustomOp {
  std::string provider;  // the provider whose kernel lookup includes it
  KernelDef def;         // domain, op type, opset range, input type constraints
  CustomKernelFactory factory;
  // The element types of a node's outputs from its inputs' types (for static
  // type inference; an entry of kind kUnknown: not known before the run).
  std::function<std::vector<ir::TypeInfo>(const ir::Node&, const std::vector<ir::TypeInfo>&)>
      output_types;
};

using CustomOps = std::vector<std::shared_ptr<const CustomOp>>;

// The custom op of `ops` a node of `domain`, `op_type` at `opset` is, or null.
const CustomOp* find_custom_op(const CustomOps& ops, const std::string& domain,
                               const std::string& op_type, int64_t opset);

}  // namespace tessera::ep
