#include "runtime/shared_fusions.hpp"

#include <algorithm>

#include "optimizer/optimizer.hpp"

namespace tessera::runtime {

namespace {

const char* const kCpu = "CPUExecutionProvider";

// Whether `p` registers a kernel for (domain, op), at any opset.
bool has_kernel(const ep::ExecutionProvider& p, const std::string& domain, const std::string& op) {
  for (const auto& e : p.kernel_registry().entries())
    if (e.def.domain == domain && e.def.op_type == op) return true;
  return false;
}

}  // namespace

std::set<std::string> shared_fusions(const Providers& providers) {
  std::set<std::string> out;
  const bool cpu_only = std::all_of(providers.begin(), providers.end(),
                                    [](const auto& p) { return p->name() == kCpu; });
  if (cpu_only) return out;
  for (const std::string& op : optimizer::kSharedFusionOps)
    if (std::all_of(providers.begin(), providers.end(), [&op](const auto& p) {
          return p->name() == kCpu || has_kernel(*p, "com.tessera", op);
        }))
      out.insert(op);
  return out;
}

}  // namespace tessera::runtime
