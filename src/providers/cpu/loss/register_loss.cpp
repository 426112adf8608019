#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/loss/loss_kernels.hpp"

namespace tessera::cpu {

void register_loss_kernels(ep::KernelRegistry& r) {
  const std::vector<DataType> f16fd = {DataType::kFloat16, DataType::kFloat, DataType::kDouble};
  const std::vector<DataType> f16fdbf = {DataType::kFloat16, DataType::kFloat, DataType::kDouble,
                                         DataType::kBFloat16};
  const std::vector<DataType> tind = {DataType::kInt32, DataType::kInt64};
  auto types = [&](const std::vector<DataType>& t) {
    return std::vector<ep::TypeConstraint>{{"T", {0, 2}, t}, {"Tind", {1}, tind}};
  };
  r.add({"", "NegativeLogLikelihoodLoss", 12, 21, types(f16fd)}, make_nll_loss_kernel);
  r.add({"", "NegativeLogLikelihoodLoss", 22, ep::kOpsetMax, types(f16fdbf)},
        make_nll_loss_kernel);
  r.add({"", "SoftmaxCrossEntropyLoss", 12, 12, types(f16fd)},
        make_softmax_cross_entropy_loss_kernel);
  r.add({"", "SoftmaxCrossEntropyLoss", 13, ep::kOpsetMax, types(f16fdbf)},
        make_softmax_cross_entropy_loss_kernel);
}

}  // namespace tessera::cpu
