#include <algorithm>
#include <cmath>
#include <iterator>

#include "ops/type_inference.hpp"
#include "providers/cpu/cpu_provider.hpp"
#include "unit/providers/nn_test_helpers.hpp"
#include "unit/providers/one_node_model.hpp"

namespace tessera::test::nn {
namespace {

struct ConvCase {
  std::vector<int64_t> x;  // N, C, spatial...
  int64_t M, group;
  std::vector<int64_t> kernel, strides, dilations, pads;
  std::string auto_pad = "NOTSET";
  bool bias = true;
};

// Direct N-D convolution from the spec's definition, pads resolved here
// independently of the kernel's code.
std::vector<float> naive_conv(const ConvCase& c, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& b,
                              std::vector<int64_t>& yshape) {
  const size_t r = c.kernel.size();
  const int64_t N = c.x[0], C = c.x[1], Cg = C / c.group, Mg = c.M / c.group;
  std::vector<int64_t> in(c.x.begin() + 2, c.x.end()), out(r), pb(r, 0);
  for (size_t i = 0; i < r; ++i) {
    const int64_t s = c.strides.empty() ? 1 : c.strides[i];
    const int64_t d = c.dilations.empty() ? 1 : c.dilations[i];
    const int64_t ek = (c.kernel[i] - 1) * d + 1;
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out[i] = (in[i] + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out[i] - 1) * s + ek - in[i]);
      pb[i] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      const int64_t p0 = c.pads.empty() ? 0 : c.pads[i], p1 = c.pads.empty() ? 0 : c.pads[i + r];
      if (c.auto_pad == "VALID") {
        out[i] = (in[i] - ek) / s + 1;
      } else {
        pb[i] = p0;
        out[i] = (in[i] + p0 + p1 - ek) / s + 1;
      }
    }
  }
  yshape = {N, c.M};
  yshape.insert(yshape.end(), out.begin(), out.end());
  int64_t osz = 1, isz = 1, ksz = 1;
  for (size_t i = 0; i < r; ++i) {
    osz *= out[i];
    isz *= in[i];
    ksz *= c.kernel[i];
  }
  std::vector<float> y(size_t(N * c.M * osz));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < c.M; ++m) {
      const int64_t g = m / Mg;
      for (int64_t o = 0; o < osz; ++o) {
        double acc = b.empty() ? 0.0 : b[size_t(m)];
        std::vector<int64_t> oi(r);
        int64_t rem = o;
        for (size_t d = r; d-- > 0;) {
          oi[d] = rem % out[d];
          rem /= out[d];
        }
        for (int64_t cc = 0; cc < Cg; ++cc)
          for (int64_t k = 0; k < ksz; ++k) {
            int64_t krem = k, off = 0;
            bool ok = true;
            std::vector<int64_t> ki(r);
            for (size_t d = r; d-- > 0;) {
              ki[d] = krem % c.kernel[d];
              krem /= c.kernel[d];
            }
            for (size_t d = 0; d < r; ++d) {
              const int64_t s = c.strides.empty() ? 1 : c.strides[d];
              const int64_t dl = c.dilations.empty() ? 1 : c.dilations[d];
              const int64_t ix = oi[d] * s - pb[d] + ki[d] * dl;
              if (ix < 0 || ix >= in[d]) ok = false;
              off = off * in[d] + ix;
            }
            if (!ok) continue;
            acc += double(x[size_t((n * C + g * Cg + cc) * isz + off)]) *
                   double(w[size_t((m * Cg + cc) * ksz + k)]);
          }
        y[size_t((n * c.M + m) * osz + o)] = float(acc);
      }
    }
  return y;
}

void run_case(const ConvCase& c, uint32_t seed) {
  const int64_t Cg = c.x[1] / c.group;
  std::vector<int64_t> wd = {c.M, Cg};
  wd.insert(wd.end(), c.kernel.begin(), c.kernel.end());
  const Shape xs(c.x), ws(wd);
  auto x = random_floats(size_t(xs.num_elements()), seed);
  auto w = random_floats(size_t(ws.num_elements()), seed + 1);
  std::vector<float> b = c.bias ? random_floats(size_t(c.M), seed + 2) : std::vector<float>{};
  std::vector<int64_t> ys;
  auto want = naive_conv(c, x, w, b, ys);
  std::vector<ir::Attribute> attrs = {attr_int("group", c.group),
                                      attr_string("auto_pad", c.auto_pad)};
  if (!c.strides.empty()) attrs.push_back(attr_ints("strides", c.strides));
  if (!c.dilations.empty()) attrs.push_back(attr_ints("dilations", c.dilations));
  if (!c.pads.empty()) attrs.push_back(attr_ints("pads", c.pads));
  std::vector<Value> inputs = {f32(x, xs), f32(w, ws)};
  if (c.bias) inputs.push_back(f32(b, Shape{c.M}));
  auto out = run_node("Conv", inputs, attrs, 22);
  expect_near(out[0], want, Shape(ys), 1e-4f);
}

TEST(NnConv, MatchesDirectConvolution) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 7, 7}, 4, 1, {3, 3}, {}, {}, {1, 1, 1, 1}},
      {{2, 4, 9, 8}, 6, 2, {3, 2}, {2, 1}, {1, 2}, {0, 1, 2, 0}},
      {{1, 5, 6, 6}, 5, 5, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}},      // depthwise
      {{1, 3, 6, 7}, 6, 3, {3, 3}, {2, 2}, {2, 1}, {1, 0, 1, 2}},  // depthwise x2, strided
      {{2, 8, 5, 5}, 16, 1, {1, 1}, {}, {}, {}},                   // pointwise
      {{1, 3, 10}, 2, 1, {4}, {3}, {2}, {}, "SAME_UPPER"},
      {{1, 3, 10}, 2, 1, {4}, {2}, {}, {}, "SAME_LOWER"},
      {{1, 2, 9, 9}, 3, 1, {3, 3}, {2, 2}, {}, {}, "VALID", false},
      {{1, 2, 4, 5, 6}, 4, 2, {2, 3, 2}, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}},
      {{3, 16, 12, 12}, 32, 1, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}},
      {{1, 16, 3000}, 12, 1, {3}, {1}, {4}, {8, 0}},  // 1-D, im2col in column slices
  };
  uint32_t seed = 1;
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << "case " << seed);
    run_case(c, seed++);
  }
}

// Runs Conv / com.tessera FusedConv with W (and B) given to the kernel as
// constants at creation, as a session does for initializers, so the
// prepacked-weight paths run; `threads` sizes the intra-op pool.
Value run_conv_const_w(const std::string& op, const std::vector<Tensor>& inputs,
                       std::vector<ir::Attribute> attrs, int threads) {
  ir::Node node;
  node.name = "test_" + op;
  node.op_type = op;
  node.domain = op == "Conv" ? "" : "com.tessera";
  node.attributes = std::move(attrs);
  std::vector<ir::TypeInfo> types;
  std::vector<DataType> dtypes;
  std::vector<const Tensor*> constants;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool present = inputs[i].dtype() != DataType::kUndefined;
    node.inputs.push_back(present ? "in" + std::to_string(i) : "");
    types.push_back(present ? ir::TypeInfo::tensor(inputs[i].dtype()) : ir::TypeInfo());
    dtypes.push_back(inputs[i].dtype());
    constants.push_back(present && (i == 1 || i == 2) ? &inputs[i] : nullptr);
  }
  node.outputs = {"y"};
  const int64_t opset = op == "Conv" ? 22 : 1;
  auto out_types = ops::infer_output_types(node, opset, types);
  auto m = cpu::cpu_kernel_registry().lookup(node.domain, op, opset, dtypes);
  if (!m.entry) fail(ErrorCode::kNotImplemented, node.describe(), ": ", m.reason);
  ep::KernelInfo info(node, opset, types, out_types, constants);
  auto kernel = m.entry->factory(info);
  std::vector<Value> in_values;
  for (const auto& t : inputs)
    in_values.push_back(t.dtype() == DataType::kUndefined ? Value() : Value(t));
  std::vector<const Value*> in_ptrs;
  for (auto& v : in_values) in_ptrs.push_back(v.is_none() ? nullptr : &v);
  Value y;
  ThreadPool pool(threads);
  ep::KernelContext ctx(node, in_ptrs, {&y}, {out_types[0].elem_type}, default_cpu_allocator(),
                        &pool);
  kernel->compute(ctx);
  return y;
}

// Every convolution path (depthwise 3x3 s1/s2, pointwise, im2col with odd
// sizes, grouped, asymmetric pads, dilations) with constant weights, fused
// bias + residual + activation, at 1 and 2 threads, against the definition.
TEST(NnFusedConv, EveryPathMatchesDefinitionWithEpilogue) {
  const std::vector<ConvCase> cases = {
      {{1, 8, 9, 9}, 8, 8, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}},       // depthwise s1
      {{1, 6, 10, 11}, 6, 6, {3, 3}, {2, 2}, {}, {0, 1, 1, 0}},     // depthwise s2, asymmetric
      {{1, 16, 7, 7}, 24, 1, {1, 1}, {}, {}, {}},                   // pointwise
      {{1, 13, 11, 9}, 19, 1, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}},    // im2col, odd sizes
      {{2, 6, 8, 8}, 10, 2, {3, 3}, {2, 2}, {2, 1}, {2, 1, 0, 1}},  // grouped, dilated
      {{1, 3, 17, 17}, 8, 1, {7, 7}, {2, 2}, {}, {3, 3, 3, 3}},     // stem-like
      {{1, 70, 5, 5}, 9, 1, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}},      // K = 630 > one slice
      // 1-D over a long sequence: im2col and GEMM a slice of columns at a
      // time (the last slice shorter), causal dilated pads, grouped.
      {{1, 16, 3000}, 12, 1, {3}, {1}, {4}, {8, 0}},
      {{2, 64, 3000}, 8, 2, {3}, {1}, {16}, {32, 0}},
  };
  struct Act {
    const char* name;
    std::vector<float> params;
  };
  const Act acts[] = {
      {"", {}}, {"Relu", {}}, {"Clip", {0.f, 6.f}}, {"LeakyRelu", {0.1f}}, {"Tanh", {}}};
  uint32_t seed = 100;
  for (const auto& c : cases)
    for (size_t ai = 0; ai < std::size(acts); ++ai)
      for (int threads : {1, 2}) {
        SCOPED_TRACE(::testing::Message()
                     << "case seed " << seed << " act " << ai << " threads " << threads);
        const int64_t Cg = c.x[1] / c.group;
        std::vector<int64_t> wd = {c.M, Cg};
        wd.insert(wd.end(), c.kernel.begin(), c.kernel.end());
        auto x = random_floats(size_t(Shape(c.x).num_elements()), seed);
        auto w = random_floats(size_t(Shape(wd).num_elements()), seed + 1);
        auto b = random_floats(size_t(c.M), seed + 2);
        std::vector<int64_t> ys;
        auto want = naive_conv(c, x, w, b, ys);
        auto z = random_floats(want.size(), seed + 3);
        ++seed;
        for (size_t i = 0; i < want.size(); ++i) {
          float v = want[i] + z[i];
          if (ai == 1) v = std::max(v, 0.f);
          if (ai == 2) v = std::clamp(v, 0.f, 6.f);
          if (ai == 3 && v < 0) v *= 0.1f;
          if (ai == 4) v = std::tanh(v);
          want[i] = v;
        }
        std::vector<ir::Attribute> attrs = {attr_int("group", c.group)};
        if (!c.strides.empty()) attrs.push_back(attr_ints("strides", c.strides));
        if (!c.dilations.empty()) attrs.push_back(attr_ints("dilations", c.dilations));
        if (!c.pads.empty()) attrs.push_back(attr_ints("pads", c.pads));
        if (ai > 0) attrs.push_back(attr_string("activation", acts[ai].name));
        if (!acts[ai].params.empty()) {
          ir::Attribute p;
          p.name = "activation_params";
          p.type = ir::AttrType::kFloats;
          p.floats = acts[ai].params;
          attrs.push_back(p);
        }
        auto y = run_conv_const_w(
            "FusedConv",
            {f32(x, Shape(c.x)), f32(w, Shape(wd)), f32(b, Shape{c.M}), f32(z, Shape(ys))}, attrs,
            threads);
        expect_near(y, want, Shape(ys), 1e-4f);
      }
}

TEST(NnFusedConv, BroadcastResidualAndBadActivation) {
  // Z [1, 2, 1, 1] broadcasts over the output [1, 2, 3, 3] (a per-channel Add).
  std::vector<float> x(18, 1.f), w(2 * 2, 1.f), z = {10.f, -100.f};
  auto y = run_conv_const_w(
      "FusedConv",
      {f32(x, Shape{1, 2, 3, 3}), f32(w, Shape{2, 2, 1, 1}), Tensor(), f32(z, Shape{1, 2, 1, 1})},
      {attr_string("activation", "Relu")}, 1);
  std::vector<float> want(18, 0.f);
  std::fill(want.begin(), want.begin() + 9, 12.f);
  expect_near(y, want, Shape{1, 2, 3, 3});
  auto err = error_of([&] {
    run_conv_const_w("FusedConv", {f32(x, Shape{1, 2, 3, 3}), f32(w, Shape{2, 2, 1, 1})},
                     {attr_string("activation", "Softsign")}, 1);
  });
  EXPECT_NE(err.find("unsupported activation 'Softsign'"), std::string::npos) << err;
  err = error_of([&] {
    run_conv_const_w("FusedConv",
                     {f32(x, Shape{1, 2, 3, 3}), f32(w, Shape{2, 2, 1, 1}), Tensor(),
                      f32(std::vector<float>(4), Shape{1, 4, 1, 1})},
                     {}, 1);
  });
  EXPECT_NE(err.find("does not broadcast"), std::string::npos) << err;
}

TEST(NnFusedConv, ConstantWeightsMatchRuntimeWeights) {
  // The prepacked path (weights constant at creation) and the per-run path agree.
  const ConvCase c{{1, 20, 9, 9}, 33, 1, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}};
  auto x = random_floats(20 * 81, 7), w = random_floats(33 * 20 * 9, 8), b = random_floats(33, 9);
  std::vector<int64_t> ys;
  auto want = naive_conv(c, x, w, b, ys);
  for (int threads : {1, 2}) {
    auto y = run_conv_const_w(
        "Conv", {f32(x, Shape{1, 20, 9, 9}), f32(w, Shape{33, 20, 3, 3}), f32(b, Shape{33})},
        {attr_ints("pads", {1, 1, 1, 1})}, threads);
    expect_near(y, want, Shape(ys), 1e-4f);
  }
  auto y =
      run_node("Conv", {f32(x, Shape{1, 20, 9, 9}), f32(w, Shape{33, 20, 3, 3}), f32(b, Shape{33})},
               {attr_ints("pads", {1, 1, 1, 1})}, 22);
  expect_near(y[0], want, Shape(ys), 1e-4f);
}

TEST(NnConv, Float16ComputesInFloat) {
  std::vector<Float16> x, w;
  for (int i = 0; i < 9; ++i) x.push_back(Float16(float(i)));
  for (int i = 0; i < 4; ++i) w.push_back(Float16(1.f));
  auto out = run_node(
      "Conv",
      {Tensor::from_vector(x, Shape{1, 1, 3, 3}), Tensor::from_vector(w, Shape{1, 1, 2, 2})}, {},
      22);
  ASSERT_EQ(out[0].tensor().dtype(), DataType::kFloat16);
  expect_near(out[0], {8, 12, 20, 24}, Shape{1, 1, 2, 2});
}

TEST(NnConv, ChannelMismatchNamesShapes) {
  auto err = error_of([] {
    run_node("Conv", {f32(std::vector<float>(27), Shape{1, 3, 3, 3}),
                      f32(std::vector<float>(16), Shape{1, 4, 2, 2})});
  });
  EXPECT_NE(err.find("has 3 channels but W"), std::string::npos) << err;
  EXPECT_NE(err.find("expects 4 (group 1)"), std::string::npos) << err;
}

TEST(NnConvTranspose, MatchesScatterDefinition) {
  // X [1,2,3,3], W [2,3,3,3] (C, M/g, k), stride 2, pads 1, output_padding 1.
  const int64_t C = 2, M = 3, H = 3, K = 3, S = 2, P = 1, OP = 1;
  auto x = random_floats(size_t(C * H * H), 5);
  auto w = random_floats(size_t(C * M * K * K), 6);
  const int64_t O = S * (H - 1) + OP + K - 2 * P;
  std::vector<float> want(size_t(M * O * O), 0.f);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < H; ++iw)
          for (int64_t kh = 0; kh < K; ++kh)
            for (int64_t kw = 0; kw < K; ++kw) {
              const int64_t oh = ih * S - P + kh, ow = iw * S - P + kw;
              if (oh < 0 || oh >= O || ow < 0 || ow >= O) continue;
              want[size_t((m * O + oh) * O + ow)] +=
                  x[size_t((c * H + ih) * H + iw)] * w[size_t(((c * M + m) * K + kh) * K + kw)];
            }
  auto out = run_node("ConvTranspose", {f32(x, Shape{1, C, H, H}), f32(w, Shape{C, M, K, K})},
                      {attr_ints("strides", {S, S}), attr_ints("pads", {P, P, P, P}),
                       attr_ints("output_padding", {OP, OP})},
                      22);
  expect_near(out[0], want, Shape{1, M, O, O});
}

// Constant filters (an initializer) are packed once per group at kernel
// creation; every run, and a second session sharing the packing, gives the
// scatter definition: 2 groups, stride 2, pads 1.
TEST(NnConvTranspose, ConstantFiltersPackedPerGroupMatchTheDefinition) {
  const int64_t C = 4, M = 6, G = 2, H = 5, K = 3, S = 2, P = 1;
  const int64_t Cg = C / G, Mg = M / G, O = S * (H - 1) + K - 2 * P;
  auto x = random_floats(size_t(C * H * H), 15);
  auto w = random_floats(size_t(C * Mg * K * K), 16);
  std::vector<float> want(size_t(M * O * O), 0.f);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t mg = 0; mg < Mg; ++mg)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < H; ++iw)
          for (int64_t kh = 0; kh < K; ++kh)
            for (int64_t kw = 0; kw < K; ++kw) {
              const int64_t oh = ih * S - P + kh, ow = iw * S - P + kw;
              if (oh < 0 || oh >= O || ow < 0 || ow >= O) continue;
              const int64_t m = (c / Cg) * Mg + mg;  // the output channel of c's group
              want[size_t((m * O + oh) * O + ow)] +=
                  x[size_t((c * H + ih) * H + iw)] * w[size_t(((c * Mg + mg) * K + kh) * K + kw)];
            }
  OneNode m("ConvTranspose", 22,
            {attr_ints("strides", {S, S}), attr_ints("pads", {P, P, P, P}), attr_int("group", G)});
  m.input("x", f32(x, Shape{1, C, H, H})).input("w", f32(w, Shape{C, Mg, K, K}), true).output("y");
  for (int session = 0; session < 2; ++session) {
    auto sess = Session::create_from_model(m.model, {}, {});
    for (int run = 0; run < 2; ++run) expect_near(sess->run(m.feeds)[0], want, Shape{1, M, O, O});
  }
}

}  // namespace
}  // namespace tessera::test::nn
