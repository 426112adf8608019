// The host-side plans of the CUDA kernels: numpy broadcasting collapsed for
// the element-wise kernels, and MatMul's batches mapped onto GEMMs. Plain
// C++: runs without a GPU.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "providers/cuda/broadcast_plan.hpp"
#include "providers/cuda/matmul_plan.hpp"

using namespace tessera;
using namespace tessera::cuda;

namespace {

std::vector<int64_t> dims(const BroadcastPlan& p) { return {p.dims, p.dims + p.rank}; }
std::vector<int64_t> strides(const BroadcastPlan& p, int i) {
  return {p.strides[i], p.strides[i] + p.rank};
}

// Element offsets of every output element, walked the way the device does.
std::vector<std::pair<int64_t, int64_t>> walk(const BroadcastPlan& p) {
  int64_t n = 1;
  for (int d = 0; d < p.rank; ++d) n *= p.dims[d];
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, a = 0, b = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      a += rem % p.dims[d] * p.strides[0][d];
      b += rem % p.dims[d] * p.strides[1][d];
      rem /= p.dims[d];
    }
    out.emplace_back(a, b);
  }
  return out;
}

}  // namespace

TEST(CudaBroadcastPlan, SameShapesCollapseToOneDim) {
  BroadcastPlan p = plan_broadcast(Shape{2, 3, 4}, Shape{2, 3, 4}, Shape{2, 3, 4});
  EXPECT_EQ(dims(p), (std::vector<int64_t>{24}));
  EXPECT_EQ(strides(p, 0), (std::vector<int64_t>{1}));
  EXPECT_EQ(strides(p, 1), (std::vector<int64_t>{1}));
}

TEST(CudaBroadcastPlan, ScalarHasStrideZero) {
  BroadcastPlan p = plan_broadcast(Shape{2, 3}, Shape{}, Shape{2, 3});
  EXPECT_EQ(dims(p), (std::vector<int64_t>{6}));
  EXPECT_EQ(strides(p, 1), (std::vector<int64_t>{0}));
  p = plan_broadcast(Shape{1}, Shape{}, Shape{1});
  EXPECT_EQ(dims(p), (std::vector<int64_t>{1}));
}

TEST(CudaBroadcastPlan, PerChannelBiasKeepsTheBroadcastDims) {
  // NCHW + [C, 1, 1]: H and W merge; N and C stay apart.
  BroadcastPlan p = plan_broadcast(Shape{2, 3, 4, 5}, Shape{3, 1, 1}, Shape{2, 3, 4, 5});
  EXPECT_EQ(dims(p), (std::vector<int64_t>{2, 3, 20}));
  EXPECT_EQ(strides(p, 0), (std::vector<int64_t>{60, 20, 1}));
  EXPECT_EQ(strides(p, 1), (std::vector<int64_t>{0, 1, 0}));
  auto w = walk(p);
  ASSERT_EQ(w.size(), 120u);
  for (int64_t i = 0; i < 120; ++i) {
    EXPECT_EQ(w[size_t(i)].first, i);
    EXPECT_EQ(w[size_t(i)].second, (i / 20) % 3);
  }
}

TEST(CudaBroadcastPlan, BothSidesBroadcastAnOuterProduct) {
  BroadcastPlan p = plan_broadcast(Shape{3, 1}, Shape{1, 4}, Shape{3, 4});
  auto w = walk(p);
  ASSERT_EQ(w.size(), 12u);
  for (int64_t i = 0; i < 12; ++i) {
    EXPECT_EQ(w[size_t(i)].first, i / 4);
    EXPECT_EQ(w[size_t(i)].second, i % 4);
  }
}

TEST(CudaBroadcastPlan, EmptyOutputHasNoDims) {
  EXPECT_EQ(plan_broadcast(Shape{0, 3}, Shape{3}, Shape{0, 3}).rank, 0);
}

TEST(CudaBroadcastPlan, TooManyDimsAfterMergingIsAClearError) {
  // Alternating broadcast dims cannot merge: 10 dims remain.
  Shape a{2, 1, 2, 1, 2, 1, 2, 1, 2, 1}, b{1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
  Shape out{2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
  try {
    plan_broadcast(a, b, out);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("needs 10 dims after merging"), std::string::npos)
        << e.what();
  }
  // Ranks above 8 that merge are fine.
  Shape big{1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
  EXPECT_EQ(plan_broadcast(big, big, big).rank, 1);
}

TEST(CudaBroadcastPlan, ShapesThatDoNotBroadcastAreRefused) {
  EXPECT_THROW(plan_broadcast(Shape{2, 3}, Shape{4}, Shape{2, 3}), Error);
}

TEST(CudaMatMulPlan, TwoDimensional) {
  MatMulPlan p = plan_matmul(Shape{2, 3}, Shape{3, 4});
  EXPECT_EQ(p.out, (Shape{2, 4}));
  EXPECT_EQ(p.m, 2);
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.n, 4);
  EXPECT_EQ(p.batch, 1);
}

TEST(CudaMatMulPlan, BatchedAOverOneBFoldsIntoRows) {
  MatMulPlan p = plan_matmul(Shape{5, 2, 3}, Shape{3, 4});
  EXPECT_EQ(p.out, (Shape{5, 2, 4}));
  EXPECT_EQ(p.m, 10);
  EXPECT_EQ(p.batch, 1);
  p = plan_matmul(Shape{5, 2, 3}, Shape{1, 3, 4});  // a batch of one is one matrix too
  EXPECT_EQ(p.out, (Shape{5, 2, 4}));
  EXPECT_EQ(p.m, 10);
}

TEST(CudaMatMulPlan, EqualBatchesAreStrided) {
  MatMulPlan p = plan_matmul(Shape{2, 5, 2, 3}, Shape{2, 5, 3, 4});
  EXPECT_EQ(p.out, (Shape{2, 5, 2, 4}));
  EXPECT_EQ(p.batch, 10);
  EXPECT_EQ(p.stride_a, 6);
  EXPECT_EQ(p.stride_b, 12);
  EXPECT_TRUE(p.offsets_a.empty());
}

TEST(CudaMatMulPlan, OneAOverBatchedBHasStrideZero) {
  MatMulPlan p = plan_matmul(Shape{2, 3}, Shape{7, 3, 4});
  EXPECT_EQ(p.out, (Shape{7, 2, 4}));
  EXPECT_EQ(p.batch, 7);
  EXPECT_EQ(p.stride_a, 0);
  EXPECT_EQ(p.stride_b, 12);
}

TEST(CudaMatMulPlan, IrregularBroadcastListsOffsets) {
  // [2,1] x [1,3] batches -> 6 products.
  MatMulPlan p = plan_matmul(Shape{2, 1, 2, 3}, Shape{1, 3, 3, 4});
  EXPECT_EQ(p.out, (Shape{2, 3, 2, 4}));
  ASSERT_EQ(p.offsets_a.size(), 6u);
  EXPECT_EQ(p.offsets_a, (std::vector<int64_t>{0, 0, 0, 6, 6, 6}));
  EXPECT_EQ(p.offsets_b, (std::vector<int64_t>{0, 12, 24, 0, 12, 24}));
}

TEST(CudaMatMulPlan, OneDimensionalOperandsArePromotedAndDropped) {
  MatMulPlan p = plan_matmul(Shape{3}, Shape{3, 4});
  EXPECT_EQ(p.out, (Shape{4}));
  EXPECT_EQ(p.m, 1);
  p = plan_matmul(Shape{2, 3}, Shape{3});
  EXPECT_EQ(p.out, (Shape{2}));
  EXPECT_EQ(p.n, 1);
  p = plan_matmul(Shape{3}, Shape{3});
  EXPECT_EQ(p.out, (Shape{}));
  p = plan_matmul(Shape{4, 2, 3}, Shape{3});
  EXPECT_EQ(p.out, (Shape{4, 2}));
  EXPECT_EQ(p.m, 8);
}

TEST(CudaMatMulPlan, MismatchesAreClearErrors) {
  try {
    plan_matmul(Shape{2, 3}, Shape{4, 5});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("inner dims differ: [2,3] x [4,5]"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(plan_matmul(Shape{2, 2, 3}, Shape{3, 3, 4}), Error);
  EXPECT_THROW(plan_matmul(Shape{}, Shape{3}), Error);
}
