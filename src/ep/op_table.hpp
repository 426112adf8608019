// A provider's op table, for providers that decide per node (oneDNN, CUDA):
// for each op, a kernel (registered by domain, op, opset range and types like
// every provider's) built with the provider's environment, and a claim check
// that looks at what the type constraints cannot say (attributes, ranks,
// constant inputs). A node is claimed only when both agree; otherwise the
// check's reason is shown to the user.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "ep/claim_query.hpp"
#include "ep/kernel_registry.hpp"

namespace tessera::ep {

// Returns "" when the node is supported, else why not (shown to the user).
using ClaimCheck = std::function<std::string(const ClaimQuery&)>;

template <typename Env>
struct OpTable {
  using EnvPtr = std::shared_ptr<const Env>;
  using Factory = std::function<std::unique_ptr<OpKernel>(const KernelInfo&, const EnvPtr&)>;

  EnvPtr env;  // given to every kernel the registry makes
  KernelRegistry registry;
  std::map<std::string, ClaimCheck> checks;  // by op type

  void add(KernelDef def, Factory factory, ClaimCheck check) {
    checks[def.op_type] = std::move(check);
    registry.add(std::move(def),
                 [f = std::move(factory), e = env](const KernelInfo& info) { return f(info, e); });
  }
  // A kernel K constructed from (const KernelInfo&, const EnvPtr&).
  template <typename K>
  void add(KernelDef def, ClaimCheck check) {
    add(
        std::move(def),
        [](const KernelInfo& info, const EnvPtr& env) { return std::make_unique<K>(info, env); },
        std::move(check));
  }
};

}  // namespace tessera::ep
