#include "runtime/device_selection.hpp"

#include <algorithm>

namespace tessera {

const char* provider_selection_policy_name(ProviderSelectionPolicy p) {
  switch (p) {
    case ProviderSelectionPolicy::kDefault:
      return "default";
    case ProviderSelectionPolicy::kPreferCPU:
      return "prefer CPU";
    case ProviderSelectionPolicy::kPreferNPU:
      return "prefer NPU";
    case ProviderSelectionPolicy::kPreferGPU:
      return "prefer GPU";
    case ProviderSelectionPolicy::kMaxPerformance:
      return "max performance";
    case ProviderSelectionPolicy::kMaxEfficiency:
      return "max efficiency";
    case ProviderSelectionPolicy::kMinOverallPower:
      return "min overall power";
  }
  return "?";
}

void SessionOptions::add_external_initializers(const std::vector<std::string>& names,
                                               const std::vector<Tensor>& tensors) {
  check(names.size() == tensors.size(), "add_external_initializers: ", names.size(), " names but ",
        tensors.size(), " tensors");
  for (size_t i = 0; i < names.size(); ++i) add_initializer(names[i], tensors[i]);
}

namespace runtime {

namespace {

const char* kCpu = "CPUExecutionProvider";

// Device types in the order a policy prefers them; types not listed are not used.
std::vector<DeviceType> preference(ProviderSelectionPolicy policy) {
  using D = DeviceType;
  switch (policy) {
    case ProviderSelectionPolicy::kDefault:
      return {};
    case ProviderSelectionPolicy::kPreferCPU:
      return {D::kCPU};
    case ProviderSelectionPolicy::kPreferNPU:
      return {D::kNPU, D::kCPU};
    case ProviderSelectionPolicy::kPreferGPU:
      return {D::kGPU, D::kCPU};
    case ProviderSelectionPolicy::kMaxPerformance:
      return {D::kGPU, D::kNPU, D::kFPGA, D::kCPU};
    // Accelerators built for low power first; GPUs draw the most, so they are left out.
    case ProviderSelectionPolicy::kMaxEfficiency:
    case ProviderSelectionPolicy::kMinOverallPower:
      return {D::kNPU, D::kCPU};
  }
  return {};
}

}  // namespace

std::vector<ProviderSpec> select_providers(ProviderSelectionPolicy policy,
                                           const std::vector<EpDevice>& devices) {
  std::vector<ProviderSpec> out;
  auto add = [&out](const std::string& name) {
    for (const auto& s : out)
      if (s.name == name) return;
    out.push_back({name, {}});
  };
  for (DeviceType type : preference(policy))
    for (const auto& d : devices)
      // The CPU provider goes last: other CPU providers (oneDNN, ...) are preferred to it.
      if (d.device.type == type && d.provider != kCpu) add(d.provider);
  add(kCpu);
  return out;
}

}  // namespace runtime
}  // namespace tessera
