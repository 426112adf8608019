#include "providers/cpu/control_flow/control_flow_kernels.hpp"
#include "providers/cpu/kernel_families.hpp"

namespace tessera::cpu {

void register_control_flow_kernels(ep::KernelRegistry& r) {
  r.add({"", "If", 1, ep::kOpsetMax, {{"B", {0}, {DataType::kBool}}}}, make_if_kernel);
  r.add({"", "Loop", 1, ep::kOpsetMax, {{"I", {0}, {DataType::kInt64}}, {"B", {1}, {DataType::kBool}}}},
        make_loop_kernel);
  r.add({"", "Scan", 8, ep::kOpsetMax, {}}, make_scan_kernel);
}

}  // namespace tessera::cpu
