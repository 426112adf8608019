// The one-node ONNX conformance cases of the recurrent, loss, text and extras
// families, run through the kernels directly (no session). Each test checks
// that the expected number of cases was found, so a renamed suite cannot pass
// silently; without the suite on the machine the tests skip.
#include <filesystem>

#include "unit/providers/family_conformance_util.hpp"

namespace tessera::test {

#define TESSERA_SKIP_WITHOUT_SUITE() \
  if (!std::filesystem::exists(kConformanceRoot)) GTEST_SKIP() << "no conformance suite here"

TEST(RecurrentConformance, Rnn) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_rnn") + run_conformance_prefix("test_simple_rnn"), 4);
}
TEST(RecurrentConformance, Gru) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_gru"), 4);
}
TEST(RecurrentConformance, Lstm) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_lstm"), 4);
}
TEST(RecurrentConformance, LinearAttention) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_linear_attention"), 14);
}
TEST(RecurrentConformance, CausalConvWithState) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_causal_conv"), 13);
}
TEST(LossConformance, NllLoss) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_nllloss"), 18);
}
TEST(LossConformance, SoftmaxCrossEntropy) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_sce"), 34);
}
TEST(TextConformance, TfIdfVectorizer) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_tfidfvectorizer"), 7);
}
TEST(ExtrasConformance, CumProd) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_cumprod"), 9);
}
TEST(ExtrasConformance, BitCast) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_bitcast"), 10);
}
TEST(ExtrasConformance, SwiGLU) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_swiglu"), 3);
}
TEST(ExtrasConformance, DeformConv) {
  TESSERA_SKIP_WITHOUT_SUITE();
  EXPECT_EQ(run_conformance_prefix("test_deform") + run_conformance_prefix("test_basic_deform"), 4);
}

}  // namespace tessera::test
