#include <algorithm>

#include "ops/type_inference.hpp"
#include "providers/cpu/cpu_provider.hpp"
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

// Runs a node with input 1 (B) given to the kernel as a constant at creation,
// as a session does for an initializer, so the prepacked-B path runs; the
// other inputs arrive at run time. `threads` sizes the intra-op pool.
Value run_const_b(const std::string& op, const std::string& domain, int64_t opset,
                  const std::vector<Tensor>& inputs, std::vector<ir::Attribute> attrs,
                  int threads) {
  ir::Node node;
  node.name = "test_" + op;
  node.op_type = op;
  node.domain = domain;
  node.attributes = std::move(attrs);
  std::vector<ir::TypeInfo> types;
  std::vector<DataType> dtypes;
  std::vector<const Tensor*> constants;
  for (size_t i = 0; i < inputs.size(); ++i) {
    node.inputs.push_back("in" + std::to_string(i));
    types.push_back(ir::TypeInfo::tensor(inputs[i].dtype()));
    dtypes.push_back(inputs[i].dtype());
    constants.push_back(i == 1 ? &inputs[i] : nullptr);
  }
  node.outputs = {"y"};
  auto out_types = ops::infer_output_types(node, opset, types);
  auto m = cpu::cpu_kernel_registry().lookup(domain, op, opset, dtypes);
  if (!m.entry) fail(ErrorCode::kNotImplemented, node.describe(), ": ", m.reason);
  ep::KernelInfo info(node, opset, types, out_types, constants);
  auto kernel = m.entry->factory(info);
  std::vector<Value> in_values;
  for (const auto& t : inputs) in_values.push_back(Value(t));
  std::vector<const Value*> in_ptrs;
  for (auto& v : in_values) in_ptrs.push_back(&v);
  Value y;
  ThreadPool pool(threads);
  ep::KernelContext ctx(node, in_ptrs, {&y}, {out_types[0].elem_type}, default_cpu_allocator(),
                        &pool);
  kernel->compute(ctx);
  return y;
}

// MatMul with constant (prepacked) weights: 2-D, batched [B,S,K] x [K,N]
// stacked into one product, a 1-D A, N off the tile width, 1 and 2 threads.
TEST(NnMatMul, ConstantWeightsMatchNaive) {
  struct Case {
    std::vector<int64_t> a_shape;
    int64_t K, N;
  };
  const Case cases[] = {{{5, 7}, 7, 3},        {{2, 3, 70}, 70, 129}, {{1, 128, 96}, 96, 200},
                        {{70}, 70, 65},        {{1, 40}, 40, 1},      {{2, 2, 9, 600}, 600, 33}};
  uint32_t seed = 10;
  for (const auto& c : cases)
    for (int threads : {1, 2}) {
      int64_t rows = 1;
      for (size_t i = 0; i + 1 < c.a_shape.size(); ++i) rows *= c.a_shape[i];
      auto a = random_floats(size_t(rows * c.K), ++seed);
      auto b = random_floats(size_t(c.K * c.N), ++seed);
      std::vector<int64_t> yd(c.a_shape.begin(), c.a_shape.end() - 1);
      yd.push_back(c.N);
      auto y = run_const_b("MatMul", "", 13, {f32(a, Shape(c.a_shape)), f32(b, Shape{c.K, c.N})},
                           {}, threads);
      SCOPED_TRACE(::testing::Message() << "K=" << c.K << " N=" << c.N << " threads " << threads);
      expect_near(y, naive_matmul(a, b, rows, c.K, c.N), Shape(yd), 1e-4f * float(c.K));
    }
}

// Gemm with constant B (transB both ways), transposed A, alpha, beta and a
// broadcast C; FusedGemm adds its activation on top of the same path.
TEST(NnGemm, ConstantWeightsMatchNaive) {
  const int64_t M = 19, K = 130, N = 70;
  for (int ta : {0, 1})
    for (int tb : {0, 1})
      for (int threads : {1, 2}) {
        auto a = random_floats(size_t(M * K), 50 + uint32_t(ta * 2 + tb));
        auto b = random_floats(size_t(K * N), 60 + uint32_t(ta * 2 + tb));
        auto c = random_floats(size_t(N), 70);
        // Plain row-major op(A) [M,K] and op(B) [K,N] for the reference.
        std::vector<float> ra(a.size()), rb(b.size());
        for (int64_t i = 0; i < M; ++i)
          for (int64_t k = 0; k < K; ++k) ra[size_t(i * K + k)] = ta ? a[size_t(k * M + i)] : a[size_t(i * K + k)];
        for (int64_t k = 0; k < K; ++k)
          for (int64_t j = 0; j < N; ++j) rb[size_t(k * N + j)] = tb ? b[size_t(j * K + k)] : b[size_t(k * N + j)];
        std::vector<float> want = naive_matmul(ra, rb, M, K, N);
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) want[size_t(i * N + j)] = 1.5f * want[size_t(i * N + j)] + 0.5f * c[size_t(j)];
        const Tensor A = f32(a, ta ? Shape{K, M} : Shape{M, K});
        const Tensor B = f32(b, tb ? Shape{N, K} : Shape{K, N});
        std::vector<ir::Attribute> attrs = {attr_int("transA", ta), attr_int("transB", tb),
                                            attr_float("alpha", 1.5f), attr_float("beta", 0.5f)};
        SCOPED_TRACE(::testing::Message() << "ta " << ta << " tb " << tb << " threads " << threads);
        expect_near(run_const_b("Gemm", "", 13, {A, B, f32(c, Shape{N})}, attrs, threads), want,
                    Shape{M, N}, 1e-3f);
        attrs.push_back(attr_string("activation", "Relu"));
        std::vector<float> relu = want;
        for (auto& v : relu) v = std::max(v, 0.f);
        expect_near(run_const_b("FusedGemm", "com.tessera", 1, {A, B, f32(c, Shape{N})}, attrs,
                                threads),
                    relu, Shape{M, N}, 1e-3f);
      }
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
