// The oneDNN provider's op table: for each op, a kernel (registered by domain,
// op, opset range and types like every provider's) and a claim check that
// looks at the node's attributes, ranks and constant inputs, because oneDNN
// covers only part of what the type constraints allow. A node is claimed only
// when both agree; otherwise the check's reason is shown to the user.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ep/claim_query.hpp"
#include "ep/execution_provider.hpp"
#include "providers/onednn/dnnl_common.hpp"

namespace tessera::onednn {

// What a claim check may ask about one node (src/ep/claim_query.hpp).
using ClaimQuery = ep::ClaimQuery;

// Returns "" when the node is supported, else why not.
using ClaimCheck = std::function<std::string(const ClaimQuery&)>;
using DnnlKernelFactory =
    std::function<std::unique_ptr<ep::OpKernel>(const ep::KernelInfo&, const EnvPtr&)>;

struct DnnlOpTable {
  EnvPtr env;
  ep::KernelRegistry registry;
  std::map<std::string, ClaimCheck> checks;  // by op type

  void add(ep::KernelDef def, DnnlKernelFactory factory, ClaimCheck check);
  template <typename K>
  void add(ep::KernelDef def, ClaimCheck check) {
    add(
        std::move(def),
        [](const ep::KernelInfo& info, const EnvPtr& env) {
          return std::make_unique<K>(info, env);
        },
        std::move(check));
  }
};

// Type list every oneDNN kernel here serves: float32 only.
extern const std::vector<DataType> kF32;

// An activation as oneDNN's eltwise algorithm with its parameters, read from
// an activation node (also used to fold one into a Conv as a post-op).
struct EltwiseParams {
  dnnl::algorithm alg;
  float alpha = 0, beta = 0;
};
EltwiseParams eltwise_params(const ep::KernelInfo& info);

// Families (one file each).
void register_dnnl_conv(DnnlOpTable& t);
void register_dnnl_matmul(DnnlOpTable& t);
void register_dnnl_pool(DnnlOpTable& t);
void register_dnnl_norm(DnnlOpTable& t);
void register_dnnl_softmax(DnnlOpTable& t);
void register_dnnl_eltwise(DnnlOpTable& t);

}  // namespace tessera::onednn
