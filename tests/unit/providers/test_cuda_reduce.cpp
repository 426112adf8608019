// The CUDA reductions, ArgMax/ArgMin, RMSNormalization and Attention against
// the CPU provider, in float32, float16 and bfloat16 (the CPU reference runs
// in float32 on the same rounded values). Needs a CUDA device: without one
// every test here is skipped and says why.
#include <functional>
#include <limits>
#include <optional>

#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

const std::vector<DataType> kTypes = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16};
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

std::string type_name(DataType t) { return std::string(data_type_name(t)); }

// One input: a float tensor in the test's type (random in [lo, hi], or
// `values`), or a tensor given as is (int64 axes, a bool mask), or omitted.
struct Arg {
  std::vector<int64_t> dims;
  bool constant = false;
  float lo = -1, hi = 1;
  std::vector<float> values = {};
  std::optional<Tensor> fixed = std::nullopt;
  bool omitted = false;
};

Arg floats(std::vector<int64_t> dims, float lo = -1, float hi = 1) {
  return {std::move(dims), false, lo, hi};
}
Arg values(std::vector<int64_t> dims, std::vector<float> v) {
  return {std::move(dims), false, 0, 0, std::move(v)};
}
Arg fixed(Tensor t, bool constant = false) { return {{}, constant, 0, 0, {}, std::move(t)}; }
Arg int64s(std::vector<int64_t> v, bool constant = false) {
  const int64_t n = int64_t(v.size());
  return fixed(Tensor::from_vector<int64_t>(std::move(v), Shape{n}), constant);
}
Arg none() { return {{}, false, 0, 0, {}, std::nullopt, true}; }

Tensor bool_tensor(std::vector<int64_t> dims, const std::vector<int>& v) {
  Tensor t(DataType::kBool, Shape(dims));
  EXPECT_EQ(t.num_elements(), int64_t(v.size()));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i] != 0;
  return t;
}

// Builds the node twice (float inputs in `t`, and the same values in
// float32), runs the first with [CUDA, CPU] and the second on the CPU, and
// compares every output.
// The CUDA provider options check() runs with (the attention tests set
// attention_kernel through ForEachAttentionKernel).
ep::ProviderOptions g_cuda_options;

void check(const std::string& op, int64_t opset, const std::vector<Arg>& args, DataType t,
           std::vector<ir::Attribute> attrs = {}, const std::string& what = "",
           double tol_scale = 1, size_t outputs = 1) {
  OneNode m(op, opset, attrs), ref(op, opset, attrs);
  uint32_t seed = 11;
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    const std::string name = "in" + std::to_string(i);
    if (a.omitted) {
      m.omitted();
      ref.omitted();
    } else if (a.fixed) {
      m.input(name, *a.fixed, a.constant);
      ref.input(name, *a.fixed, a.constant);
    } else {
      Tensor v = make_tensor(
          t, a.dims,
          a.values.empty() ? random_values(count(a.dims), seed++, a.lo, a.hi) : a.values);
      m.input(name, v, a.constant);
      ref.input(name, as_float(v), a.constant);
    }
  }
  for (size_t o = 0; o < outputs; ++o) {
    m.output("out" + std::to_string(o));
    ref.output("out" + std::to_string(o));
  }
  const auto kernel = g_cuda_options.find("attention_kernel");
  expect_cuda_matches_cpu(
      m, ref, t,
      op + " " + type_name(t) + " " + what +
          (kernel == g_cuda_options.end() ? "" : " (attention_kernel " + kernel->second + ")"),
      tol_scale, g_cuda_options);
}

// Runs body once per value of the attention_kernel option: each attention
// case on each kernel that takes it (a kernel named runs where it fits).
void for_each_attention_kernel(const std::function<void()>& body) {
  for (const char* k : {"auto", "tensor_cores", "tiled", "rows"}) {
    g_cuda_options["attention_kernel"] = k;
    body();
  }
  g_cuda_options.clear();
}

const char* kReduceOps[] = {"ReduceSum",       "ReduceMean",     "ReduceMax", "ReduceMin",
                            "ReduceProd",      "ReduceL1",       "ReduceL2",  "ReduceLogSum",
                            "ReduceLogSumExp", "ReduceSumSquare"};

// Input ranges that keep each op's result meaningful: products near 1,
// positive sums for the logarithm.
std::pair<float, float> range_for(const std::string& op) {
  if (op == "ReduceProd") return {0.99f, 1.01f};  // 5000 factors stay well inside float16
  if (op == "ReduceLogSum") return {0.1f, 1.0f};
  return {-1.0f, 1.0f};
}

// The opset that takes axes as input 1.
int64_t axes_input_opset(const std::string& op) { return op == "ReduceSum" ? 13 : 18; }

struct ReduceCase {
  std::vector<int64_t> dims;
  std::vector<int64_t> axes;
  int64_t keepdims;
  double tol_scale;
};

std::string describe(const ReduceCase& c) {
  std::string s = "dims " + Shape(c.dims).to_string() + " axes [";
  for (int64_t a : c.axes) s += std::to_string(a) + " ";
  return s + "] keepdims " + std::to_string(c.keepdims);
}

}  // namespace

TEST(CudaReduce, EveryOpOverEveryKindOfAxisSet) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<ReduceCase> cases = {
      {{2, 3, 4}, {1}, 1, 1},         // middle dim, innermost kept: a thread per output
      {{2, 3, 4}, {-1}, 0, 1},        // innermost: a warp per output
      {{2, 3, 4, 5}, {0, 2}, 1, 1},   // alternating runs, innermost kept
      {{2, 3, 4, 5}, {1, -1}, 0, 1},  // alternating runs, innermost reduced
      {{2, 1, 3, 1}, {1, 3}, 0, 1},   // only size-1 dims reduced: a copy
      {{3, 5000}, {1}, 1, 4},         // long rows: a block per output
      {{3000, 7}, {1}, 0, 1},         // many short rows: a warp each
      {{4097, 3}, {0}, 1, 4},         // a long column per thread
      {{6, 7}, {}, 0, 1},             // no axes: everything
      {{6, 7}, {}, 1, 1},             //   keeping the dims
      {{}, {}, 1, 1},                 // a scalar
      {{3, 0}, {1}, 1, 1},            // empty reductions: the identity
      {{0, 3}, {1}, 0, 1},            // no outputs
      {{2, 2, 2, 2, 2, 2, 2, 2}, {0, 2, 4, 6}, 1, 1}};  // rank 8, many runs
  for (const char* op : kReduceOps) {
    const auto [lo, hi] = range_for(op);
    const int64_t since = axes_input_opset(op);
    for (DataType t : kTypes)
      for (const ReduceCase& c : cases) {
        const std::string what = describe(c);
        // Axes as an attribute (opset 11), as a graph input and as a constant.
        std::vector<ir::Attribute> attrs = {attr_int("keepdims", c.keepdims)};
        if (!c.axes.empty()) attrs.push_back(attr_ints("axes", c.axes));
        check(op, 11, {floats(c.dims, lo, hi)}, t, attrs, what + " (attribute)", c.tol_scale);
        const std::vector<ir::Attribute> keep = {attr_int("keepdims", c.keepdims)};
        if (c.axes.empty()) {
          check(op, since, {floats(c.dims, lo, hi)}, t, keep, what + " (no input)", c.tol_scale);
        } else {
          check(op, since, {floats(c.dims, lo, hi), int64s(c.axes)}, t, keep, what + " (input)",
                c.tol_scale);
          check(op, since, {floats(c.dims, lo, hi), int64s(c.axes, true)}, t, keep,
                what + " (constant)", c.tol_scale);
        }
      }
  }
}

TEST(CudaReduce, NoopWithEmptyAxesAndEmptyAxesInput) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const char* op : kReduceOps) {
    const auto [lo, hi] = range_for(op);
    const int64_t since = axes_input_opset(op);
    for (DataType t : kTypes) {
      // No axes with noop_with_empty_axes: the input unchanged.
      check(op, since, {floats({3, 4}, lo, hi)}, t, {attr_int("noop_with_empty_axes", 1)}, "noop");
      check(op, since, {floats({3, 4}, lo, hi), int64s({})}, t,
            {attr_int("noop_with_empty_axes", 1)}, "noop, empty axes input");
      // An empty axes input without it: every dim.
      check(op, since, {floats({3, 4}, lo, hi), int64s({})}, t, {}, "empty axes input");
    }
  }
}

TEST(CudaReduce, NaNAndInfinities) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    // Rows: NaN first, NaN last, +inf, -inf, all -inf, ordinary.
    const std::vector<float> v = {kNaN,  1,     2,     3,     1,     2,      3,     kNaN,
                                  1,     kInf,  2,     3,     -kInf, 1,      2,     3,
                                  -kInf, -kInf, -kInf, -kInf, 0.5f,  -0.25f, 0.75f, 1};
    for (const char* op : {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceLogSumExp"}) {
      check(op, 11, {values({6, 4}, v)}, t, {attr_ints("axes", {1})}, "rows");
      check(op, 11, {values({6, 4}, v)}, t, {attr_ints("axes", {0})}, "columns");
    }
  }
}

TEST(CudaReduce, ArgMaxAndArgMin) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Values 0, 1, 2 only: many ties, so select_last_index matters.
  std::vector<float> ties(3 * 4 * 5);
  for (size_t i = 0; i < ties.size(); ++i) ties[i] = float((i * 7 + i / 5) % 3);
  std::vector<float> long_rows(2 * 5000);
  for (size_t i = 0; i < long_rows.size(); ++i) long_rows[i] = float((i * 13) % 101);
  const std::vector<float> nans = {1, kNaN, 3, kNaN, 2, 2, -kInf, -kInf, kInf, 0, kInf, 0};
  for (const char* op : {"ArgMax", "ArgMin"})
    for (DataType t : kTypes)
      for (int64_t last : {0, 1})
        for (int64_t keep : {0, 1}) {
          const auto attrs = [&](int64_t axis) {
            return std::vector<ir::Attribute>{attr_int("axis", axis), attr_int("keepdims", keep),
                                              attr_int("select_last_index", last)};
          };
          const std::string what = "last " + std::to_string(last) + " keep " + std::to_string(keep);
          for (int64_t axis : {0, 1, 2, -1, -2}) {
            check(op, 13, {floats({3, 4, 5})}, t, attrs(axis), what + " random");
            check(op, 13, {values({3, 4, 5}, ties)}, t, attrs(axis), what + " ties");
          }
          check(op, 13, {values({2, 5000}, long_rows)}, t, attrs(1), what + " long rows");
          check(op, 13, {floats({5000, 3})}, t, attrs(0), what + " long columns");
          check(op, 13, {values({3, 4}, nans)}, t, attrs(1), what + " NaN rows");
          check(op, 13, {values({3, 4}, nans)}, t, attrs(0), what + " NaN columns");
          check(op, 13, {floats({7})}, t, attrs(0), what + " 1-D");
          check(op, 13, {floats({0, 3})}, t, attrs(1), what + " no outputs");
        }
  // Before opset 12 there is no select_last_index; axis defaults to 0.
  for (DataType t : kTypes) check("ArgMax", 11, {floats({4, 3})}, t, {}, "opset 11");
}

TEST(CudaReduce, ArgMaxOverAnEmptyAxisFailsNamingTheNode) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  OneNode m("ArgMax", 13, {attr_int("axis", 1)});
  m.input("x", Tensor(DataType::kFloat, Shape{3, 0})).output("y");
  auto s = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  ASSERT_EQ(assigned_provider(*s), kCuda);
  try {
    s->run(m.feeds);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ArgMax_node"), std::string::npos) << what;
    EXPECT_NE(what.find("empty axis"), std::string::npos) << what;
  }
}

TEST(CudaReduce, RmsNormalization) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    check("RMSNormalization", 23, {floats({4, 64}), floats({64})}, t, {}, "last axis");
    check("RMSNormalization", 23, {floats({2, 3, 8}), floats({3, 8})}, t, {attr_int("axis", 1)},
          "two dims");
    check("RMSNormalization", 23, {floats({2, 3, 8}), floats({1, 1})}, t, {attr_int("axis", 1)},
          "scalar Scale");
    check("RMSNormalization", 23, {floats({3, 5000}), floats({5000})}, t,
          {attr_float("epsilon", 1e-2f)}, "long rows, epsilon");
    check("RMSNormalization", 23, {values({2, 1}, {0, 0}), floats({1})}, t,
          {attr_float("epsilon", 0.5f)}, "zeros");
    check("RMSNormalization", 23, {floats({0, 8}), floats({8})}, t, {}, "no rows");
    check("RMSNormalization", 23, {floats({5}), floats({5})}, t, {attr_int("axis", 0)}, "1-D");
  }
}

TEST(CudaReduce, RmsNormalizationBroadcastsScaleOverLeadingNormalizedDims) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Scale [8] over the normalized dims [3, 8] (the CPU kernel takes only a
  // full or one-element Scale, so its reference gets Scale tiled to [3, 8]).
  for (DataType t : kTypes) {
    Tensor x = make_tensor(t, {2, 3, 8}, random_values(48, 3));
    const std::vector<float> sv = random_values(8, 4);
    std::vector<float> tiled;
    for (int i = 0; i < 3; ++i) tiled.insert(tiled.end(), sv.begin(), sv.end());
    OneNode m("RMSNormalization", 23, {attr_int("axis", -2)});
    OneNode ref("RMSNormalization", 23, {attr_int("axis", -2)});
    m.input("x", x).input("s", make_tensor(t, {8}, sv)).output("y");
    ref.input("x", as_float(x)).input("s", as_float(make_tensor(t, {3, 8}, tiled))).output("y");
    expect_cuda_matches_cpu(m, ref, t, "RMSNormalization Scale [8] " + type_name(t));
  }
}

TEST(CudaReduce, Attention4D) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for_each_attention_kernel([&] {
    for (DataType t : kTypes) {
      check("Attention", 23, {floats({2, 4, 3, 8}), floats({2, 4, 5, 8}), floats({2, 4, 5, 8})}, t,
            {}, "MHA");
      // Grouped-query heads, a V head size of its own.
      check("Attention", 23, {floats({1, 4, 3, 8}), floats({1, 2, 5, 8}), floats({1, 2, 5, 6})}, t,
            {}, "GQA");
      check("Attention", 23, {floats({1, 6, 4, 8}), floats({1, 1, 4, 8}), floats({1, 1, 4, 8})}, t,
            {attr_int("is_causal", 1)}, "MQA causal");
      check("Attention", 23, {floats({1, 2, 3, 8}), floats({1, 2, 7, 8}), floats({1, 2, 7, 8})}, t,
            {attr_int("is_causal", 1), attr_float("scale", 0.7f)}, "causal, fewer queries");
      check("Attention", 23,
            {floats({1, 2, 3, 8}, -4, 4), floats({1, 2, 5, 8}, -4, 4), floats({1, 2, 5, 8})}, t,
            {attr_float("softcap", 2.0f)}, "softcap");
      // Head sizes above the block's 128 threads.
      check("Attention", 23,
            {floats({1, 1, 2, 130}), floats({1, 1, 3, 130}), floats({1, 1, 3, 200})}, t, {},
            "wide heads");
    }
  });
}

TEST(CudaReduce, Attention3D) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for_each_attention_kernel([&] {
    for (DataType t : kTypes) {
      check("Attention", 23, {floats({2, 3, 32}), floats({2, 5, 16}), floats({2, 5, 12})}, t,
            {attr_int("q_num_heads", 4), attr_int("kv_num_heads", 2)}, "3-D GQA");
      check("Attention", 23, {floats({1, 4, 16}), floats({1, 4, 16}), floats({1, 4, 16})}, t,
            {attr_int("q_num_heads", 2), attr_int("kv_num_heads", 2), attr_int("is_causal", 1)},
            "3-D causal");
    }
  });
}

TEST(CudaReduce, AttentionMasks) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for_each_attention_kernel([&] {
    const std::vector<Arg> qkv = {floats({2, 2, 3, 8}), floats({2, 2, 5, 8}), floats({2, 2, 5, 8})};
    // Row 1 of the bool mask attends to nothing: that row's output is zeros.
    Tensor b35 = bool_tensor({3, 5}, {1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1});
    Tensor b5 = bool_tensor({5}, {0, 1, 1, 0, 1});
    for (DataType t : kTypes) {
      const auto with = [&](Arg mask) {
        std::vector<Arg> a = qkv;
        a.push_back(std::move(mask));
        return a;
      };
      check("Attention", 23, with(fixed(b35)), t, {}, "bool [3, 5]");
      check("Attention", 23, with(fixed(b5, true)), t, {attr_int("is_causal", 1)},
            "constant bool [5], causal");
      check("Attention", 23, with(floats({2, 1, 3, 5}, -2, 0)), t, {}, "float [2, 1, 3, 5]");
      check("Attention", 23, with(floats({2, 2, 3, 5}, -2, 0)), t, {}, "float, every dim");
      check("Attention", 23, with(floats({1, 5}, -2, 0)), t, {}, "float [1, 5]");
      // A last dim shorter than the keys: keys 3 and 4 are masked out.
      check("Attention", 23, with(floats({3, 3}, -1, 0)), t, {}, "float [3, 3], short");
      check("Attention", 23, with(values({5}, {0, -kInf, 0, -kInf, 0})), t, {}, "float -inf");
      check("Attention", 23, with(values({5}, {-kInf, -kInf, -kInf, -kInf, -kInf})), t, {},
            "every key -inf");
      // An omitted mask followed by nothing else.
      check("Attention", 23, with(none()), t, {}, "omitted mask");
    }
    // A float mask of another float type than Q.
    for (DataType t : kTypes) {
      Tensor m32 = make_tensor(DataType::kFloat, {3, 5}, random_values(15, 5, -2, 0));
      std::vector<Arg> a = qkv;
      a.push_back(fixed(m32));
      check("Attention", 23, a, t, {}, "float32 mask");
    }
  });
}

TEST(CudaReduce, AttentionTiles) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for_each_attention_kernel([&] {
    // The tiled kernel: 32 queries and 64 keys a tile, head sizes up to 128.
    // Partial last tiles of both, several key tiles, a V head of its own.
    for (DataType t : kTypes) {
      check("Attention", 23,
            {floats({2, 3, 77, 64}), floats({2, 3, 130, 64}), floats({2, 3, 130, 96})}, t, {},
            "partial tiles, V head 96");
      check("Attention", 23,
            {floats({1, 2, 70, 128}), floats({1, 2, 70, 128}), floats({1, 2, 70, 128}),
             floats({70, 70}, -2, 0)},
            t, {attr_int("is_causal", 1)}, "head 128, causal, float mask");
      check("Attention", 23, {floats({2, 40, 128}), floats({2, 100, 64}), floats({2, 100, 64})}, t,
            {attr_int("q_num_heads", 4), attr_int("kv_num_heads", 2)}, "3-D GQA, 100 keys");
      check("Attention", 25,
            {floats({1, 2, 33, 24}), floats({1, 2, 65, 24}), floats({1, 2, 65, 24})}, t,
            {attr_int("left_window_size", 5), attr_int("right_window_size", 40)},
            "windows across tiles");
      // Float16 and bfloat16 with heads of multiples of 16 take the tensor-core
      // kernel (64 queries a block) when its grid fills the GPU (8 x 8 x 3 = 192
      // blocks; an H100 or H200 has 132 multiprocessors), else the tiled one:
      // several query tiles, grouped heads, a mask, in both.
      check("Attention", 23,
            {floats({8, 8, 130, 64}), floats({8, 4, 200, 64}), floats({8, 4, 200, 64}),
             floats({8, 1, 130, 200}, -2, 0)},
            t, {attr_float("scale", 0.3f)}, "GQA, 192 blocks of 64 queries, 200 keys, mask");
      check("Attention", 23,
            {floats({1, 4, 130, 64}), floats({1, 2, 200, 64}), floats({1, 2, 200, 64}),
             floats({1, 1, 130, 200}, -2, 0)},
            t, {attr_float("scale", 0.3f)}, "GQA, 12 blocks of 64 queries, 200 keys, mask");
      // Scores of 32 rows x 600 keys: past 48 KiB of shared memory (the kernel opts in).
      check("Attention", 23,
            {floats({1, 1, 40, 64}), floats({1, 1, 600, 64}), floats({1, 1, 600, 64})}, t, {},
            "600 keys", 2);
    }
  });
}

TEST(CudaReduce, AttentionWindowsLongSequencesAndEmpty) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for_each_attention_kernel([&] {
    for (DataType t : kTypes) {
      check("Attention", 25, {floats({1, 2, 6, 8}), floats({1, 2, 6, 8}), floats({1, 2, 6, 8})}, t,
            {attr_int("is_causal", 1), attr_int("left_window_size", 2)}, "left window");
      check("Attention", 25, {floats({1, 2, 6, 8}), floats({1, 2, 6, 8}), floats({1, 2, 6, 8})}, t,
            {attr_int("left_window_size", 1), attr_int("right_window_size", 1)}, "both windows");
      // 20000 keys: the scores do not fit in shared memory (global scratch).
      check("Attention", 23,
            {floats({1, 2, 3, 16}), floats({1, 2, 20000, 16}), floats({1, 2, 20000, 16})}, t, {},
            "long keys", 2);
      check("Attention", 23,
            {floats({1, 1, 2, 16}), floats({1, 1, 20000, 16}), floats({1, 1, 20000, 16})}, t,
            {attr_int("is_causal", 1)}, "long keys, causal");
      check("Attention", 23, {floats({1, 2, 0, 8}), floats({1, 2, 5, 8}), floats({1, 2, 5, 8})}, t,
            {}, "no queries");
      check("Attention", 23, {floats({1, 2, 3, 8}), floats({1, 2, 0, 8}), floats({1, 2, 0, 8})}, t,
            {}, "no keys");
      // Many rows: more than the grid's 65535 blocks.
      check("Attention", 23, {floats({2, 8, 4500, 4}), floats({2, 8, 3, 4}), floats({2, 8, 3, 4})},
            t, {}, "many rows");
    }
  });
}
