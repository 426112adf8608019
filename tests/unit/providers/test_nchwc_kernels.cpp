// The com.tessera blocked-layout kernels (ReorderToNchwc, ReorderFromNchwc,
// NchwcConv, NchwcMaxPool, NchwcAveragePool, NchwcGlobalAveragePool) against
// the plain Conv / FusedConv / pool kernels, on both the AVX-512 and the
// portable linalg paths, and their shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "linalg/nchwc.hpp"
#include "ops/type_inference.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

const char* kDom = "com.tessera";

Tensor rand_t(Shape s, uint64_t seed) {
  Tensor t(DataType::kFloat, std::move(s));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  float* d = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = u(rng);
  return t;
}

// run_node with chosen inputs handed to the kernel as constants (NchwcConv
// packs a constant W at creation).
Value run_const(const std::string& op_type, std::vector<Value> inputs,
                std::vector<ir::Attribute> attrs, std::vector<bool> constant) {
  ir::Node node;
  node.name = "node_" + op_type;
  node.op_type = op_type;
  node.domain = kDom;
  node.attributes = std::move(attrs);
  std::vector<ir::TypeInfo> in_types;
  std::vector<DataType> in_dtypes;
  std::vector<const Tensor*> consts;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool present = !inputs[i].is_none();
    node.inputs.push_back(present ? "in" + std::to_string(i) : "");
    in_types.push_back(present ? ir::TypeInfo::tensor(inputs[i].tensor().dtype()) : ir::TypeInfo());
    in_dtypes.push_back(present ? inputs[i].tensor().dtype() : DataType::kUndefined);
    consts.push_back(present && i < constant.size() && constant[i] ? &inputs[i].tensor() : nullptr);
  }
  node.outputs = {"out0"};
  auto out_types = ops::infer_output_types(node, 1, in_types);
  auto m = cpu::cpu_kernel_registry().lookup(kDom, op_type, 1, in_dtypes);
  if (!m.entry) fail(ErrorCode::kNotImplemented, node.describe(), ": ", m.reason);
  ep::KernelInfo info(node, 1, in_types, out_types, consts);
  auto kernel = m.entry->factory(info);
  std::vector<Value> outputs(1);
  std::vector<const Value*> in_ptrs;
  for (auto& v : inputs) in_ptrs.push_back(v.is_none() ? nullptr : &v);
  ThreadPool pool(2);
  ep::KernelContext ctx(node, in_ptrs, {&outputs[0]}, {DataType::kFloat}, default_cpu_allocator(),
                        &pool);
  kernel->compute(ctx);
  return outputs[0];
}

Tensor to_blocked(const Tensor& x) {
  return run_node("ReorderToNchwc", {x}, {}, 1, 1, kDom)[0].tensor();
}
Tensor from_blocked(const Tensor& x, int64_t channels) {
  return run_node("ReorderFromNchwc", {x}, {attr_int("channels", channels)}, 1, 1, kDom)[0]
      .tensor();
}

void expect_close(const Tensor& want, const Tensor& got, float tol = 1e-4f) {
  ASSERT_EQ(want.shape(), got.shape());
  const float* a = want.data<float>();
  const float* b = got.data<float>();
  for (int64_t i = 0; i < want.num_elements(); ++i)
    ASSERT_NEAR(a[i], b[i], tol * (1 + std::abs(a[i]))) << "element " << i;
}

// Every lane at or past `channels` of a blocked tensor is zero.
void expect_padded_zero(const Tensor& b, int64_t channels) {
  const auto& d = b.shape().dims();
  ASSERT_EQ(d.size(), 5u);
  const float* p = b.data<float>();
  for (int64_t i = 0; i < b.num_elements(); ++i) {
    const int64_t blk = (i / (d[2] * d[3] * 16)) % d[1];
    if (blk * 16 + i % 16 >= channels) {
      ASSERT_EQ(p[i], 0.f) << "padded element " << i;
    }
  }
}

// Runs a test body on every blocked kernel set this CPU has (AVX-512, AVX2,
// portable).
template <typename Fn>
void each_kernel_set(Fn&& fn) {
  using linalg::Isa;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable}) {
    if (isa > linalg::cpu_isa()) continue;
    SCOPED_TRACE(linalg::isa_name(isa));
    const Isa was = linalg::nchwc::set_kernel_isa(isa);
    fn();
    linalg::nchwc::set_kernel_isa(was);
  }
}

struct ConvCase {
  Shape x, w;
  std::vector<ir::Attribute> attrs;  // Conv attributes
  bool bias, residual;
  std::vector<ir::Attribute> act;  // FusedConv activation attributes
  bool plain_input;
};

// NchwcConv (through the reorders) against the plain FusedConv kernel.
void check_conv(const ConvCase& c) {
  const Tensor x = rand_t(c.x, 1), w = rand_t(c.w, 2);
  const int64_t M = c.w[0];
  const Tensor b = rand_t(Shape{M}, 3);
  // The plain result without residual gives the output shape for Z.
  std::vector<ir::Attribute> fattrs = c.attrs;
  fattrs.insert(fattrs.end(), c.act.begin(), c.act.end());
  const Tensor y0 = run_node("Conv", {x, w, c.bias ? Value(b) : Value()}, c.attrs, 21)[0].tensor();
  const Tensor z = rand_t(y0.shape(), 4);
  std::vector<Value> ref_in = {x, w, c.bias ? Value(b) : Value()};
  if (c.residual) ref_in.push_back(z);
  const Tensor want = run_node("FusedConv", ref_in, fattrs, 1, 1, kDom)[0].tensor();

  std::vector<ir::Attribute> nattrs = fattrs;
  nattrs.push_back(attr_int("input_layout", c.plain_input ? 0 : 1));
  std::vector<Value> in = {c.plain_input ? x : to_blocked(x), w, c.bias ? Value(b) : Value()};
  if (c.residual) in.push_back(to_blocked(z));
  each_kernel_set([&] {
    const Tensor got = run_const("NchwcConv", in, nattrs, {false, true, false, false}).tensor();
    ASSERT_EQ(got.shape(),
              Shape({want.shape()[0], (M + 15) / 16, want.shape()[2], want.shape()[3], 16}));
    expect_padded_zero(got, M);
    expect_close(want, from_blocked(got, M));
  });
}

std::vector<ir::Attribute> relu() { return {attr_string("activation", "Relu")}; }
std::vector<ir::Attribute> clip(float lo, float hi) {
  return {attr_string("activation", "Clip"), attr_floats("activation_params", {lo, hi})};
}

}  // namespace

TEST(NchwcKernels, ReordersRoundTripAndZeroPad) {
  const Tensor x = rand_t(Shape{2, 20, 5, 7}, 9);
  const Tensor b = to_blocked(x);
  ASSERT_EQ(b.shape(), Shape({2, 2, 5, 7, 16}));
  expect_padded_zero(b, 20);
  // Element (n, c, h, w) is at [n, c/16, h, w, c%16].
  const float* xp = x.data<float>();
  const float* bp = b.data<float>();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 20; ++c)
      for (int64_t p = 0; p < 35; ++p)
        ASSERT_EQ(bp[((n * 2 + c / 16) * 35 + p) * 16 + c % 16], xp[(n * 20 + c) * 35 + p]);
  expect_close(x, from_blocked(b, 20), 0.f);
}

TEST(NchwcKernels, ReorderFromChecksChannels) {
  const Tensor b = to_blocked(rand_t(Shape{1, 20, 2, 2}, 1));
  try {
    from_blocked(b, 40);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("channels 40"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_node("ReorderToNchwc", {rand_t(Shape{2, 3, 4}, 1)}, {}, 1, 1, kDom), Error);
}

TEST(NchwcKernels, ConvBlockedInputBiasStridePad) {
  check_conv({Shape{2, 20, 9, 11},
              Shape{24, 20, 3, 3},
              {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1})},
              true,
              false,
              {},
              false});
}

TEST(NchwcKernels, ConvBlockedInputNoBiasDilatedAsymmetricPads) {
  check_conv({Shape{1, 33, 10, 9},
              Shape{17, 33, 3, 2},
              {attr_ints("dilations", {2, 1}), attr_ints("pads", {2, 0, 1, 1})},
              false,
              false,
              {},
              false});
}

TEST(NchwcKernels, ConvPlainInputStem) {
  check_conv({Shape{2, 3, 15, 15},
              Shape{16, 3, 7, 7},
              {attr_ints("strides", {2, 2}), attr_ints("pads", {3, 3, 3, 3})},
              true,
              false,
              relu(),
              true});
}

TEST(NchwcKernels, ConvDepthwiseClip) {
  check_conv({Shape{1, 40, 8, 8},
              Shape{40, 1, 3, 3},
              {attr_int("group", 40), attr_ints("pads", {1, 1, 1, 1})},
              true,
              false,
              clip(0.f, 6.f),
              false});
  check_conv(
      {Shape{1, 24, 9, 9},
       Shape{24, 1, 3, 3},
       {attr_int("group", 24), attr_ints("strides", {2, 2}), attr_string("auto_pad", "SAME_UPPER")},
       true,
       false,
       clip(0.f, 6.f),
       false});
}

TEST(NchwcKernels, ConvResidualActivation) {
  check_conv({Shape{1, 24, 7, 7}, Shape{40, 24, 1, 1}, {}, true, true, relu(), false});
  // An activation that does not map 0 to 0: the padded channels stay zero.
  check_conv({Shape{1, 16, 6, 6},
              Shape{20, 16, 3, 3},
              {attr_string("auto_pad", "SAME_LOWER")},
              false,
              true,
              clip(0.5f, 6.f),
              false});
}

TEST(NchwcKernels, ConvBroadcastResidual) {
  const Tensor x = rand_t(Shape{1, 16, 5, 5}, 1), w = rand_t(Shape{20, 16, 1, 1}, 2);
  const Tensor z = rand_t(Shape{1, 20, 1, 1}, 3);
  const auto act = clip(0.25f, 6.f);
  const Tensor want = run_node("FusedConv", {x, w, Value(), z}, act, 1, 1, kDom)[0].tensor();
  each_kernel_set([&] {
    const Tensor got =
        run_const("NchwcConv", {to_blocked(x), w, Value(), to_blocked(z)}, act, {false, true})
            .tensor();
    expect_padded_zero(got, 20);
    expect_close(want, from_blocked(got, 20));
  });
}

TEST(NchwcKernels, ConvErrorsNameTheNode) {
  const Tensor w = rand_t(Shape{16, 20, 3, 3}, 2);
  auto expect_error = [](auto&& fn, const std::string& needle) {
    try {
      fn();
      FAIL() << "expected an error containing " << needle;
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("node_NchwcConv"), std::string::npos) << msg;
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    }
  };
  // Blocked X with the wrong number of channel blocks for W's 20 channels.
  expect_error(
      [&] {
        run_const("NchwcConv", {to_blocked(rand_t(Shape{1, 40, 5, 5}, 1)), w}, {}, {false, true});
      },
      "[1,3,5,5,16]");
  // A plain X given to a conv built for a blocked one.
  expect_error(
      [&] {
        run_const("NchwcConv", {rand_t(Shape{1, 20, 5, 5}, 1), w}, {}, {false, true});
      },
      "[1,20,5,5]");
  // Plain layout with the wrong channel count.
  expect_error(
      [&] {
        run_const("NchwcConv", {rand_t(Shape{1, 8, 5, 5}, 1), w}, {attr_int("input_layout", 0)},
                  {false, true});
      },
      "[1,8,5,5]");
  // W not constant: refused at creation.
  expect_error(
      [&] {
        run_const("NchwcConv", {to_blocked(rand_t(Shape{1, 20, 5, 5}, 1)), w}, {}, {});
      },
      "constant");
  // A residual that is not the output's blocked shape.
  expect_error(
      [&] {
        run_const(
            "NchwcConv",
            {to_blocked(rand_t(Shape{1, 20, 5, 5}, 1)), w, Value(), rand_t(Shape{1, 16, 3, 3}, 3)},
            {}, {false, true});
      },
      "residual Z");
  // Grouped but not depthwise.
  expect_error(
      [&] {
        run_const("NchwcConv",
                  {to_blocked(rand_t(Shape{1, 20, 5, 5}, 1)), rand_t(Shape{10, 10, 3, 3}, 2)},
                  {attr_int("group", 2)}, {false, true});
      },
      "group 2");
}

namespace {

// A blocked pool against the plain ai.onnx one.
void check_pool(const std::string& op, Shape x_shape, std::vector<ir::Attribute> attrs) {
  const Tensor x = rand_t(x_shape, 5);
  const int64_t C = x_shape[1];
  const Tensor want = run_node(op, {x}, attrs, 19)[0].tensor();
  each_kernel_set([&] {
    const Tensor got = run_node("Nchwc" + op, {to_blocked(x)}, attrs, 1, 1, kDom)[0].tensor();
    expect_padded_zero(got, C);
    expect_close(want, from_blocked(got, C));
  });
}

}  // namespace

TEST(NchwcKernels, MaxPool) {
  check_pool("MaxPool", Shape{2, 20, 11, 11},
             {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
              attr_ints("pads", {1, 1, 1, 1})});
  check_pool("MaxPool", Shape{1, 16, 8, 7},
             {attr_ints("kernel_shape", {2, 3}), attr_int("ceil_mode", 1),
              attr_ints("strides", {2, 2}), attr_ints("dilations", {1, 2})});
  check_pool("MaxPool", Shape{1, 5, 7, 7},
             {attr_ints("kernel_shape", {3, 3}), attr_string("auto_pad", "SAME_UPPER"),
              attr_ints("strides", {2, 2})});
}

TEST(NchwcKernels, AveragePool) {
  for (int64_t include : {0, 1}) {
    SCOPED_TRACE(include);
    check_pool("AveragePool", Shape{2, 20, 9, 10},
               {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
                attr_ints("pads", {1, 1, 1, 1}), attr_int("count_include_pad", include)});
    check_pool("AveragePool", Shape{1, 24, 8, 8},
               {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
                attr_ints("pads", {1, 0, 0, 1}), attr_int("ceil_mode", 1),
                attr_int("count_include_pad", include)});
  }
}

TEST(NchwcKernels, GlobalAveragePool) {
  const Tensor x = rand_t(Shape{2, 40, 7, 6}, 5);
  const Tensor want = run_node("GlobalAveragePool", {x}, {}, 19)[0].tensor();
  each_kernel_set([&] {
    const Tensor got =
        run_node("NchwcGlobalAveragePool", {to_blocked(x)}, {}, 1, 1, kDom)[0].tensor();
    ASSERT_EQ(got.shape(), Shape({2, 3, 1, 1, 16}));
    expect_padded_zero(got, 40);
    expect_close(want, from_blocked(got, 40));
  });
}

TEST(NchwcKernels, PoolRejectsPlainInput) {
  try {
    run_node("NchwcMaxPool", {rand_t(Shape{1, 16, 4, 4}, 1)}, {attr_ints("kernel_shape", {2, 2})},
             1, 1, kDom);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[1,16,4,4]"), std::string::npos) << e.what();
  }
}
