// The CUDA data-movement kernels against the CPU provider: Reshape, Flatten,
// Squeeze, Unsqueeze, Identity, Transpose, Concat, Split, Slice, Gather,
// Expand, Where and Cast, across element sizes (1, 2, 4, 8 bytes), attributes
// and edge shapes (empty tensors, scalars, broadcasting, negative axes and
// steps). Moving bytes must be exact, so outputs are compared bit for bit
// (NaN matching NaN). Needs a CUDA device: without one every test here is
// skipped and says why.
#include <cstring>
#include <limits>

#include "runtime/copy_tensors.hpp"
#include "runtime/io_binding.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

// One type of each element size and kind the byte movers serve.
const std::vector<DataType> kMoveTypes = {
    DataType::kFloat, DataType::kFloat16, DataType::kBFloat16, DataType::kDouble,
    DataType::kInt64, DataType::kInt32,   DataType::kInt8,     DataType::kUInt8,
    DataType::kBool,  DataType::kInt16,   DataType::kUInt64,   DataType::kComplex64};
// A smaller set, one per size, for the longer sweeps.
const std::vector<DataType> kSizeTypes = {DataType::kUInt8, DataType::kFloat16, DataType::kFloat,
                                          DataType::kInt64, DataType::kBool};

std::string name_of(DataType t) { return std::string(data_type_name(t)); }

// A tensor of any fixed-size type with varied values: floats in [-4, 4),
// bools 0 or 1, every other type random bytes (all patterns are valid).
Tensor any_tensor(DataType t, std::vector<int64_t> dims, uint32_t seed) {
  const int64_t n = count(dims);
  if (t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16)
    return make_tensor(t, dims, random_values(n, seed, -4, 4));
  Tensor out(t, Shape(dims));
  std::mt19937 gen(seed);
  auto* bytes = static_cast<uint8_t*>(out.mutable_raw_data());
  if (t == DataType::kDouble) {
    for (int64_t i = 0; i < n; ++i) out.mutable_data<double>()[i] = double(gen() % 2001) / 7 - 100;
  } else if (t == DataType::kComplex64) {
    auto* f = reinterpret_cast<float*>(bytes);
    for (int64_t i = 0; i < 2 * n; ++i) f[i] = float(gen() % 2001) / 7 - 100;
  } else if (t == DataType::kBool) {
    for (int64_t i = 0; i < n; ++i) bytes[i] = uint8_t(gen() % 2);
  } else {
    for (size_t i = 0; i < out.byte_size(); ++i) bytes[i] = uint8_t(gen());
  }
  return out;
}

Tensor i64s(std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>(v, Shape{int64_t(v.size())});
}
Tensor i32s(std::vector<int32_t> v) {
  return Tensor::from_vector<int32_t>(v, Shape{int64_t(v.size())});
}
Tensor bools(std::vector<int64_t> dims, uint32_t seed) {
  return any_tensor(DataType::kBool, dims, seed);
}

bool is_nan_element(const Tensor& t, int64_t i) {
  if (!is_float_type(t.dtype()) || data_type_bits(t.dtype()) < 8) return false;
  return std::isnan(t.element_as_double(i));
}

// Same type, shape and bytes (a NaN matches any NaN).
void expect_identical(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_TRUE(got.memory_info().host_accessible()) << what;
  const size_t size = data_type_storage_bytes(got.dtype(), 1);
  const auto* g = static_cast<const uint8_t*>(got.raw_data());
  const auto* w = static_cast<const uint8_t*>(want.raw_data());
  size_t bad = 0;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    if (std::memcmp(g + size_t(i) * size, w + size_t(i) * size, size) == 0) continue;
    if (is_nan_element(got, i) && is_nan_element(want, i)) continue;
    if (bad++ < 5) {
      std::string gs, ws;
      for (size_t b = 0; b < size; ++b) {
        gs += str_cat(int(g[size_t(i) * size + b]), " ");
        ws += str_cat(int(w[size_t(i) * size + b]), " ");
      }
      ADD_FAILURE() << what << ": element " << i << " differs: bytes " << gs << "vs " << ws;
    }
  }
  EXPECT_EQ(bad, 0u) << what << ": elements that differ";
}

// Runs `m` with [CUDA, CPU] (its node must run on CUDA) and with [CPU] alone;
// every output must be identical.
void expect_same_as_cpu(const OneNode& m, const std::string& what) {
  auto cuda = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  std::string reasons;
  ASSERT_EQ(assigned_provider(*cuda, &reasons), kCuda) << what << ": " << reasons;
  auto cpu = Session::create_from_model(m.model, {}, {{kCpu, {}}});
  auto got = cuda->run(m.feeds);
  auto want = cpu->run(m.feeds);
  ASSERT_EQ(got.size(), want.size()) << what;
  ASSERT_FALSE(got.empty()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    expect_identical(got[i].tensor(), want[i].tensor(), what + ", output " + std::to_string(i));
}

// The error of running `m` on CUDA (must fail), or "" when it did not fail.
std::string cuda_error(const OneNode& m) {
  auto cuda = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  EXPECT_EQ(assigned_provider(*cuda), kCuda);
  try {
    cuda->run(m.feeds);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CudaShapeOps, ReshapeFamilyRelabelsTheBuffer) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kMoveTypes) {
    const std::string n = name_of(t);
    for (bool constant : {false, true}) {
      OneNode r("Reshape", 14);
      r.input("x", any_tensor(t, {2, 3, 4}, 1)).input("s", i64s({4, -1}), constant).output("y");
      expect_same_as_cpu(r, "Reshape [2,3,4]->[4,-1] " + n);
    }
    OneNode keep("Reshape", 5);  // 0 copies the input's dim
    keep.input("x", any_tensor(t, {2, 3, 4}, 2)).input("s", i64s({0, 12})).output("y");
    expect_same_as_cpu(keep, "Reshape [0,12] " + n);
    OneNode empty("Reshape", 14, {attr_int("allowzero", 1)});  // 0 is a dim of 0
    empty.input("x", any_tensor(t, {0, 3}, 3)).input("s", i64s({3, 0})).output("y");
    expect_same_as_cpu(empty, "Reshape allowzero [0,3]->[3,0] " + n);
    OneNode to_scalar("Reshape", 14);
    to_scalar.input("x", any_tensor(t, {1, 1}, 4)).input("s", i64s({})).output("y");
    expect_same_as_cpu(to_scalar, "Reshape to a scalar " + n);
    OneNode from_scalar("Reshape", 14);
    from_scalar.input("x", any_tensor(t, {}, 5)).input("s", i64s({1, 1, 1})).output("y");
    expect_same_as_cpu(from_scalar, "Reshape from a scalar " + n);
    for (int64_t axis : {0, 1, 2, 3, -1, -3}) {
      OneNode f("Flatten", 13, {attr_int("axis", axis)});
      f.input("x", any_tensor(t, {2, 3, 4}, 6)).output("y");
      expect_same_as_cpu(f, "Flatten axis " + std::to_string(axis) + " " + n);
    }
    OneNode sq11("Squeeze", 11, {attr_ints("axes", {-1, 1})});
    sq11.input("x", any_tensor(t, {2, 1, 3, 1}, 7)).output("y");
    expect_same_as_cpu(sq11, "Squeeze 11 " + n);
    OneNode sq13("Squeeze", 13);
    sq13.input("x", any_tensor(t, {1, 3, 1}, 8)).input("axes", i64s({0})).output("y");
    expect_same_as_cpu(sq13, "Squeeze 13 " + n);
    OneNode sq_all("Squeeze", 13);
    sq_all.input("x", any_tensor(t, {1, 3, 1}, 9)).output("y");
    expect_same_as_cpu(sq_all, "Squeeze 13 without axes " + n);
    OneNode un11("Unsqueeze", 11, {attr_ints("axes", {0, -1})});
    un11.input("x", any_tensor(t, {3, 2}, 10)).output("y");
    expect_same_as_cpu(un11, "Unsqueeze 11 " + n);
    OneNode un13("Unsqueeze", 13);
    un13.input("x", any_tensor(t, {}, 11)).input("axes", i64s({1, 0}), true).output("y");
    expect_same_as_cpu(un13, "Unsqueeze 13 of a scalar " + n);
    OneNode id("Identity", 16);
    id.input("x", any_tensor(t, {5, 2}, 12)).output("y");
    expect_same_as_cpu(id, "Identity " + n);
  }
}

TEST(CudaShapeOps, ReshapeFamilyRunTimeErrorsNameTheNode) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  OneNode r("Reshape", 14);
  r.input("x", any_tensor(DataType::kFloat, {2, 3}, 1)).input("s", i64s({4, -1})).output("y");
  const std::string e = cuda_error(r);
  expect_has(e, "Reshape_node");
  expect_has(e, "cannot reshape input of shape [2,3] to [4,-1]: the element counts differ");
  OneNode sq("Squeeze", 13);
  sq.input("x", any_tensor(DataType::kFloat, {2, 3}, 1)).input("a", i64s({1})).output("y");
  expect_has(cuda_error(sq), "cannot squeeze axis 1 of shape [2,3]: its size is not 1");
}

TEST(CudaShapeOps, AnAliasedOutputReachesABoundDeviceOutput) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Reshape's output is a view of its input; IO binding must still fill the
  // caller's own device tensor.
  OneNode r("Reshape", 14);
  Tensor x = any_tensor(DataType::kFloat, {2, 3}, 3);
  r.input("x", x).input("s", i64s({3, 2}), true).output("y");
  auto s = Session::create_from_model(r.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  ASSERT_EQ(assigned_provider(*s), kCuda);
  const MemoryInfo gpu = cuda::cuda_memory_info(0);
  Tensor bound = allocate_tensor(DataType::kFloat, Shape{3, 2}, gpu);
  IoBinding b(*s);
  b.bind_input("x", copy_to(x, gpu));
  b.bind_output("y", Value(bound));
  s->run_with_binding(b);
  b.synchronize_outputs();
  Tensor back = copy_to(bound, cpu_memory_info());
  expect_identical(back, x.reshaped(Shape{3, 2}), "Reshape into a bound output");
}

TEST(CudaShapeOps, Transpose) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{5}, {0}},
      {{3, 7}, {1, 0}},
      {{2, 3, 4}, {0, 2, 1}},
      {{2, 3, 4}, {2, 0, 1}},
      {{2, 3, 4}, {-1, 0, -2}},  // negative entries, as the CPU provider takes them
      {{2, 3, 4, 5}, {0, 2, 3, 1}},
      {{2, 3, 4, 5}, {0, 3, 1, 2}},
      {{2, 1, 4, 1, 3}, {4, 3, 2, 1, 0}},
      {{2, 3, 1, 2, 3, 1, 2, 3}, {7, 6, 5, 4, 3, 2, 1, 0}},
      {{64, 129}, {1, 0}},
      {{0, 3, 4}, {2, 1, 0}},
      {{1, 1}, {1, 0}},
      {{4, 5, 6}, {0, 1, 2}}};  // identity: one plain copy
  for (DataType t : kMoveTypes)
    for (const auto& [dims, perm] : cases) {
      OneNode m("Transpose", 13, {attr_ints("perm", perm)});
      m.input("x", any_tensor(t, dims, 21)).output("y");
      expect_same_as_cpu(m, "Transpose " + Shape(dims).to_string() + " perm " +
                                Shape(perm).to_string() + " " + name_of(t));
    }
  // Tiled transposes past the grid's 65535 blocks in y (row tiles) and z
  // (batches), and with partial tiles.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> tiled = {
      {{3, 100, 70}, {0, 2, 1}}, {{2100000, 2}, {1, 0}}, {{70000, 2, 3}, {0, 2, 1}}};
  for (DataType t : kSizeTypes)
    for (const auto& [dims, perm] : tiled) {
      OneNode m("Transpose", 13, {attr_ints("perm", perm)});
      m.input("x", any_tensor(t, dims, 24)).output("y");
      expect_same_as_cpu(m, "Transpose " + Shape(dims).to_string() + " perm " +
                                Shape(perm).to_string() + " " + name_of(t));
    }
  for (DataType t : kSizeTypes) {
    OneNode rev("Transpose", 13);  // no perm: the dims reversed
    rev.input("x", any_tensor(t, {2, 3, 4}, 22)).output("y");
    expect_same_as_cpu(rev, "Transpose without perm " + name_of(t));
    OneNode scalar("Transpose", 13);
    scalar.input("x", any_tensor(t, {}, 23)).output("y");
    expect_same_as_cpu(scalar, "Transpose of a scalar " + name_of(t));
  }
}

TEST(CudaShapeOps, ConcatAndSplit) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kMoveTypes) {
    const std::string n = name_of(t);
    for (int64_t axis : {0, 1, 2, -1, -3}) {
      std::vector<int64_t> a = {2, 3, 4}, b = a, c = a;
      const size_t k = size_t(axis < 0 ? axis + 3 : axis);
      b[k] = 1;
      c[k] = 5;
      OneNode m("Concat", 13, {attr_int("axis", axis)});
      m.input("a", any_tensor(t, a, 31))
          .input("b", any_tensor(t, b, 32))
          .input("c", any_tensor(t, c, 33))
          .output("y");
      expect_same_as_cpu(m, "Concat axis " + std::to_string(axis) + " " + n);
    }
    OneNode with_empty("Concat", 13, {attr_int("axis", 1)});
    with_empty.input("a", any_tensor(t, {2, 0}, 34))
        .input("b", any_tensor(t, {2, 3}, 35))
        .input("c", any_tensor(t, {2, 0}, 36))
        .output("y");
    expect_same_as_cpu(with_empty, "Concat with empty inputs " + n);
    OneNode one("Concat", 13, {attr_int("axis", 0)});
    one.input("a", any_tensor(t, {7}, 37)).output("y");
    expect_same_as_cpu(one, "Concat of one input " + n);
    OneNode all_empty("Concat", 13, {attr_int("axis", 0)});
    all_empty.input("a", any_tensor(t, {0, 2}, 1)).input("b", any_tensor(t, {0, 2}, 2)).output("y");
    expect_same_as_cpu(all_empty, "Concat of empty inputs " + n);

    OneNode s11("Split", 11, {attr_int("axis", 1), attr_ints("split", {1, 3, 0, 2})});
    s11.input("x", any_tensor(t, {3, 6, 2}, 41)).output("a").output("b").output("c").output("d");
    expect_same_as_cpu(s11, "Split 11 with sizes " + n);
    OneNode s11eq("Split", 11, {attr_int("axis", -1)});
    s11eq.input("x", any_tensor(t, {3, 6}, 42)).output("a").output("b").output("c");
    expect_same_as_cpu(s11eq, "Split 11 equal " + n);
    for (bool constant : {false, true}) {
      OneNode s13("Split", 13, {attr_int("axis", 0)});
      s13.input("x", any_tensor(t, {5, 3}, 43))
          .input("split", i64s({2, 3}), constant)
          .output("a")
          .output("b");
      expect_same_as_cpu(s13, "Split 13 with sizes " + n);
    }
    OneNode s18("Split", 18, {attr_int("axis", 1), attr_int("num_outputs", 3)});
    s18.input("x", any_tensor(t, {2, 7, 3}, 44)).output("a").output("b").output("c");
    expect_same_as_cpu(s18, "Split 18 num_outputs 3 of 7 " + n);
    OneNode s_last("Split", 13, {attr_int("axis", 0)});  // outer 1: plain copies
    s_last.input("x", any_tensor(t, {6, 5}, 45)).output("a").output("b");
    expect_same_as_cpu(s_last, "Split on axis 0 " + n);
  }
  // A split with an omitted output: the others are still written.
  OneNode omitted("Split", 13, {attr_int("axis", 0)});
  omitted.input("x", any_tensor(DataType::kFloat, {6, 2}, 46)).output("a").output("").output("c");
  omitted.model.graph.outputs.erase(omitted.model.graph.outputs.begin() + 1);
  expect_same_as_cpu(omitted, "Split with an omitted output");
  OneNode bad("Split", 13, {attr_int("axis", 0)});
  bad.input("x", any_tensor(DataType::kFloat, {5}, 1)).input("s", i64s({2, 2})).output("a");
  bad.output("b");
  expect_has(cuda_error(bad), "split [2,2] does not divide axis 0 of shape [5] into 2 outputs");
}

TEST(CudaShapeOps, Slice) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const int64_t kMax = std::numeric_limits<int64_t>::max(),
                kMin = std::numeric_limits<int64_t>::min();
  struct Case {
    std::vector<int64_t> dims, starts, ends, axes, steps;  // empty axes/steps: omitted
  };
  const std::vector<Case> cases = {
      {{10}, {2}, {8}, {}, {}},
      {{10}, {-3}, {kMax}, {}, {}},
      {{10}, {8}, {1}, {0}, {-3}},
      {{10}, {kMax}, {kMin}, {0}, {-1}},  // the whole axis reversed
      {{4, 6}, {1, -1}, {3, 0}, {0, 1}, {1, -2}},
      {{4, 6}, {0}, {kMax}, {-1}, {4}},
      {{3, 4, 5}, {1, 0, 1}, {3, 4, -1}, {0, 1, 2}, {1, 2, 2}},
      {{3, 4, 5}, {2, 2}, {0, 1}, {2, 0}, {-1, -1}},
      {{3, 4, 5}, {5}, {10}, {2}, {}},  // clamped to empty
      {{2, 3, 4, 5, 6}, {1, 2}, {5, 4}, {-1, -2}, {2, 1}},
      {{0, 4}, {1}, {3}, {1}, {}},
      {{7, 3}, {5, 1}, {kMin, 3}, {0, 1}, {-1000000000000, 1000000000000}},  // one element each
      {{5, 5}, {0, 0}, {5, 5}, {}, {}},  // everything: one plain copy
  };
  for (DataType t : kSizeTypes)
    for (const auto& c : cases) {
      const std::string what = "Slice " + Shape(c.dims).to_string() + " starts " +
                               Shape(c.starts).to_string() + " ends " + Shape(c.ends).to_string() +
                               " steps " + Shape(c.steps).to_string() + " " + name_of(t);
      OneNode m("Slice", 13);
      m.input("x", any_tensor(t, c.dims, 51)).input("s", i64s(c.starts)).input("e", i64s(c.ends));
      if (!c.axes.empty() || !c.steps.empty()) {
        std::vector<int64_t> axes = c.axes;
        if (axes.empty())
          for (size_t i = 0; i < c.starts.size(); ++i) axes.push_back(int64_t(i));
        m.input("a", i64s(axes), true);
      }
      if (!c.steps.empty()) m.input("st", i64s(c.steps), true);
      m.output("y");
      expect_same_as_cpu(m, what);
    }
  for (DataType t : kMoveTypes) {
    OneNode m10("Slice", 10);  // int32 index inputs, steps given, axes omitted
    m10.input("x", any_tensor(t, {6, 4}, 52))
        .input("s", i32s({4, 1}))
        .input("e", i32s({0, 4}))
        .omitted()
        .input("st", i32s({-2, 2}))
        .output("y");
    expect_same_as_cpu(m10, "Slice 10 int32 " + name_of(t));
    OneNode m9(
        "Slice", 9,
        {attr_ints("starts", {1, -3}), attr_ints("ends", {3, 1000}), attr_ints("axes", {1, 2})});
    m9.input("x", any_tensor(t, {2, 4, 5}, 53)).output("y");
    expect_same_as_cpu(m9, "Slice 9 attributes " + name_of(t));
  }
  OneNode zero_step("Slice", 13);
  zero_step.input("x", any_tensor(DataType::kFloat, {4}, 1))
      .input("s", i64s({0}))
      .input("e", i64s({4}))
      .input("a", i64s({0}))
      .input("st", i64s({0}))
      .output("y");
  expect_has(cuda_error(zero_step), "step for axis 0 is 0");
}

TEST(CudaShapeOps, Gather) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kMoveTypes)
    for (bool i64 : {true, false}) {
      const auto idx = [&](std::vector<int64_t> v, std::vector<int64_t> dims) {
        Tensor out(i64 ? DataType::kInt64 : DataType::kInt32, Shape(dims));
        for (size_t k = 0; k < v.size(); ++k) {
          if (i64)
            out.mutable_data<int64_t>()[k] = v[k];
          else
            out.mutable_data<int32_t>()[k] = int32_t(v[k]);
        }
        return out;
      };
      const std::string n = name_of(t) + (i64 ? " int64" : " int32");
      OneNode g0("Gather", 13);
      g0.input("x", any_tensor(t, {5, 3}, 61)).input("i", idx({4, 0, -1, -5, 2, 2}, {2, 3}));
      g0.output("y");
      expect_same_as_cpu(g0, "Gather axis 0, 2-D indices " + n);
      OneNode g1("Gather", 13, {attr_int("axis", 1)});
      g1.input("x", any_tensor(t, {2, 4, 3}, 62)).input("i", idx({3, -4}, {2})).output("y");
      expect_same_as_cpu(g1, "Gather axis 1 " + n);
      OneNode glast("Gather", 13, {attr_int("axis", -1)});
      glast.input("x", any_tensor(t, {2, 3, 4}, 63)).input("i", idx({-1}, {})).output("y");
      expect_same_as_cpu(glast, "Gather axis -1, scalar index " + n);
      OneNode gempty("Gather", 13, {attr_int("axis", 1)});
      gempty.input("x", any_tensor(t, {2, 3}, 64)).input("i", idx({}, {0})).output("y");
      expect_same_as_cpu(gempty, "Gather with no indices " + n);
      OneNode gconst("Gather", 11);  // constant indices, a 1-D embedding-like lookup
      gconst.input("x", any_tensor(t, {7, 16}, 65))
          .input("i", idx({6, 0, 3, 3, -7}, {5}), true)
          .output("y");
      expect_same_as_cpu(gconst, "Gather constant indices " + n);
    }
  // An index out of range fails the node, naming it and the index.
  for (int64_t bad : {5, -6, 1000000}) {
    OneNode g("Gather", 13);
    g.input("x", any_tensor(DataType::kFloat, {5, 3}, 66))
        .input("i", i64s({0, bad, 1}))
        .output("y");
    const std::string e = cuda_error(g);
    expect_has(e, "Gather_node");
    expect_has(e, "index " + std::to_string(bad) + " is out of range [-5, 4] for axis 0");
  }
  // The device is fine after that error (the bad index was skipped, never read).
  OneNode ok("Gather", 13);
  ok.input("x", any_tensor(DataType::kFloat, {5, 3}, 66)).input("i", i32s({4, -5})).output("y");
  expect_same_as_cpu(ok, "Gather after an error");
}

TEST(CudaShapeOps, ExpandAndWhere) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> expands = {
      {{3, 1}, {2, 3, 4}},
      {{}, {2, 3}},
      {{4}, {3, 1}},
      {{2, 3}, {3}},
      {{1, 5}, {0, 5}},
      {{2, 1, 3}, {2, 4, 3}},
      {{2, 3}, {1, 1, 2, 3}},
      {{1}, {1}},
      {{1, 1, 1, 1, 1, 1, 1, 2}, {2, 1, 2, 1, 2, 1, 2, 2}}};
  for (DataType t : kMoveTypes)
    for (const auto& [in, shape] : expands) {
      OneNode m("Expand", 13);
      m.input("x", any_tensor(t, in, 71)).input("s", i64s(shape)).output("y");
      expect_same_as_cpu(m, "Expand " + Shape(in).to_string() + " to " + Shape(shape).to_string() +
                                " " + name_of(t));
    }
  OneNode bad("Expand", 13);
  bad.input("x", any_tensor(DataType::kFloat, {3}, 1)).input("s", i64s({2, 4})).output("y");
  expect_has(cuda_error(bad), "cannot expand input of shape [3] to [2,4]");

  struct W {
    std::vector<int64_t> c, x, y;
  };
  const std::vector<W> wheres = {
      {{2, 3}, {2, 3}, {2, 3}}, {{2, 1}, {3}, {}},
      {{}, {2, 3}, {1, 3}},     {{4, 1, 5}, {1, 3, 1}, {3, 5}},
      {{0, 3}, {3}, {1}},       {{2, 2, 2, 2}, {2, 1, 2, 1}, {1, 2, 1, 2}}};
  for (DataType t : kMoveTypes)
    for (const auto& w : wheres) {
      OneNode m("Where", 16);
      m.input("c", bools(w.c, 72))
          .input("x", any_tensor(t, w.x, 73))
          .input("y", any_tensor(t, w.y, 74))
          .output("out");
      expect_same_as_cpu(m, "Where " + Shape(w.c).to_string() + " " + Shape(w.x).to_string() + " " +
                                Shape(w.y).to_string() + " " + name_of(t));
    }
}

TEST(CudaShapeOps, CastBetweenEveryPairOfItsTypes) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> fvals = {
      0.0f,   -0.0f,  0.4f,    -0.6f,     1.5f,    -1.5f,    2.5f,        127.5f,
      128.0f, 255.9f, 256.0f,  -129.0f,   -200.7f, 65504.0f, 65520.0f,    1e5f,
      3e9f,   -3e9f,  1e10f,   1e20f,     -1e20f,  3.0e38f,  inf,         -inf,
      NAN,    1e-8f,  5.9e-8f, 1.17e-38f, 9.3e18f, -9.3e18f, 16777217.0f, 0.1f};
  const std::vector<int64_t> ivals = {0,
                                      1,
                                      -1,
                                      2,
                                      127,
                                      128,
                                      255,
                                      256,
                                      -128,
                                      -129,
                                      32767,
                                      65535,
                                      65536,
                                      2147483647,
                                      -2147483647 - 1,
                                      4294967297,
                                      16777217,
                                      9007199254740993,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min(),
                                      123456789012};
  const std::vector<DataType> types = {DataType::kFloat,  DataType::kFloat16, DataType::kBFloat16,
                                       DataType::kDouble, DataType::kInt32,   DataType::kInt64,
                                       DataType::kBool,   DataType::kInt8,    DataType::kUInt8,
                                       DataType::kInt16,  DataType::kUInt16,  DataType::kUInt32,
                                       DataType::kUInt64};
  const auto source = [&](DataType t) {
    if (t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16)
      return make_tensor(t, {int64_t(fvals.size())}, fvals);
    if (t == DataType::kDouble) {
      // The float values, and some only a double holds: beyond float's range,
      // between 2^63 and 2^64, and with more than float's precision.
      std::vector<double> d(fvals.begin(), fvals.end());
      for (double v : {1e300, -1e300, 1.2e19, 1.9e19, 2e19, 4294967296.5, 9007199254740993.0, -2.5,
                       3.5, 1e-310})
        d.push_back(v);
      return Tensor::from_vector<double>(d, Shape{int64_t(d.size())});
    }
    const int64_t n = int64_t(ivals.size());
    Tensor out(t, Shape{n});
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = ivals[size_t(i)];
      switch (t) {
        case DataType::kInt32:
          out.mutable_data<int32_t>()[i] = int32_t(v);
          break;
        case DataType::kInt64:
          out.mutable_data<int64_t>()[i] = v;
          break;
        case DataType::kBool:
          out.mutable_data<bool>()[i] = v != 0;
          break;
        case DataType::kInt8:
          out.mutable_data<int8_t>()[i] = int8_t(v);
          break;
        case DataType::kInt16:
          out.mutable_data<int16_t>()[i] = int16_t(v);
          break;
        case DataType::kUInt16:
          out.mutable_data<uint16_t>()[i] = uint16_t(v);
          break;
        case DataType::kUInt32:
          out.mutable_data<uint32_t>()[i] = uint32_t(v);
          break;
        case DataType::kUInt64:
          out.mutable_data<uint64_t>()[i] = uint64_t(v);
          break;
        default:
          out.mutable_data<uint8_t>()[i] = uint8_t(v);
          break;
      }
    }
    return out;
  };
  for (DataType from : types)
    for (DataType to : types) {
      OneNode m("Cast", 19, {attr_int("to", int64_t(to))});
      m.input("x", source(from)).output("y");
      expect_same_as_cpu(m, "Cast " + name_of(from) + " to " + name_of(to));
    }
  // Long and empty inputs, and the oldest opset served.
  OneNode big("Cast", 6, {attr_int("to", int64_t(DataType::kFloat16))});
  big.input("x",
            make_tensor(DataType::kFloat, {3, 70001}, random_values(3 * 70001, 81, -7e4, 7e4)));
  big.output("y");
  expect_same_as_cpu(big, "Cast 6 float to float16, 210003 elements");
  OneNode empty("Cast", 13, {attr_int("to", int64_t(DataType::kInt64))});
  empty.input("x", make_tensor(DataType::kFloat, {0, 4}, {})).output("y");
  expect_same_as_cpu(empty, "Cast of an empty tensor");
}

TEST(CudaShapeOps, LargeTensorsUse64BitIndexMath) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // 2^30 + 2^15 one-byte elements: past the 32-bit index path of every kernel.
  const int64_t rows = (int64_t(1) << 15) + 1, cols = int64_t(1) << 15;
  Tensor x(DataType::kUInt8, Shape{rows, cols});
  auto* d = x.mutable_data<uint8_t>();
  for (int64_t i = 0; i < x.num_elements(); ++i) d[i] = uint8_t((i * 2654435761u) >> 24);
  OneNode slice("Slice", 13);
  slice.input("x", x)
      .input("s", i64s({-1, 7}))
      .input("e", i64s({0, cols}))
      .input("a", i64s({0, 1}))
      .input("st", i64s({-4096, 8191}))
      .output("y");
  expect_same_as_cpu(slice, "Slice of 2^30+ elements");
  OneNode gather("Gather", 13);
  gather.input("x", x).input("i", i64s({rows - 1, 0, 12345})).output("y");
  expect_same_as_cpu(gather, "Gather from 2^30+ elements");
  OneNode transpose("Transpose", 13, {attr_ints("perm", {1, 0})});
  transpose.input("x", x).output("y");
  expect_same_as_cpu(transpose, "Transpose of 2^30+ elements");
}

TEST(CudaShapeOps, AChainStaysOnTheDevice) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Transpose -> Reshape (a view) -> Slice -> Concat with the view -> Cast ->
  // Gather, all on CUDA; the result matches the CPU provider's.
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {2, 3, 4}));
  m.graph.initializers["shape"] = i64s({4, 6});
  m.graph.initializers["starts"] = i64s({1});
  m.graph.initializers["ends"] = i64s({3});
  m.graph.initializers["axes"] = i64s({0});
  m.graph.initializers["idx"] = i64s({3, -1, 0});
  m.graph.nodes = {
      test::make_node("Transpose", {"x"}, {"t"}, {attr_ints("perm", {2, 0, 1})}),
      test::make_node("Reshape", {"t", "shape"}, {"r"}),
      test::make_node("Slice", {"r", "starts", "ends", "axes"}, {"s"}),
      test::make_node("Concat", {"s", "r"}, {"c"}, {attr_int("axis", 0)}),
      test::make_node("Cast", {"c"}, {"h"}, {attr_int("to", int64_t(DataType::kFloat16))}),
      test::make_node("Gather", {"h", "idx"}, {"y"}, {attr_int("axis", 1)})};
  ir::ValueInfo y;
  y.name = "y";
  m.graph.outputs.push_back(y);
  auto cuda = Session::create_from_model(m, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  for (const auto& a : cuda->node_assignments()) EXPECT_EQ(a.provider, kCuda) << a.node_name;
  auto cpu = Session::create_from_model(m, {}, {{kCpu, {}}});
  const std::vector<std::pair<std::string, Value>> feeds = {
      {"x", Value(any_tensor(DataType::kFloat, {2, 3, 4}, 91))}};
  expect_identical(cuda->run(feeds)[0].tensor(), cpu->run(feeds)[0].tensor(), "the chain");
}
