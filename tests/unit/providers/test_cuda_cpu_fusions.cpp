// A session listing CUDA before the CPU keeps the CPU provider's own
// transforms (fusions, blocked layout) on the nodes the CPU runs: the CPU's
// part is transformed as it would be in a CPU-only session. Needs no GPU
// (claims and transforms run without one).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ep/provider_registry.hpp"
#include "optimizer/optimizer.hpp"
#include "providers/cuda/cuda_provider.hpp"
#include "runtime/provider_transforms.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {

namespace {

std::shared_ptr<ep::ExecutionProvider> cpu() {
  return ep::ProviderRegistry::instance().find("CPUExecutionProvider")->create({});
}

// Conv -> Relu -> Sigmoid -> Conv -> Relu over 16 channels, static shapes.
ir::Model conv_blocks() {
  ir::Model m = float_model(17, {{"x", Shape{1, 16, 8, 8}}}, {"y"});
  m.graph.initializers["w1"] = random_floats(Shape{16, 16, 3, 3}, 2, -0.2f, 0.2f);
  m.graph.initializers["w2"] = random_floats(Shape{16, 16, 3, 3}, 3, -0.2f, 0.2f);
  ir::Attribute pads;
  pads.name = "pads";
  pads.type = ir::AttrType::kInts;
  pads.ints = {1, 1, 1, 1};
  m.graph.nodes = {op("Conv", {"x", "w1"}, {"c1"}, {pads}), op("Relu", {"c1"}, {"r1"}),
                   op("Sigmoid", {"r1"}, {"s"}), op("Conv", {"s", "w2"}, {"c2"}, {pads}),
                   op("Relu", {"c2"}, {"y"})};
  return m;
}

ep::PlacementRule keep_cuda_from(ep::PlacementRule::Match match, const std::string& value) {
  ep::PlacementRule r;
  r.match = match;
  r.value = value;
  r.provider = "CUDAExecutionProvider";
  r.forbid = true;
  return r;
}

std::vector<std::string> ops_of(const ir::Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes) out.push_back(n.domain + ":" + n.op_type);
  return out;
}

}  // namespace

// CUDA kept from every node: the CPU-only plan, its fused ops included.
TEST(CudaCpuFusions, CudaRunningNothingLeavesTheCpuOnlyGraph) {
  ir::Model alone = conv_blocks(), behind = conv_blocks();
  optimizer::optimize(alone, GraphOptimizationLevel::kAll, cpu_folding());
  optimizer::optimize(behind, GraphOptimizationLevel::kAll, cpu_folding());
  runtime::apply_provider_transforms(alone, {cpu()}, {}, {});
  runtime::apply_provider_transforms(behind, {cuda::make_cuda_provider_unchecked({}), cpu()},
                                     {keep_cuda_from(ep::PlacementRule::Match::kNamePattern, "*")},
                                     {});
  EXPECT_EQ(ops_of(alone.graph), ops_of(behind.graph));
  size_t own = 0;
  for (const auto& n : behind.graph.nodes) own += n.domain == "com.tessera";
  EXPECT_GE(own, 2u) << "the convolutions should be CPU fused ops";
}

// CUDA runs the Sigmoid; the convolutions and their Relus, kept from CUDA,
// are fused by the CPU provider as in a CPU-only session.
TEST(CudaCpuFusions, CpuPartBesideCudaKeepsItsFusions) {
  ir::Model m = conv_blocks();
  optimizer::optimize(m, GraphOptimizationLevel::kAll, cpu_folding());
  runtime::apply_provider_transforms(m, {cuda::make_cuda_provider_unchecked({}), cpu()},
                                     {keep_cuda_from(ep::PlacementRule::Match::kOpType, "Conv"),
                                      keep_cuda_from(ep::PlacementRule::Match::kOpType, "Relu")},
                                     {});
  size_t sigmoids = 0, fused = 0;
  for (const auto& n : m.graph.nodes) {
    EXPECT_NE(n.op_type, "Conv") << "a Conv the CPU runs was not fused";
    EXPECT_NE(n.op_type, "Relu") << "a Relu after a CPU Conv was not fused";
    sigmoids += n.op_type == "Sigmoid" && n.domain.empty();
    fused += n.domain == "com.tessera";
  }
  EXPECT_EQ(sigmoids, 1u);
  EXPECT_GE(fused, 2u);
}

}  // namespace tessera::test
