// What the CUDA provider claims and declines for reductions, ArgMax/ArgMin,
// RMSNormalization and Attention, and the reduction plan. Needs no GPU.
#include <algorithm>

#include "ep/provider_registry.hpp"
#include "ops/graph_types.hpp"
#include "providers/cuda/attention_plan.hpp"
#include "providers/cuda/reduce_plan.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

Tensor floats(std::vector<int64_t> dims, DataType t = DataType::kFloat) {
  return make_tensor(t, dims, random_values(count(dims), 1));
}

Tensor bools(std::vector<int64_t> dims) {
  Tensor t(DataType::kBool, Shape(dims));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.mutable_data<bool>()[i] = i % 2 == 0;
  return t;
}

const char* kReduceOps[] = {"ReduceSum",       "ReduceMean",     "ReduceMax", "ReduceMin",
                            "ReduceProd",      "ReduceL1",       "ReduceL2",  "ReduceLogSum",
                            "ReduceLogSumExp", "ReduceSumSquare"};

std::vector<int64_t> v(const int64_t* p, int n) { return {p, p + n}; }

}  // namespace

TEST(CudaReduceClaims, ClaimsReductionsWithAxesAsAttributeOrInput) {
  for (const char* op : kReduceOps) {
    for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}) {
      OneNode old(op, 11, {attr_ints("axes", {-1, 0}), attr_int("keepdims", 0)});
      old.input("x", floats({2, 3, 4}, t)).output("y");
      EXPECT_EQ(claim(old), "") << op;
    }
    // Axes as input 1 (ReduceSum from 13, the others from 18), constant or not.
    OneNode in(op, 18);
    in.input("x", floats({2, 3, 4}))
        .input("axes", Tensor::from_vector<int64_t>({1}, Shape{1}))
        .output("y");
    EXPECT_EQ(claim(in), "") << op;
    OneNode fixed(op, 18, {attr_int("noop_with_empty_axes", 1)});
    fixed.input("x", floats({2, 3, 4}))
        .input("axes", Tensor::from_vector<int64_t>({0, 2}, Shape{2}), true)
        .output("y");
    EXPECT_EQ(claim(fixed), "") << op;
    OneNode all(op, 18);  // no axes: every dim
    all.input("x", floats({2, 3})).output("y");
    EXPECT_EQ(claim(all), "") << op;
  }
  OneNode sum13("ReduceSum", 13);
  sum13.input("x", floats({5, 6})).input("axes", Tensor::from_vector<int64_t>({-1}, Shape{1}));
  sum13.output("y");
  EXPECT_EQ(claim(sum13), "");
  OneNode scalar("ReduceMax", 11);
  scalar.input("x", Tensor::scalar<float>(2.0f)).output("y");
  EXPECT_EQ(claim(scalar), "");
}

TEST(CudaReduceClaims, DeclinesReductionsItCannotRun) {
  OneNode ints("ReduceSum", 13);
  ints.input("x", Tensor::from_vector<int32_t>({1, 2}, Shape{2})).output("y");
  expect_has(claim(ints), "int32");
  OneNode dbl("ReduceMean", 11);
  dbl.input("x", Tensor::from_vector<double>({1, 2}, Shape{2})).output("y");
  expect_has(claim(dbl), "double");
  OneNode wide("ReduceSum", 11, {attr_ints("axes", {0})});
  wide.input("x", floats({1, 1, 1, 1, 1, 1, 1, 1, 2})).output("y");
  expect_has(claim(wide), "rank 9; the CUDA kernel takes at most 8");
  OneNode out_of_range("ReduceMax", 11, {attr_ints("axes", {3})});
  out_of_range.input("x", floats({2, 3})).output("y");
  expect_has(claim(out_of_range), "axis 3 is out of range for rank 2");
  OneNode twice("ReduceL2", 11, {attr_ints("axes", {1, -1})});
  twice.input("x", floats({2, 3})).output("y");
  expect_has(claim(twice), "axis -1 is listed more than once");
}

TEST(CudaReduceClaims, ArgMaxAndArgMin) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    OneNode ok(op, 13, {attr_int("axis", -2), attr_int("select_last_index", 1)});
    ok.input("x", floats({3, 4, 5}, DataType::kFloat16)).output("y");
    EXPECT_EQ(claim(ok), "") << op;
    OneNode old(op, 1);
    old.input("x", floats({3, 4})).output("y");
    EXPECT_EQ(claim(old), "") << op;
    OneNode bad_axis(op, 13, {attr_int("axis", 2)});
    bad_axis.input("x", floats({3, 4})).output("y");
    expect_has(claim(bad_axis), "axis 2 is out of range for rank 2");
    OneNode ints(op, 13);
    ints.input("x", Tensor::from_vector<int64_t>({1, 2}, Shape{2})).output("y");
    expect_has(claim(ints), "int64");
  }
}

TEST(CudaReduceClaims, RmsNormalization) {
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}) {
    OneNode rms("RMSNormalization", 23, {attr_int("axis", 1)});
    rms.input("x", floats({2, 3, 8}, t)).input("s", floats({3, 8}, t), true).output("y");
    EXPECT_EQ(claim(rms), "");
  }
  OneNode trailing("RMSNormalization", 23, {attr_int("axis", -2)});
  trailing.input("x", floats({2, 3, 8})).input("s", floats({1, 8})).output("y");
  EXPECT_EQ(claim(trailing), "");
  OneNode stash("RMSNormalization", 23, {attr_int("stash_type", 11)});
  stash.input("x", floats({2, 8})).input("s", floats({8})).output("y");
  expect_has(claim(stash), "stash_type 11");
  OneNode axis("RMSNormalization", 23, {attr_int("axis", 2)});
  axis.input("x", floats({2, 8})).input("s", floats({8})).output("y");
  expect_has(claim(axis), "axis 2 is out of range for rank 2");
  OneNode inner("RMSNormalization", 23, {attr_int("axis", 1)});
  inner.input("x", floats({2, 3, 8})).input("s", floats({3, 1})).output("y");
  expect_has(claim(inner), "Scale dim 1 does not equal X's dim 8");
  OneNode big("RMSNormalization", 23, {attr_int("axis", -1)});
  big.input("x", floats({2, 3, 8})).input("s", floats({3, 8})).output("y");
  expect_has(claim(big), "Scale has more dims than the 1 normalized dims");
}

TEST(CudaReduceClaims, AttentionSubset) {
  OneNode four("Attention", 23, {attr_int("is_causal", 1), attr_float("softcap", 5.0f)});
  four.input("q", floats({1, 4, 3, 8}))
      .input("k", floats({1, 2, 5, 8}))
      .input("v", floats({1, 2, 5, 6}))
      .input("m", bools({3, 5}))
      .output("y");
  EXPECT_EQ(claim(four), "");
  OneNode three("Attention", 23, {attr_int("q_num_heads", 4), attr_int("kv_num_heads", 2)});
  three.input("q", floats({2, 3, 32}, DataType::kBFloat16))
      .input("k", floats({2, 5, 16}, DataType::kBFloat16))
      .input("v", floats({2, 5, 16}, DataType::kBFloat16))
      .input("m", floats({2, 1, 3, 5}, DataType::kBFloat16))
      .output("y");
  EXPECT_EQ(claim(three), "");

  OneNode no_heads("Attention", 23);
  no_heads.input("q", floats({2, 3, 32})).input("k", floats({2, 5, 32}));
  no_heads.input("v", floats({2, 5, 32})).output("y");
  expect_has(claim(no_heads), "3-D inputs need q_num_heads and kv_num_heads");
  OneNode past("Attention", 23);
  past.input("q", floats({1, 2, 3, 8}))
      .input("k", floats({1, 2, 3, 8}))
      .input("v", floats({1, 2, 3, 8}))
      .omitted()
      .input("pk", floats({1, 2, 4, 8}))
      .input("pv", floats({1, 2, 4, 8}))
      .output("y")
      .output("present_k")
      .output("present_v");
  expect_has(claim(past), "(the KV cache) are not supported");
  OneNode qk("Attention", 23);
  qk.input("q", floats({1, 2, 3, 8})).input("k", floats({1, 2, 3, 8}));
  qk.input("v", floats({1, 2, 3, 8})).output("y");
  qk.model.graph.nodes[0].outputs.insert(qk.model.graph.nodes[0].outputs.end(), {"", ""});
  qk.output("qk");
  expect_has(claim(qk), "qk_matmul_output");
  OneNode int_mask("Attention", 23);
  int_mask.input("q", floats({1, 2, 3, 8}))
      .input("k", floats({1, 2, 3, 8}))
      .input("v", floats({1, 2, 3, 8}))
      .input("m", Tensor::from_vector<int32_t>({0, 1, 0}, Shape{3}))
      .output("y");
  expect_has(claim(int_mask), "int32");
  OneNode rank5("Attention", 23);
  rank5.input("q", floats({1, 1, 2, 3, 8}))
      .input("k", floats({1, 1, 2, 3, 8}))
      .input("v", floats({1, 1, 2, 3, 8}))
      .output("y");
  expect_has(claim(rank5), "rank 5, not 3 or 4");
}

TEST(CudaReducePlan, MergesRunsAndDropsOnes) {
  using cuda::ReduceShape;
  ReduceShape s;
  // [2, 3, 4, 5] reducing {2, 3}: one kept run of 6 (stride 20), one reduced of 20.
  ASSERT_TRUE(cuda::plan_reduce({2, 3, 4, 5}, {false, false, true, true}, s));
  EXPECT_EQ(s.kept_runs, 1);
  EXPECT_EQ(v(s.kept_sizes, 1), std::vector<int64_t>({6}));
  EXPECT_EQ(v(s.kept_strides, 1), std::vector<int64_t>({20}));
  EXPECT_EQ(s.red_runs, 1);
  EXPECT_EQ(v(s.red_sizes, 1), std::vector<int64_t>({20}));
  EXPECT_EQ(v(s.red_strides, 1), std::vector<int64_t>({1}));
  EXPECT_EQ(s.outputs, 6);
  EXPECT_EQ(s.count, 20);
  EXPECT_TRUE(s.inner_reduced);
  // Leading dims reduced, a size-1 dim between them dropped: [4, 1, 3, 5] over {0, 1}.
  ASSERT_TRUE(cuda::plan_reduce({4, 1, 3, 5}, {true, true, false, false}, s));
  EXPECT_EQ(s.red_runs, 1);
  EXPECT_EQ(v(s.red_sizes, 1), std::vector<int64_t>({4}));
  EXPECT_EQ(v(s.red_strides, 1), std::vector<int64_t>({15}));
  EXPECT_EQ(v(s.kept_sizes, 1), std::vector<int64_t>({15}));
  EXPECT_EQ(v(s.kept_strides, 1), std::vector<int64_t>({1}));
  EXPECT_FALSE(s.inner_reduced);
  // Alternating: [2, 3, 4, 5] over {1, 3}.
  ASSERT_TRUE(cuda::plan_reduce({2, 3, 4, 5}, {false, true, false, true}, s));
  EXPECT_EQ(v(s.kept_sizes, 2), std::vector<int64_t>({2, 4}));
  EXPECT_EQ(v(s.kept_strides, 2), std::vector<int64_t>({60, 5}));
  EXPECT_EQ(v(s.red_sizes, 2), std::vector<int64_t>({3, 5}));
  EXPECT_EQ(v(s.red_strides, 2), std::vector<int64_t>({20, 1}));
  EXPECT_EQ(s.outputs, 8);
  EXPECT_EQ(s.count, 15);
  EXPECT_TRUE(s.inner_reduced);
  // A reduced dim of 1 is as good as kept: [3, 1] over {1} is a copy.
  ASSERT_TRUE(cuda::plan_reduce({3, 1}, {false, true}, s));
  EXPECT_EQ(s.red_runs, 0);
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.outputs, 3);
  EXPECT_FALSE(s.inner_reduced);
  // A scalar, and an empty reduced dim (the identity for each output).
  ASSERT_TRUE(cuda::plan_reduce({}, {}, s));
  EXPECT_EQ(s.outputs, 1);
  EXPECT_EQ(s.count, 1);
  ASSERT_TRUE(cuda::plan_reduce({3, 0}, {false, true}, s));
  EXPECT_EQ(s.outputs, 3);
  EXPECT_EQ(s.count, 0);
  ASSERT_TRUE(cuda::plan_reduce({0, 3}, {false, true}, s));
  EXPECT_EQ(s.outputs, 0);
}

TEST(CudaReducePlan, RefusesMoreRunsThanItHolds) {
  cuda::ReduceShape s;
  std::vector<int64_t> dims(18, 2);
  std::vector<bool> reduced(18);
  for (size_t i = 0; i < reduced.size(); ++i) reduced[i] = i % 2 == 1;
  EXPECT_FALSE(cuda::plan_reduce(dims, reduced, s));
  dims.resize(16);
  reduced.resize(16);
  EXPECT_TRUE(cuda::plan_reduce(dims, reduced, s));
  EXPECT_EQ(s.kept_runs, 8);
  EXPECT_EQ(s.red_runs, 8);
}

TEST(CudaAttentionPlan, FourDimensionalHeadsAndABroadcastMask) {
  cuda::AttentionShape s;
  const std::vector<int64_t> mask = {3, 5};
  ASSERT_EQ(cuda::plan_attention({2, 4, 3, 8}, {2, 2, 5, 8}, {2, 2, 5, 6}, &mask, 0, 0, s), "");
  EXPECT_EQ(s.batch, 2);
  EXPECT_EQ(s.q_heads, 4);
  EXPECT_EQ(s.kv_heads, 2);
  EXPECT_EQ(s.q_len, 3);
  EXPECT_EQ(s.kv_len, 5);
  EXPECT_EQ(s.head_size, 8);
  EXPECT_EQ(s.v_head_size, 6);
  EXPECT_EQ(v(s.q_strides, 3), std::vector<int64_t>({96, 24, 8}));
  EXPECT_EQ(v(s.k_strides, 3), std::vector<int64_t>({80, 40, 8}));
  EXPECT_EQ(v(s.v_strides, 3), std::vector<int64_t>({60, 30, 6}));
  EXPECT_EQ(v(s.y_strides, 3), std::vector<int64_t>({72, 18, 6}));
  EXPECT_EQ(v(s.mask_strides, 4), std::vector<int64_t>({0, 0, 5, 1}));
  EXPECT_EQ(s.mask_keys, INT64_MAX);
}

TEST(CudaAttentionPlan, ThreeDimensionalInputsAndShortMasks) {
  cuda::AttentionShape s;
  // Q [B=2, S=3, 4 heads * 8], K [2, 5, 2 heads * 8], V [2, 5, 2 heads * 6].
  const std::vector<int64_t> mask = {2, 1, 3, 4};  // 4 of 5 keys
  ASSERT_EQ(cuda::plan_attention({2, 3, 32}, {2, 5, 16}, {2, 5, 12}, &mask, 4, 2, s), "");
  EXPECT_EQ(s.head_size, 8);
  EXPECT_EQ(s.v_head_size, 6);
  EXPECT_EQ(v(s.q_strides, 3), std::vector<int64_t>({96, 8, 32}));
  EXPECT_EQ(v(s.k_strides, 3), std::vector<int64_t>({80, 8, 16}));
  EXPECT_EQ(v(s.v_strides, 3), std::vector<int64_t>({60, 6, 12}));
  EXPECT_EQ(v(s.y_strides, 3), std::vector<int64_t>({72, 6, 24}));  // Y [2, 3, 4 * 6]
  EXPECT_EQ(v(s.mask_strides, 4), std::vector<int64_t>({12, 0, 4, 1}));
  EXPECT_EQ(s.mask_keys, 4);
  // A mask of one key column broadcasts over the keys.
  const std::vector<int64_t> col = {3, 1};
  ASSERT_EQ(cuda::plan_attention({2, 3, 32}, {2, 5, 16}, {2, 5, 12}, &col, 4, 2, s), "");
  EXPECT_EQ(v(s.mask_strides, 4), std::vector<int64_t>({0, 0, 1, 0}));
  EXPECT_EQ(s.mask_keys, INT64_MAX);
}

TEST(CudaAttentionPlan, SaysWhyShapesDoNotFit) {
  cuda::AttentionShape s;
  expect_has(cuda::plan_attention({2, 3, 32}, {2, 2, 5, 8}, {2, 2, 5, 8}, nullptr, 4, 2, s),
             "must all be 3-D or all 4-D");
  expect_has(cuda::plan_attention({2, 3, 32}, {2, 5, 16}, {2, 5, 16}, nullptr, 0, 2, s),
             "need q_num_heads (0)");
  expect_has(cuda::plan_attention({1, 3, 3, 8}, {1, 2, 5, 8}, {1, 2, 5, 8}, nullptr, 0, 0, s),
             "query heads a multiple");
  expect_has(cuda::plan_attention({1, 2, 3, 8}, {1, 2, 5, 4}, {1, 2, 5, 8}, nullptr, 0, 0, s),
             "one head size");
  expect_has(cuda::plan_attention({1, 2, 3, 8}, {1, 2, 5, 8}, {1, 2, 4, 8}, nullptr, 0, 0, s),
             "V must have K's head count and sequence length");
  const std::vector<int64_t> wide = {3, 6};
  expect_has(cuda::plan_attention({1, 2, 3, 8}, {1, 2, 5, 8}, {1, 2, 5, 8}, &wide, 0, 0, s),
             "attn_mask [3,6] does not broadcast to [1,2,3,5]");
  const std::vector<int64_t> rank5 = {1, 1, 1, 3, 5};
  expect_has(cuda::plan_attention({1, 2, 3, 8}, {1, 2, 5, 8}, {1, 2, 5, 8}, &rank5, 0, 0, s),
             "must have rank 1 to 4");
}
