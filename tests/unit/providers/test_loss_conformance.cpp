// The one-node ONNX conformance cases of the loss family, run through the
// kernels directly (no session). Each test checks how many cases it found, so
// a renamed suite cannot pass silently; without the suite the tests skip.
#include "unit/providers/family_conformance_util.hpp"

namespace tessera::test {

TEST(LossConformance, NllLoss) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_nllloss"), 18);
}
TEST(LossConformance, SoftmaxCrossEntropy) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_sce"), 34);
}

}  // namespace tessera::test
