// The oneDNN provider's op table (src/ep/op_table.hpp): for each op, a kernel
// and a claim check that looks at the node's attributes, ranks and constant
// inputs, because oneDNN covers only part of what the type constraints allow.
#pragma once
#include <vector>

#include "ep/claim_query.hpp"
#include "ep/execution_provider.hpp"
#include "ep/op_table.hpp"
#include "providers/onednn/dnnl_common.hpp"

namespace tessera::onednn {

// What a claim check may ask about one node (src/ep/claim_query.hpp).
using ClaimQuery = ep::ClaimQuery;

using DnnlOpTable = ep::OpTable<DnnlEnv>;

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
