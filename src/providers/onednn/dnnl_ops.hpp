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

#include "ep/execution_provider.hpp"
#include "providers/onednn/dnnl_common.hpp"

namespace tessera::onednn {

// What a claim check may ask about one node, from static information only.
class ClaimQuery {
 public:
  ClaimQuery(const ep::GraphView& view, const ir::Node& node) : view_(view), node_(node) {}
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

 private:
  const ep::GraphView& view_;
  const ir::Node& node_;
};

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
