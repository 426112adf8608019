#include "providers/cpu/fused/fused_activation.hpp"

namespace tessera::cpu {

linalg::ActivationSpec parse_fused_activation(const ep::KernelInfo& info,
                                              const std::string& prefix) {
  const std::string act = info.attr_string(prefix + "activation", "");
  const std::vector<float> params = info.attr_floats(prefix + "activation_params");
  linalg::ActivationSpec spec;
  if (act.empty()) return spec;
  if (act == "Relu") {
    spec.kind = linalg::Activation::kRelu;
  } else if (act == "Clip") {
    if (params.size() != 2)
      info.fail_node(prefix, "activation Clip needs ", prefix, "activation_params [min, max]");
    spec = {linalg::Activation::kClip, params[0], params[1]};
  } else if (act == "LeakyRelu") {
    if (params.size() != 1)
      info.fail_node(prefix, "activation LeakyRelu needs ", prefix, "activation_params [alpha]");
    spec = {linalg::Activation::kLeakyRelu, params[0], 0.f};
  } else if (act == "Sigmoid") {
    spec.kind = linalg::Activation::kSigmoid;
  } else if (act == "Swish") {
    if (params.size() != 1)
      info.fail_node(prefix, "activation Swish needs ", prefix, "activation_params [alpha]");
    spec = {linalg::Activation::kSwish, params[0], 0.f};
  } else if (act == "HardSigmoid") {
    if (params.size() != 2)
      info.fail_node(prefix, "activation HardSigmoid needs ", prefix,
                     "activation_params [alpha, beta]");
    spec = {linalg::Activation::kHardSigmoid, params[0], params[1]};
  } else if (act == "HardSwish") {
    spec = {linalg::Activation::kHardSwish, 1.f / 6.f, 0.5f};
  } else if (act == "Tanh") {
    spec.kind = linalg::Activation::kTanh;
  } else {
    info.fail_node("unsupported ", prefix, "activation '", act,
                   "' (Relu, Clip, LeakyRelu, Sigmoid, Swish, HardSigmoid, HardSwish or Tanh)");
  }
  return spec;
}

}  // namespace tessera::cpu
