#include "unit/providers/nn_test_helpers.hpp"

namespace tessera::test::nn {
namespace {

TEST(NnGemm, TransposesAlphaBetaAndBroadcastC) {
  // A^T is [[1,2],[3,4]] (A stored [[1,3],[2,4]]), B = I, C a row vector.
  auto out = run_node("Gemm",
                      {f32({1, 3, 2, 4}, Shape{2, 2}), f32({1, 0, 0, 1}, Shape{2, 2}), f32({10, 20}, Shape{2})},
                      {attr_int("transA", 1), attr_float("alpha", 2.f), attr_float("beta", 0.5f)}, 13);
  expect_near(out[0], {7, 14, 11, 18}, Shape{2, 2});
}

TEST(NnGemm, IntegerAndOptionalC) {
  auto out = run_node("Gemm",
                      {Tensor::from_vector<int32_t>({1, 2, 3, 4}, Shape{2, 2}),
                       Tensor::from_vector<int32_t>({5, 6, 7, 8}, Shape{2, 2})},
                      {}, 13);
  const int32_t* y = out[0].tensor().data<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(y, y + 4), (std::vector<int32_t>{19, 22, 43, 50}));
}

TEST(NnGemm, InnerDimensionMismatchNamesShapes) {
  auto err = error_of([] {
    run_node("Gemm", {f32(std::vector<float>(6), Shape{2, 3}), f32(std::vector<float>(8), Shape{4, 2})});
  });
  EXPECT_NE(err.find("[2,3]"), std::string::npos) << err;
  EXPECT_NE(err.find("[4,2]"), std::string::npos) << err;
}

std::vector<float> naive_matmul(const std::vector<float>& a, const std::vector<float>& b, int64_t M,
                                int64_t K, int64_t N) {
  std::vector<float> y(size_t(M * N), 0.f);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) y[size_t(i * N + j)] += a[size_t(i * K + k)] * b[size_t(k * N + j)];
  return y;
}

TEST(NnMatMul, BatchBroadcastAndVectors) {
  auto a = random_floats(2 * 3 * 4, 1);
  auto b = random_floats(4 * 5, 2);
  // [2,3,4] x [4,5] folds into one GEMM.
  std::vector<float> want = naive_matmul(a, b, 6, 4, 5);
  expect_near(run_node("MatMul", {f32(a, Shape{2, 3, 4}), f32(b, Shape{4, 5})})[0], want, Shape{2, 3, 5});
  // [1,4] broadcast against [2,4,5] batches B.
  auto b2 = random_floats(2 * 4 * 5, 3);
  auto a1 = random_floats(4, 4);
  std::vector<float> want2;
  for (int bi = 0; bi < 2; ++bi) {
    std::vector<float> bb(b2.begin() + bi * 20, b2.begin() + bi * 20 + 20);
    auto r = naive_matmul(a1, bb, 1, 4, 5);
    want2.insert(want2.end(), r.begin(), r.end());
  }
  // 1-D A drops the M dim.
  expect_near(run_node("MatMul", {f32(a1, Shape{4}), f32(b2, Shape{2, 4, 5})})[0], want2, Shape{2, 5});
  // 1-D x 1-D is a dot product.
  expect_near(run_node("MatMul", {f32({1, 2, 3}, Shape{3}), f32({4, 5, 6}, Shape{3})})[0], {32}, Shape{});
}

TEST(NnMatMul, Int64AndDouble) {
  auto out = run_node("MatMul", {Tensor::from_vector<int64_t>({1, 2}, Shape{1, 2}),
                                 Tensor::from_vector<int64_t>({3, 4}, Shape{2, 1})});
  EXPECT_EQ(out[0].tensor().data<int64_t>()[0], 11);
  auto d = run_node("MatMul", {Tensor::from_vector<double>({1, 2}, Shape{1, 2}),
                               Tensor::from_vector<double>({3, 4}, Shape{2, 1})});
  EXPECT_EQ(d[0].tensor().data<double>()[0], 11.0);
}

TEST(NnMatMul, BatchMismatchIsAnError) {
  auto err = error_of([] {
    run_node("MatMul", {f32(std::vector<float>(12), Shape{3, 2, 2}), f32(std::vector<float>(8), Shape{2, 2, 2})});
  });
  EXPECT_NE(err.find("do not broadcast"), std::string::npos) << err;
}

TEST(NnDropout, InferenceIsIdentityWithTrueMask) {
  auto out = run_node("Dropout", {f32({1, 2, 3}, Shape{3})}, {}, 13, 2);
  expect_near(out[0], {1, 2, 3}, Shape{3});
  ASSERT_EQ(out[1].tensor().dtype(), DataType::kBool);
  EXPECT_TRUE(out[1].tensor().data<bool>()[2]);
  auto old = run_node("Dropout", {f32({1, 2}, Shape{2})}, {attr_float("ratio", 0.3f)}, 7, 2);
  expect_near(old[1], {1, 1}, Shape{2});
}

TEST(NnDropout, TrainingModeDropsAndScales) {
  auto out = run_node("Dropout",
                      {f32(std::vector<float>(1000, 1.f), Shape{1000}), f32({0.5f}, Shape{}),
                       Tensor::from_vector<bool>({true}, Shape{})},
                      {attr_int("seed", 3)}, 13, 2);
  auto y = floats_of(out[0]);
  int kept = 0;
  for (float v : y) {
    ASSERT_TRUE(v == 0.f || v == 2.f);
    kept += v != 0.f;
  }
  EXPECT_GT(kept, 400);
  EXPECT_LT(kept, 600);
}

}  // namespace
}  // namespace tessera::test::nn
