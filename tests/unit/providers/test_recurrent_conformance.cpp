// The one-node ONNX conformance cases of the recurrent family, run through the
// kernels directly (no session). Each test checks how many cases it found, so
// a renamed suite cannot pass silently; without the suite the tests skip.
#include "unit/providers/family_conformance_util.hpp"

namespace tessera::test {

TEST(RecurrentConformance, Rnn) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_rnn") + run_conformance_prefix("test_simple_rnn"), 4);
}
TEST(RecurrentConformance, Gru) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_gru"), 4);
}
TEST(RecurrentConformance, Lstm) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_lstm"), 4);
}
TEST(RecurrentConformance, LinearAttention) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_linear_attention"), 14);
}
TEST(RecurrentConformance, CausalConvWithState) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_causal_conv"), 13);
}

}  // namespace tessera::test
