// The CUDA indexing, fill and layout kernels against the CPU provider:
// GatherElements, GatherND, ScatterElements and ScatterND (every reduction),
// Tile, Pad (every mode, pads and values as inputs or attributes), Trilu,
// OneHot, CumSum, DepthToSpace, SpaceToDepth, ConstantOfShape, Range and
// NonZero, on
// random data with negative indices, several element sizes and odd shapes.
// Ops that only move elements must match bit for bit (NaN matching NaN);
// those that compute match within a tolerance stated per test. Needs a CUDA
// device: without one every test here is skipped and says why.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "unit/providers/cuda_index_test_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;
using tessera::test::attr_tensor;

namespace {
const std::vector<DataType> kTypes = {DataType::kFloat, DataType::kFloat16, DataType::kInt64,
                                      DataType::kUInt8, DataType::kBool,    DataType::kDouble};

std::string name_of(DataType t) { return std::string(data_type_name(t)); }

}  // namespace

TEST(CudaIndexOps, GatherElementsAnyAxisNegativeIndices) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes)
    for (DataType it : {DataType::kInt32, DataType::kInt64})
      for (int64_t axis : {0, 1, 2, -1}) {
        const std::vector<int64_t> data = {3, 4, 5};
        std::vector<int64_t> idx = {2, 3, 4};
        idx[size_t(axis < 0 ? axis + 3 : axis)] = 7;  // longer than the data on the axis
        OneNode m("GatherElements", 13, {attr_int("axis", axis)});
        m.input("x", random_tensor(t, data, 1))
            .input("i", random_indices(it, idx, data[size_t(axis < 0 ? axis + 3 : axis)], 2))
            .output("y");
        expect_cpu_result(m, "GatherElements axis " + std::to_string(axis) + " " + name_of(t));
      }
}

TEST(CudaIndexOps, GatherNDWithBatchDims) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    for (int64_t m_len : {1, 2, 3}) {  // tuples of 1..3 indices into [4, 5, 6]
      std::mt19937 gen{unsigned(m_len)};
      const std::vector<int64_t> dims = {4, 5, 6};
      std::vector<int64_t> v;
      for (int64_t q = 0; q < 7; ++q)
        for (int64_t j = 0; j < m_len; ++j) {
          const int64_t d = dims[size_t(j)];
          v.push_back(int64_t(gen() % uint32_t(2 * d)) - d);
        }
      OneNode m("GatherND", 13);
      m.input("x", random_tensor(t, dims, 3)).input("i", i64s(v, {7, m_len})).output("y");
      expect_cpu_result(m, "GatherND m=" + std::to_string(m_len) + " " + name_of(t));
    }
    OneNode b("GatherND", 13, {attr_int("batch_dims", 1)});
    b.input("x", random_tensor(t, {3, 4, 5}, 4))
        .input("i", i64s({0, -1, 3, 2, -4, 0, 1, 1, 2, 4, -2, -5}, {3, 2, 2}))
        .output("y");
    expect_cpu_result(b, "GatherND batch_dims 1 " + name_of(t));
  }
}

TEST(CudaIndexOps, ScatterElementsEveryReduction) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Without a reduction, the indices along the axis are a permutation in
  // each line (no duplicates, whose winner the spec leaves open).
  const std::vector<int64_t> perm = {0, -1, 2, -4, 3};  // rows 0, 4, 2, 1, 3 of 5
  for (DataType t : kTypes)
    for (int64_t axis : {0, -1}) {
      std::vector<int64_t> v;
      for (int64_t r = 0; r < 5; ++r)
        for (int64_t c = 0; c < 5; ++c)
          v.push_back(perm[size_t(axis == 0 ? (r + c) % 5 : (2 * r + c) % 5)]);
      OneNode m("ScatterElements", 18, {attr_int("axis", axis)});
      m.input("x", random_tensor(t, {5, 5}, 5))
          .input("i", i64s(v, {5, 5}))
          .input("u", random_tensor(t, {5, 5}, 6))
          .output("y");
      expect_cpu_result(m, "ScatterElements none axis " + std::to_string(axis) + " " + name_of(t));
    }
  // Reductions with about ten updates per element: integers exactly; floats
  // combine in another order than the CPU's, so within 1e-5 relative
  // (float16 1e-2: rounded after each update on the GPU, once on the CPU).
  for (const std::string red : {"add", "mul", "max", "min"})
    for (DataType t : {DataType::kFloat, DataType::kInt32, DataType::kInt64, DataType::kFloat16,
                       DataType::kDouble}) {
      const bool small_factors = red == "mul" && (t == DataType::kFloat || t == DataType::kFloat16);
      OneNode m("ScatterElements", 18, {attr_int("axis", 1), attr_string("reduction", red)});
      m.input("x", random_tensor(t, {3, 4}, 7))
          .input("i", random_indices(DataType::kInt64, {3, 40}, 4, 8))
          .input("u", small_factors ? make_tensor(t, {3, 40}, random_values(120, 9, 0.9f, 1.1f))
                                    : random_tensor(t, {3, 40}, 9))
          .output("y");
      const double tol = t == DataType::kFloat16 ? 1e-2 : (is_float_type(t) ? 1e-5 : 0);
      expect_cpu_result(m, "ScatterElements " + red + " " + name_of(t), tol);
    }
  OneNode old("Scatter", 9, {attr_int("axis", 0)});
  old.input("x", random_tensor(DataType::kFloat, {3, 2}, 1))
      .input("i", Tensor::from_vector<int32_t>({2, 0}, Shape{1, 2}))
      .input("u", random_tensor(DataType::kFloat, {1, 2}, 2))
      .output("y");
  expect_cpu_result(old, "Scatter (opset 9)");
}

TEST(CudaIndexOps, ScatterNDEveryReduction) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    OneNode m("ScatterND", 13);  // rows 3, 0 and 1 (as -3) of [4, 2, 3] replaced
    m.input("x", random_tensor(t, {4, 2, 3}, 1))
        .input("i", i64s({3, 0, -3}, {3, 1}))
        .input("u", random_tensor(t, {3, 2, 3}, 2))
        .output("y");
    expect_cpu_result(m, "ScatterND rows " + name_of(t));
    OneNode e("ScatterND", 13);  // single elements
    e.input("x", random_tensor(t, {4, 2, 3}, 3))
        .input("i", i64s({0, 1, 2, -1, -2, -3}, {2, 3}))
        .input("u", random_tensor(t, {2}, 4))
        .output("y");
    expect_cpu_result(e, "ScatterND elements " + name_of(t));
  }
  for (const char* red : {"add", "mul", "max", "min"})
    for (DataType t : {DataType::kFloat, DataType::kInt32, DataType::kInt64}) {
      OneNode m("ScatterND", 18, {attr_string("reduction", red)});
      m.input("x", random_tensor(t, {5, 3}, 5))
          .input("i", random_indices(DataType::kInt64, {30, 1}, 5, 6))  // duplicates
          .input("u", random_tensor(t, {30, 3}, 7))
          .output("y");
      expect_cpu_result(m, std::string("ScatterND ") + red + " " + name_of(t),
                        is_float_type(t) ? 1e-5 : 0);
    }
}

TEST(CudaIndexOps, IndexOutOfRangeFailsTheNode) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  OneNode ge("GatherElements", 13, {attr_int("axis", 1)});
  ge.input("x", random_tensor(DataType::kFloat, {2, 3}, 1))
      .input("i", i64s({0, 3, -4, 1}, {2, 2}))
      .output("y");
  const std::string e = cuda_error(ge);
  expect_has(e, "GatherElements_node");
  expect_has(e, "is out of range [-3, 2]");
  OneNode nd("ScatterND", 13);
  nd.input("x", random_tensor(DataType::kFloat, {4}, 1))
      .input("i", i64s({9}, {1, 1}))
      .input("u", random_tensor(DataType::kFloat, {1}, 2))
      .output("y");
  expect_has(cuda_error(nd), "index 9 is out of range [-4, 3]");
}

TEST(CudaIndexOps, TileAndBlockRearrangements) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    OneNode tile("Tile", 13);
    tile.input("x", random_tensor(t, {2, 3, 5}, 1)).input("r", i64s({3, 1, 2})).output("y");
    expect_cpu_result(tile, "Tile [3,1,2] " + name_of(t));
    OneNode zero("Tile", 13);
    zero.input("x", random_tensor(t, {2, 3}, 2)).input("r", i64s({0, 2})).output("y");
    expect_cpu_result(zero, "Tile with a 0 repeat " + name_of(t));
    for (const char* mode : {"DCR", "CRD"}) {
      OneNode d2s("DepthToSpace", 13, {attr_int("blocksize", 2), attr_string("mode", mode)});
      d2s.input("x", random_tensor(t, {2, 12, 3, 5}, 3)).output("y");
      expect_cpu_result(d2s, std::string("DepthToSpace ") + mode + " " + name_of(t));
    }
    OneNode s2d("SpaceToDepth", 13, {attr_int("blocksize", 3)});
    s2d.input("x", random_tensor(t, {2, 5, 6, 9}, 4)).output("y");
    expect_cpu_result(s2d, "SpaceToDepth " + name_of(t));
  }
}

TEST(CudaIndexOps, PadEveryModeAndForm) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::vector<int64_t>> pad_sets = {
      {1, 2, 0, 3}, {0, 0, 0, 0}, {2, 2, 2, 2}, {-1, 1, 1, -2}, {0, 4, 3, 0}};
  for (DataType t : kTypes)
    for (const char* mode : {"constant", "reflect", "edge", "wrap"})
      for (const auto& pads : pad_sets) {
        const std::string what =
            std::string("Pad ") + mode + " " + Shape(pads).to_string() + " " + name_of(t);
        OneNode m("Pad", 19, {attr_string("mode", mode)});
        m.input("x", random_tensor(t, {4, 5}, 1)).input("p", i64s(pads));
        if (std::string(mode) == "constant") m.input("v", random_tensor(t, {}, 2));
        m.output("y");
        expect_cpu_result(m, what);
      }
  // Pads and value as attributes (opset 2), as inputs with axes (opset 18),
  // a constant value omitted (0).
  OneNode attrs("Pad", 2, {attr_ints("pads", {0, 1, 2, 0, 2, 1}), attr_float("value", 1.5f)});
  attrs.input("x", random_tensor(DataType::kFloat16, {2, 3, 4}, 3)).output("y");
  expect_cpu_result(attrs, "Pad opset 2 with value 1.5 (float16)");
  OneNode axes("Pad", 18, {attr_string("mode", "reflect")});
  axes.input("x", random_tensor(DataType::kFloat, {2, 3, 4}, 4))
      .input("p", i64s({2, -1, 3, 1}))
      .omitted()
      .input("a", i64s({-1, 1}))
      .output("y");
  expect_cpu_result(axes, "Pad opset 18 reflect on axes [-1, 1]");
  OneNode zero("Pad", 13);
  zero.input("x", random_tensor(DataType::kInt64, {3, 2}, 5))
      .input("p", i64s({1, 1, 1, 1}))
      .output("y");
  expect_cpu_result(zero, "Pad without a value (int64)");
}

TEST(CudaIndexOps, TriluOneHotConstantOfShapeRange) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes)
    for (int64_t upper : {0, 1})
      for (int64_t k : {-2, 0, 1, 7}) {
        OneNode m("Trilu", 14, {attr_int("upper", upper)});
        m.input("x", random_tensor(t, {2, 4, 6}, 1)).input("k", i64s({k}, {}), true).output("y");
        expect_cpu_result(m, "Trilu upper " + std::to_string(upper) + " k " + std::to_string(k) +
                                 " " + name_of(t));
      }
  OneNode no_k("Trilu", 14);
  no_k.input("x", random_tensor(DataType::kFloat, {5, 3}, 2)).output("y");
  expect_cpu_result(no_k, "Trilu without k");
  for (DataType it : {DataType::kInt32, DataType::kInt64})
    for (int64_t axis : {-1, 0, 1}) {
      OneNode m("OneHot", 11, {attr_int("axis", axis)});
      m.input("i", random_indices(it, {3, 4}, 6, 3))  // in [-6, 6): some beyond depth 5
          .input("d", i64s({5}, {}))
          .input("v", random_tensor(DataType::kFloat16, {2}, 4))
          .output("y");
      expect_cpu_result(m, "OneHot axis " + std::to_string(axis) + " " + name_of(it));
    }
  OneNode fidx("OneHot", 11);
  fidx.input("i", Tensor::from_vector<float>({0.f, 2.7f, -1.2f, 9.f}, Shape{4}))
      .input("d", Tensor::from_vector<float>({4.f}, Shape{}))
      .input("v", i64s({0, 3}))
      .output("y");
  expect_cpu_result(fidx, "OneHot with float indices and depth");
  for (DataType t : {DataType::kFloat, DataType::kInt32, DataType::kUInt8, DataType::kBool}) {
    OneNode m("ConstantOfShape", 20, {attr_tensor("value", random_tensor(t, {1}, 5))});
    m.input("s", i64s({3, 1, 5})).output("y");
    expect_cpu_result(m, "ConstantOfShape " + name_of(t));
  }
  OneNode dflt("ConstantOfShape", 9);
  dflt.input("s", i64s({4})).output("y");
  expect_cpu_result(dflt, "ConstantOfShape without a value");
  for (auto [a, b, d] : {std::tuple{0.0, 5.0, 0.3}, {3.0, -2.0, -0.7}, {1.0, 1.0, 1.0}}) {
    for (DataType t : {DataType::kFloat, DataType::kDouble}) {
      OneNode m("Range", 11);
      auto scalar = [&](double v) {
        Tensor s(t, Shape{});
        if (t == DataType::kFloat)
          s.mutable_data<float>()[0] = float(v);
        else
          s.mutable_data<double>()[0] = v;
        return s;
      };
      m.input("a", scalar(a)).input("b", scalar(b)).input("d", scalar(d)).output("y");
      expect_cpu_result(m, "Range " + std::to_string(a) + ", " + std::to_string(b) + ", " +
                               std::to_string(d) + " " + name_of(t));
    }
  }
  OneNode ints("Range", 11);
  ints.input("a", i64s({10}, {})).input("b", i64s({-7}, {})).input("d", i64s({-3}, {})).output("y");
  expect_cpu_result(ints, "Range int64 10 to -7 by -3");
}

TEST(CudaIndexOps, CumSumEveryDirection) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kInt32, DataType::kInt64,
                     DataType::kDouble})
    for (int64_t axis : {0, 1, -1})
      for (int64_t exclusive : {0, 1})
        for (int64_t reverse : {0, 1}) {
          OneNode m("CumSum", 14, {attr_int("exclusive", exclusive), attr_int("reverse", reverse)});
          Tensor x = t == DataType::kInt32
                         ? Tensor::from_vector<int32_t>(std::vector<int32_t>(60, 3), Shape{3, 4, 5})
                         : random_tensor(t, {3, 4, 5}, 1);
          m.input("x", x).input("a", i64s({axis}, {})).output("y");
          // Sums in one order on both sides: float within rounding of the
          // same additions (float16 rounded once per output on both).
          expect_cpu_result(m,
                            "CumSum axis " + std::to_string(axis) + " excl " +
                                std::to_string(exclusive) + " rev " + std::to_string(reverse) +
                                " " + name_of(t),
                            is_float_type(t) ? 1e-5 : 0);
        }
}

TEST(CudaIndexOps, NonZeroInOrderAcrossChunks) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Several chunks of 1024 elements, about a third of them nonzero (the
  // integer types hold -3..3, so zeros are common); -0 counts as zero, NaN
  // as nonzero.
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kInt64, DataType::kInt32,
                     DataType::kBool, DataType::kUInt8, DataType::kDouble})
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{3000}, {2, 1500}, {3, 5, 7}, {0, 4}, {}, {1, 1, 1}}) {
      Tensor x = random_tensor(t, dims, 11);
      if (t == DataType::kFloat)
        for (int64_t i = 0; i < x.num_elements(); i += 3)
          x.mutable_data<float>()[i] = i % 2 ? -0.f : (i % 5 ? 0.f : std::nanf(""));
      OneNode m("NonZero", 13);
      m.input("x", x).output("y");
      expect_cpu_result(m, "NonZero " + Shape(dims).to_string() + " " + name_of(t));
    }
}
