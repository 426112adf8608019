// Every op the CPU provider registers a kernel for has an entry in the
// operator schema table for each opset its kernels start at, so type
// inference, static shapes and the type-constraint check know it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ops/schema.hpp"
#include "providers/cpu/cpu_provider.hpp"

namespace tessera::test {

TEST(SchemaCoverage, EveryCpuKernelHasASchemaEntry) {
  std::set<std::string> missing;
  for (const auto& e : cpu::cpu_kernel_registry().entries()) {
    const std::string key =
        (e.def.domain.empty() ? std::string("ai.onnx") : e.def.domain) + ":" + e.def.op_type;
    const bool has = ops::find_schema(e.def.domain, e.def.op_type, e.def.since) != nullptr;
    if (!has) missing.insert(key + " (opset " + std::to_string(e.def.since) + ")");
  }
  std::string list;
  for (const auto& m : missing) list += "\n  " + m;
  EXPECT_TRUE(missing.empty()) << "registered ops without a schema entry:" << list;
}

}  // namespace tessera::test
