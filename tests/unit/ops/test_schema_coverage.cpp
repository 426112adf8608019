// Every op the CPU provider registers a kernel for has an entry in the
// operator schema table for each opset its kernels start at, so type
// inference, static shapes and the type-constraint check know it. One
// explicit list names the exceptions: ops whose output shapes depend on their
// data (reviewed, each with its reason). An op listed that gains an entry, or
// loses its CPU kernel, fails the test, so the list only shrinks.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "ops/schema.hpp"
#include "providers/cpu/cpu_provider.hpp"

namespace tessera::test {

namespace {

// Ops whose output shapes depend on the values of their data inputs, so
// their entries could give no static shape: reviewed, each with its reason.
const std::map<std::string, std::string>& data_dependent() {
  static const std::map<std::string, std::string> m = {
      {"ai.onnx:Compress", "the output length is the number of true conditions"},
      {"ai.onnx:ImageDecoder", "the image size is read from the encoded bytes"},
      {"ai.onnx:NonMaxSuppression", "the number of selected boxes depends on the scores"},
      {"ai.onnx:NonZero", "the output length is the number of non-zero elements"},
      {"ai.onnx:Range", "the length follows from the values of start, limit and delta"},
      {"ai.onnx:StringSplit", "the last dim is the largest number of substrings of any element"},
      {"ai.onnx:Unique", "the output length is the number of distinct elements"},
  };
  return m;
}

}  // namespace

TEST(SchemaCoverage, EveryCpuKernelHasASchemaEntry) {
  std::set<std::string> missing, listed_seen;
  for (const auto& e : cpu::cpu_kernel_registry().entries()) {
    const std::string key =
        (e.def.domain.empty() ? std::string("ai.onnx") : e.def.domain) + ":" + e.def.op_type;
    const bool has = ops::find_schema(e.def.domain, e.def.op_type, e.def.since) != nullptr;
    if (data_dependent().count(key)) {
      listed_seen.insert(key);
      EXPECT_FALSE(has) << key << " has a schema entry now: take it off the list";
      continue;
    }
    if (!has) missing.insert(key + " (opset " + std::to_string(e.def.since) + ")");
  }
  std::string list;
  for (const auto& m : missing) list += "\n  " + m;
  EXPECT_TRUE(missing.empty()) << "registered ops without a schema entry:" << list;
  for (const auto& [key, why] : data_dependent())
    EXPECT_TRUE(listed_seen.count(key)) << key << " is listed but has no CPU kernel";
}

}  // namespace tessera::test
