#include <gtest/gtest.h>

#include "onnx/model_writer.hpp"
#include "runtime/environment.hpp"
#include "runtime/session.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using test_device::node;
using test_device::tensor_info;

namespace {

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * float(int(i % 7) - 3);
  return v;
}

// y = Conv(x, w) with 2 groups; m = MatMul(a, b); g = Gemm(c, b, transB=1):
// three packed forms (the conv's filters per group, b as is, b transposed).
std::string model_bytes() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs = {tensor_info("x", {1, 4, 5, 5}), tensor_info("a", {2, 3}),
                    tensor_info("c", {2, 4})};
  m.graph.initializers["w"] =
      Tensor::from_vector<float>(ramp(6 * 2 * 3 * 3, 0.5f), Shape{6, 2, 3, 3});
  m.graph.initializers["b"] = Tensor::from_vector<float>(ramp(12, 1.f), Shape{3, 4});
  ir::Node conv = node("Conv", {"x", "w"}, {"y"});
  ir::Attribute group;
  group.name = "group";
  group.type = ir::AttrType::kInt;
  group.i = 2;
  ir::Attribute pads;
  pads.name = "pads";
  pads.type = ir::AttrType::kInts;
  pads.ints = {1, 1, 1, 1};
  conv.attributes = {group, pads};
  ir::Node gemm = node("Gemm", {"c", "b"}, {"g"});
  ir::Attribute trans;
  trans.name = "transB";
  trans.type = ir::AttrType::kInt;
  trans.i = 1;
  gemm.attributes = {trans};
  m.graph.nodes = {conv, node("MatMul", {"a", "b"}, {"m"}), gemm};
  m.graph.outputs = {tensor_info("y", {1, 6, 5, 5}), tensor_info("m", {2, 4}),
                     tensor_info("g", {2, 3})};
  return onnx::serialize_model(m);
}

std::unique_ptr<Session> open(const std::string& bytes, bool share) {
  SessionOptions o;
  if (!share) o.config_entries["session.share_initializers"] = "0";
  return Session::create_from_bytes(bytes.data(), bytes.size(), o);
}

std::vector<std::vector<float>> run(const Session& s) {
  auto out = s.run({{"x", Tensor::from_vector<float>(ramp(100, 0.25f), Shape{1, 4, 5, 5})},
                    {"a", Tensor::from_vector<float>(ramp(6, 1.f), Shape{2, 3})},
                    {"c", Tensor::from_vector<float>(ramp(8, 2.f), Shape{2, 4})}});
  std::vector<std::vector<float>> v;
  for (const auto& o : out) {
    const Tensor& t = o.tensor();
    v.emplace_back(t.data<float>(), t.data<float>() + t.num_elements());
  }
  return v;
}

}  // namespace

TEST(RuntimePrepackedWeights, SessionsOfOneModelShareThePackedWeights) {
  auto& cache = Environment::global().prepacked_weights();
  const size_t before = cache.size();
  const std::string bytes = model_bytes();
  auto a = open(bytes, true);
  EXPECT_EQ(cache.size(), before + 3);  // conv filters, b, b transposed
  auto b = open(bytes, true);
  EXPECT_EQ(cache.size(), before + 3);  // the second session packs nothing
  auto ra = run(*a);
  EXPECT_EQ(run(*b), ra);
  // MatMul against a plain reference: the packed b gives the right product.
  const auto av = ramp(6, 1.f), bv = ramp(12, 1.f);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0;
      for (int k = 0; k < 3; ++k) s += av[size_t(i * 3 + k)] * bv[size_t(k * 4 + j)];
      EXPECT_FLOAT_EQ(ra[1][size_t(i * 4 + j)], s) << i << "," << j;
    }
  a.reset();
  EXPECT_EQ(cache.size(), before + 3);  // b still uses them
  b.reset();
  EXPECT_EQ(cache.size(), before);  // gone with the last session
}

TEST(RuntimePrepackedWeights, NotSharedWhenTheSessionDoesNotShareInitializers) {
  auto& cache = Environment::global().prepacked_weights();
  const size_t before = cache.size();
  const std::string bytes = model_bytes();
  auto shared = open(bytes, true);
  EXPECT_EQ(cache.size(), before + 3);
  auto own = open(bytes, false);
  auto own2 = open(bytes, false);
  EXPECT_EQ(cache.size(), before + 3);  // they packed their own, outside the cache
  EXPECT_EQ(run(*own), run(*shared));
  EXPECT_EQ(run(*own2), run(*shared));
  shared.reset();
  EXPECT_EQ(cache.size(), before);
}
