// MatMulInteger through the packed integer GEMM (providers/cpu/quant/
// igemm_matmul.cpp) against the definition: a tall A under one B, batched
// B, a constant B packed at session creation, per-row and per-column zero
// points, and the N-D zero points that take the exact reference loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "unit/kernel_test_util.hpp"
#include "unit/providers/one_node_model.hpp"

namespace tessera {
namespace {

using test::random_bytes;
using test::run_node;

// The definition over numpy's matmul broadcasting of 3-D A and 2-D or 3-D B
// (batch of B 1 or A's), zero points a scalar or 1-D (per row / column),
// reduced to 32 bits as the product wraps.
std::vector<int32_t> reference(const Tensor& a, const Tensor& b, const Tensor* za,
                               const Tensor* zb) {
  const int64_t batch = a.shape()[0], M = a.shape()[1], K = a.shape()[2];
  const int64_t N = b.shape()[b.rank() - 1];
  const bool b_batched = b.rank() == 3;
  auto zp = [](const Tensor* z, int64_t i) {
    if (!z) return int64_t(0);
    return int64_t(z->element_as_double(z->num_elements() == 1 ? 0 : i));
  };
  std::vector<int32_t> out;
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        int64_t s = 0;
        for (int64_t k = 0; k < K; ++k) {
          const int64_t av = int64_t(a.element_as_double((bi * M + m) * K + k));
          const int64_t bv = int64_t(b.element_as_double(((b_batched ? bi * K : 0) + k) * N + n));
          s += (av - zp(za, m)) * (bv - zp(zb, n));
        }
        out.push_back(int32_t(uint32_t(uint64_t(s))));
      }
  return out;
}

std::vector<int32_t> ints(const Tensor& t) {
  const int32_t* p = t.data<int32_t>();
  return std::vector<int32_t>(p, p + t.num_elements());
}

TEST(MatMulInteger, EverySignednessZeroPointFormAndBatchLayout) {
  uint32_t seed = 1;
  for (DataType ta : {DataType::kUInt8, DataType::kInt8})
    for (DataType tb : {DataType::kUInt8, DataType::kInt8})
      for (bool b_batched : {false, true}) {
        const Tensor a = random_bytes(ta, Shape{2, 7, 9}, seed++);
        const Tensor b = random_bytes(tb, b_batched ? Shape{2, 9, 70} : Shape{9, 70}, seed++);
        const Tensor za_row = random_bytes(ta, Shape{7}, seed++);
        const Tensor zb_col = random_bytes(tb, Shape{70}, seed++);
        const Tensor za_one = random_bytes(ta, Shape{}, seed++);
        const Tensor zb_one = random_bytes(tb, Shape{}, seed++);
        const std::string what = std::string(data_type_name(ta)) + " x " +
                                 std::string(data_type_name(tb)) +
                                 (b_batched ? ", batched B" : ", one B");
        auto out = run_node("MatMulInteger", {a, b}, {}, 10);
        EXPECT_EQ(ints(out[0].tensor()), reference(a, b, nullptr, nullptr)) << what;
        out = run_node("MatMulInteger", {a, b, za_one, zb_one}, {}, 10);
        EXPECT_EQ(ints(out[0].tensor()), reference(a, b, &za_one, &zb_one)) << what << ", scalars";
        out = run_node("MatMulInteger", {a, b, za_row, zb_col}, {}, 10);
        EXPECT_EQ(ints(out[0].tensor()), reference(a, b, &za_row, &zb_col))
            << what << ", per row and column";
      }
}

TEST(MatMulInteger, ConstantWeightsPackedOnceGiveTheSameProduct) {
  const Tensor a = random_bytes(DataType::kUInt8, Shape{3, 5, 130}, 7);
  const Tensor b = random_bytes(DataType::kInt8, Shape{130, 100}, 8);
  const Tensor za = Tensor::scalar<uint8_t>(131), zb = Tensor::scalar<int8_t>(-3);
  test::OneNode m("MatMulInteger", 10);
  m.input("a", a).input("b", b, true).input("za", za).input("zb", zb, true).output("y");
  auto s = Session::create_from_model(m.model, {}, {});
  const auto want = reference(a, b, &za, &zb);
  for (int run = 0; run < 2; ++run)  // the packed B serves every run
    EXPECT_EQ(ints(s->run(m.feeds)[0].tensor()), want) << "run " << run;
}

TEST(MatMulInteger, NdZeroPointsTakeTheReferenceLoop) {
  // a_zero_point shaped like A with K reduced to 1: outside the packed GEMM.
  const Tensor a = random_bytes(DataType::kUInt8, Shape{1, 4, 6}, 9);
  const Tensor b = random_bytes(DataType::kUInt8, Shape{6, 3}, 10);
  const Tensor za_nd = random_bytes(DataType::kUInt8, Shape{1, 4, 1}, 11);
  Tensor za_1d(DataType::kUInt8, Shape{4});
  for (int64_t i = 0; i < 4; ++i)
    static_cast<uint8_t*>(za_1d.mutable_raw_data())[i] =
        static_cast<const uint8_t*>(za_nd.raw_data())[i];
  auto out = run_node("MatMulInteger", {a, b, za_nd}, {}, 10);
  EXPECT_EQ(ints(out[0].tensor()), reference(a, b, &za_1d, nullptr));
}

TEST(QLinearMatMul, FastPathGivesTheReferenceBytes) {
  // The packed GEMM's sums requantized as QLinearConv's are:
  // float(acc) * (a_scale * b_scale[n]) / y_scale, rounded half to even, plus
  // the zero point, clamped; per-tensor (the vector requantization) and
  // per-column B, both signednesses, a batched A under one B (one tall
  // product, requantized in the tile) and under a batched B (a product per
  // matrix).
  uint32_t seed = 300;
  for (DataType ta : {DataType::kUInt8, DataType::kInt8})
    for (DataType tb : {DataType::kUInt8, DataType::kInt8})
      for (bool per_col : {false, true})
        for (bool b_batched : {false, true}) {
          const int64_t batch = 2, M = 5, K = 70, N = 67;
          const Tensor a = random_bytes(ta, Shape{batch, M, K}, seed++);
          const Tensor b = random_bytes(tb, b_batched ? Shape{batch, K, N} : Shape{K, N}, seed++);
          const Tensor za = random_bytes(ta, Shape{}, seed++);
          const Tensor zb = random_bytes(tb, per_col ? Shape{N} : Shape{}, seed++);
          Tensor bs(DataType::kFloat, per_col ? Shape{N} : Shape{});
          for (int64_t n = 0; n < bs.num_elements(); ++n)
            bs.mutable_data<float>()[n] = 0.0007f * float(n + 3);
          const float as = 0.013f, ys = 0.9f;
          const Tensor yz = Tensor::scalar<int8_t>(-5);
          auto out = run_node(
              "QLinearMatMul",
              {a, Tensor::scalar<float>(as), za, b, bs, zb, Tensor::scalar<float>(ys), yz}, {}, 10);
          const Tensor& y = out[0].tensor();
          ASSERT_EQ(y.shape(), (Shape{batch, M, N}));
          const auto acc = reference(a, b, &za, &zb);
          for (size_t i = 0; i < acc.size(); ++i) {
            const int64_t n = int64_t(i) % N;
            const float real = float(acc[i]) * (as * bs.data<float>()[per_col ? n : 0]);
            const float want = std::clamp(std::nearbyint(real / ys) - 5.0f, -128.0f, 127.0f);
            ASSERT_EQ(float(y.data<int8_t>()[i]), want)
                << "element " << i << (b_batched ? ", batched B" : ", one B");
          }
        }
}

}  // namespace
}  // namespace tessera
