// Sparse initializers stay sparse where every reader takes them sparse
// (SparseToDenseMatMul's A) and are densified for any dense reader.
#include <gtest/gtest.h>

#include "onnx/model_reader.hpp"
#include "onnx/model_writer.hpp"
#include "runtime/session.hpp"
#include "runtime/sparse_initializers.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;

namespace {

constexpr int64_t kRows = 3, kInner = 4, kCols = 2;

// A [3,4] with three stored values, as COO with linear positions.
SparseTensor sparse_a() {
  SparseTensor s;
  s.format = SparseFormat::kCoo;
  s.dense_shape = Shape{kRows, kInner};
  s.values = Tensor::from_vector<float>({2.0f, -1.0f, 0.5f}, Shape{3});
  s.indices = Tensor::from_vector<int64_t>({1, 4, 11}, Shape{3});
  return s;
}

ir::ValueInfo float_info(const std::string& name, std::vector<int64_t> dims) {
  std::vector<ir::Dim> d;
  for (int64_t v : dims) d.push_back(ir::Dim{v, ""});
  return {name, ir::TypeInfo::tensor(DataType::kFloat, d), ""};
}

// y = SparseToDenseMatMul(a, b) with `a` a sparse initializer; with
// `dense_reader`, an Identity also returns `a` itself as a graph output.
ir::Model matmul_model(bool dense_reader) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports = {{"", 17}, {"com.microsoft", 1}};
  m.graph.name = "sparse_weights";
  m.graph.inputs.push_back(float_info("b", {kInner, kCols}));
  m.graph.sparse_initializers.emplace("a", sparse_a());
  ir::Node mm = test::make_node("SparseToDenseMatMul", {"a", "b"}, {"y"});
  mm.domain = "com.microsoft";
  m.graph.nodes.push_back(mm);
  m.graph.outputs.push_back(float_info("y", {kRows, kCols}));
  if (dense_reader) {
    m.graph.nodes.push_back(test::make_node("Identity", {"a"}, {"a_dense"}));
    m.graph.outputs.push_back(float_info("a_dense", {kRows, kInner}));
  }
  return m;
}

ir::Model through_the_wire(const ir::Model& m) {
  const std::string bytes = onnx::serialize_model(m);
  return onnx::parse_model(bytes.data(), bytes.size());
}

// A dense reference: y = a_dense * b, element by element.
std::vector<float> reference(const std::vector<float>& b) {
  const Tensor a = sparse_a().to_dense("reference");
  std::vector<float> y(size_t(kRows * kCols), 0.0f);
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c)
      for (int64_t k = 0; k < kInner; ++k)
        y[size_t(r * kCols + c)] += a.data<float>()[r * kInner + k] * b[size_t(k * kCols + c)];
  return y;
}

std::vector<float> floats(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

const std::vector<float> kB = {1, 2, 3, 4, 5, 6, 7, 8};

}  // namespace

TEST(SparseInitializers, ReaderKeepsThemSparseAndWriterWritesThemBack) {
  const ir::Model read = through_the_wire(matmul_model(false));
  EXPECT_EQ(read.graph.initializers.count("a"), 0u);
  ASSERT_EQ(read.graph.sparse_initializers.count("a"), 1u);
  const SparseTensor& a = read.graph.sparse_initializers.at("a");
  EXPECT_EQ(a.format, SparseFormat::kCoo);
  EXPECT_EQ(a.dense_shape, (Shape{kRows, kInner}));
  EXPECT_EQ(a.values.num_elements(), 3);
  EXPECT_EQ(a.indices.data<int64_t>()[2], 11);
  // Written again, it is still a sparse initializer of the same values.
  const ir::Model again = through_the_wire(read);
  ASSERT_EQ(again.graph.sparse_initializers.count("a"), 1u);
  EXPECT_EQ(again.graph.sparse_initializers.at("a").values.data<float>()[1], -1.0f);
}

TEST(SparseInitializers, StaySparseForSparseToDenseMatMul) {
  auto s = Session::create_from_model(through_the_wire(matmul_model(false)));
  EXPECT_EQ(s->model().graph.sparse_initializers.count("a"), 1u);
  EXPECT_EQ(s->model().graph.initializers.count("a"), 0u);
  auto out = s->run({{"b", Tensor::from_vector<float>(kB, Shape{kInner, kCols})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{kRows, kCols}));
  EXPECT_EQ(floats(out[0]), reference(kB));
}

TEST(SparseInitializers, DensifiedWhenADenseInputReadsThem) {
  auto s = Session::create_from_model(through_the_wire(matmul_model(true)));
  EXPECT_EQ(s->model().graph.sparse_initializers.count("a"), 0u);
  auto out = s->run({{"b", Tensor::from_vector<float>(kB, Shape{kInner, kCols})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(floats(out[0]), reference(kB));
  const Tensor dense = sparse_a().to_dense("expected");
  EXPECT_EQ(floats(out[1]),
            std::vector<float>(dense.data<float>(), dense.data<float>() + dense.num_elements()));
}

TEST(SparseInitializers, GraphInputsAndSubgraphReadersGetThemDense) {
  ir::Model m = matmul_model(false);
  m.graph.inputs.push_back(float_info("a", {kRows, kInner}));  // overridable: fed dense
  runtime::densify_sparse_initializers(m.graph, "model");
  EXPECT_TRUE(m.graph.sparse_initializers.empty());
  ASSERT_EQ(m.graph.initializers.count("a"), 1u);
  EXPECT_EQ(m.graph.initializers.at("a").data<float>()[11], 0.5f);

  ir::Model sub = matmul_model(false);
  auto body = std::make_shared<ir::Graph>();
  body->nodes.push_back(test::make_node("Identity", {"a"}, {"out"}));
  body->outputs.push_back(float_info("out", {kRows, kInner}));
  ir::Attribute branch;
  branch.name = "then_branch";
  branch.type = ir::AttrType::kGraph;
  branch.g = body;
  sub.graph.nodes.push_back(test::make_node("If", {"cond"}, {"picked"}, {branch}));
  runtime::densify_sparse_initializers(sub.graph, "model");
  EXPECT_TRUE(sub.graph.sparse_initializers.empty());
  EXPECT_EQ(sub.graph.initializers.count("a"), 1u);
}
