// Models built in C++, serialized, parsed back and compared.
#include <gtest/gtest.h>

#include "onnx/model_reader.hpp"
#include "onnx/model_writer.hpp"
#include "onnx_test_util.hpp"

using namespace tessera;
using ir::AttrType;
using ir::Dim;
using ir::TypeInfo;

namespace {

ir::Attribute attr(const std::string& name, AttrType type) {
  ir::Attribute a;
  a.name = name;
  a.type = type;
  return a;
}

TypeInfo seq_of(TypeInfo inner) {
  TypeInfo t;
  t.kind = TypeInfo::Kind::kSequence;
  t.inner = std::make_shared<TypeInfo>(std::move(inner));
  return t;
}

std::shared_ptr<ir::Graph> small_graph(const std::string& name) {
  auto g = std::make_shared<ir::Graph>();
  g->name = name;
  ir::Node n;
  n.op_type = "Identity";
  n.name = name + "_id";
  n.inputs = {"outer_x"};
  n.outputs = {name + "_out"};
  g->nodes.push_back(n);
  g->outputs.push_back({name + "_out", TypeInfo::tensor(DataType::kFloat, std::vector<Dim>{}), ""});
  g->initializers.emplace(name + "_w", Tensor::from_vector<float>({1, 2}, {2}));
  return g;
}

ir::Model full_model() {
  ir::Model m;
  m.ir_version = 10;
  m.opset_imports = {{"", 21}, {"com.example", 3}};
  m.producer_name = "tessera-test";
  m.producer_version = "1.2";
  m.domain = "org.tessera";
  m.model_version = 42;
  m.doc_string = "a model";
  m.metadata_props = {{"author", "me"}, {"license", "MIT"}};

  ir::Graph& g = m.graph;
  g.name = "main";
  g.doc_string = "main graph";
  TypeInfo x =
      TypeInfo::tensor(DataType::kFloat, std::vector<Dim>{{std::nullopt, "N"}, {3, ""}, {}});
  x.denotation = "IMAGE";
  g.inputs.push_back({"x", x, "input doc"});
  g.inputs.push_back({"scalar", TypeInfo::tensor(DataType::kInt64, std::vector<Dim>{}), ""});
  g.inputs.push_back({"any_rank", TypeInfo::tensor(DataType::kBFloat16), ""});
  g.inputs.push_back({"seq", seq_of(TypeInfo::tensor(DataType::kInt64)), ""});
  TypeInfo map;
  map.kind = TypeInfo::Kind::kMap;
  map.elem_type = DataType::kString;
  map.inner = std::make_shared<TypeInfo>(TypeInfo::tensor(DataType::kFloat));
  g.inputs.push_back({"map", map, ""});
  TypeInfo opt;
  opt.kind = TypeInfo::Kind::kOptional;
  opt.inner = std::make_shared<TypeInfo>(seq_of(TypeInfo::tensor(DataType::kFloat16)));
  g.inputs.push_back({"opt", opt, ""});
  TypeInfo sparse;
  sparse.kind = TypeInfo::Kind::kSparseTensor;
  sparse.elem_type = DataType::kDouble;
  sparse.shape = std::vector<Dim>{{4, ""}};
  g.inputs.push_back({"sp", sparse, ""});
  g.outputs.push_back({"y", TypeInfo::tensor(DataType::kFloat), "out"});
  g.value_info.push_back({"t", TypeInfo::tensor(DataType::kFloat, std::vector<Dim>{{2, ""}}), ""});

  g.initializers.emplace("w", Tensor::from_vector<float>({1.5f, -2, 3, 4}, {2, 2}));
  g.initializers.emplace("names", Tensor::from_vector<std::string>({"a", "", "ccc"}, {3}));
  Tensor i4(DataType::kInt4, Shape{3});
  static_cast<uint8_t*>(i4.mutable_raw_data())[0] = 0x9f;
  static_cast<uint8_t*>(i4.mutable_raw_data())[1] = 0x07;
  g.initializers.emplace("i4", i4);
  g.initializers.emplace("empty", Tensor(DataType::kFloat, Shape{0, 3}));

  ir::Node n;
  n.name = "everything";
  n.op_type = "Everything";
  n.domain = "com.example";
  n.overload = "v2";
  n.doc_string = "node doc";
  n.inputs = {"x", "", "w"};
  n.outputs = {"t", ""};
  auto a = attr("f", AttrType::kFloat);
  a.f = 0.25f;
  a.doc_string = "attr doc";
  n.attributes.push_back(a);
  a = attr("i", AttrType::kInt);
  a.i = -7;
  n.attributes.push_back(a);
  a = attr("s", AttrType::kString);
  a.s = std::string("bytes\0here", 10);
  n.attributes.push_back(a);
  a = attr("t", AttrType::kTensor);
  a.t = Tensor::from_vector<int32_t>({1, -2, 3}, {3});
  n.attributes.push_back(a);
  a = attr("g", AttrType::kGraph);
  a.g = small_graph("then");
  n.attributes.push_back(a);
  a = attr("floats", AttrType::kFloats);
  a.floats = {1, 2.5f, -3};
  n.attributes.push_back(a);
  a = attr("ints", AttrType::kInts);
  a.ints = {1, -1, int64_t(1) << 40};
  n.attributes.push_back(a);
  a = attr("strings", AttrType::kStrings);
  a.strings = {"x", "", "zz"};
  n.attributes.push_back(a);
  a = attr("tensors", AttrType::kTensors);
  a.tensors = {Tensor::scalar<double>(2.0), Tensor::from_vector<uint8_t>({1, 2}, {2})};
  n.attributes.push_back(a);
  a = attr("graphs", AttrType::kGraphs);
  a.graphs = {small_graph("a"), small_graph("b")};
  n.attributes.push_back(a);
  a = attr("sparse", AttrType::kSparseTensor);
  a.t = Tensor::from_vector<float>({0, 0, 5, 0, 7, 0}, {2, 3});
  n.attributes.push_back(a);
  a = attr("sparses", AttrType::kSparseTensors);
  a.tensors = {Tensor::from_vector<int64_t>({0, 9}, {2}),
               Tensor::from_vector<std::string>({"", "q"}, {2})};
  n.attributes.push_back(a);
  a = attr("tp", AttrType::kTypeProto);
  a.tp = seq_of(TypeInfo::tensor(DataType::kUInt8, std::vector<Dim>{{1, ""}}));
  n.attributes.push_back(a);
  a = attr("tps", AttrType::kTypeProtos);
  a.type_protos = {TypeInfo::tensor(DataType::kFloat), map};
  n.attributes.push_back(a);
  g.nodes.push_back(n);

  ir::Node plain;
  plain.op_type = "Relu";
  plain.inputs = {"t"};
  plain.outputs = {"y"};
  g.nodes.push_back(plain);

  ir::Function fn;
  fn.name = "MyFn";
  fn.domain = "com.example";
  fn.overload = "ov";
  fn.doc_string = "function doc";
  fn.inputs = {"a", "b"};
  fn.outputs = {"c"};
  fn.attribute_names = {"alpha"};
  a = attr("beta", AttrType::kFloat);
  a.f = 0.5f;
  fn.attribute_defaults.push_back(a);
  fn.opset_imports = {{"", 21}};
  ir::Node body;
  body.op_type = "LeakyRelu";
  body.inputs = {"a"};
  body.outputs = {"c"};
  a = attr("alpha", AttrType::kFloat);
  a.ref_attr_name = "alpha";
  body.attributes.push_back(a);
  fn.nodes.push_back(body);
  fn.value_info.push_back({"c", TypeInfo::tensor(DataType::kFloat), ""});
  m.functions.push_back(fn);
  return m;
}

const ir::Attribute& get(const ir::Node& n, const std::string& name) {
  const ir::Attribute* a = n.attr(name);
  if (!a) throw std::runtime_error("missing attribute " + name);
  return *a;
}

template <typename T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

}  // namespace

TEST(OnnxRoundTrip, SerializeParseSerializeIsStable) {
  ir::Model m = full_model();
  std::string bytes = onnx::serialize_model(m);
  ir::Model back = onnx::parse_model(bytes.data(), bytes.size());
  EXPECT_EQ(onnx::serialize_model(back), bytes);
}

TEST(OnnxRoundTrip, ModelFields) {
  std::string bytes = onnx::serialize_model(full_model());
  ir::Model m = onnx::parse_model(bytes.data(), bytes.size());
  EXPECT_EQ(m.ir_version, 10);
  ASSERT_EQ(m.opset_imports.size(), 2u);
  EXPECT_EQ(m.opset(""), 21);
  EXPECT_EQ(m.opset("ai.onnx"), 21);
  EXPECT_EQ(m.opset("com.example"), 3);
  EXPECT_EQ(m.producer_name, "tessera-test");
  EXPECT_EQ(m.producer_version, "1.2");
  EXPECT_EQ(m.domain, "org.tessera");
  EXPECT_EQ(m.model_version, 42);
  EXPECT_EQ(m.doc_string, "a model");
  ASSERT_EQ(m.metadata_props.size(), 2u);
  EXPECT_EQ(m.metadata_props[1].first, "license");
  EXPECT_EQ(m.metadata_props[1].second, "MIT");
  EXPECT_EQ(m.graph.name, "main");
  EXPECT_EQ(m.graph.doc_string, "main graph");
}

TEST(OnnxRoundTrip, Types) {
  std::string bytes = onnx::serialize_model(full_model());
  ir::Graph g = onnx::parse_model(bytes.data(), bytes.size()).graph;
  ASSERT_EQ(g.inputs.size(), 7u);
  const TypeInfo& x = g.inputs[0].type;
  EXPECT_EQ(g.inputs[0].doc_string, "input doc");
  EXPECT_EQ(x.to_string(), "tensor(float)");
  EXPECT_EQ(x.shape_string(), "[N,3,?]");
  EXPECT_EQ(x.denotation, "IMAGE");
  EXPECT_FALSE((*x.shape)[0].is_known());
  EXPECT_EQ((*x.shape)[0].symbol, "N");
  EXPECT_EQ(*(*x.shape)[1].value, 3);
  EXPECT_TRUE((*x.shape)[2].symbol.empty());
  ASSERT_TRUE(g.inputs[1].type.shape.has_value());  // scalar: rank 0, not unknown
  EXPECT_TRUE(g.inputs[1].type.shape->empty());
  EXPECT_FALSE(g.inputs[2].type.shape.has_value());
  EXPECT_EQ(g.inputs[2].type.elem_type, DataType::kBFloat16);
  EXPECT_EQ(g.inputs[3].type.to_string(), "seq(tensor(int64))");
  EXPECT_EQ(g.inputs[4].type.to_string(), "map(string,tensor(float))");
  EXPECT_EQ(g.inputs[5].type.to_string(), "optional(seq(tensor(float16)))");
  EXPECT_EQ(g.inputs[6].type.to_string(), "sparse_tensor(double)");
  EXPECT_EQ(g.inputs[6].type.shape_string(), "[4]");
  EXPECT_EQ(g.value_info.at(0).type.shape_string(), "[2]");
}

TEST(OnnxRoundTrip, InitializersAndNodes) {
  std::string bytes = onnx::serialize_model(full_model());
  ir::Graph g = onnx::parse_model(bytes.data(), bytes.size()).graph;
  EXPECT_EQ(values<float>(g.initializers.at("w")), (std::vector<float>{1.5f, -2, 3, 4}));
  EXPECT_EQ(g.initializers.at("w").shape(), (Shape{2, 2}));
  EXPECT_EQ(values<std::string>(g.initializers.at("names")),
            (std::vector<std::string>{"a", "", "ccc"}));
  const Tensor& i4 = g.initializers.at("i4");
  EXPECT_EQ(i4.dtype(), DataType::kInt4);
  EXPECT_EQ(i4.element_as_int64(0), -1);
  EXPECT_EQ(i4.element_as_int64(1), -7);
  EXPECT_EQ(i4.element_as_int64(2), 7);
  EXPECT_EQ(g.initializers.at("empty").shape(), (Shape{0, 3}));

  ASSERT_EQ(g.nodes.size(), 2u);
  const ir::Node& n = g.nodes[0];
  EXPECT_EQ(n.name, "everything");
  EXPECT_EQ(n.domain, "com.example");
  EXPECT_EQ(n.overload, "v2");
  EXPECT_EQ(n.doc_string, "node doc");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"x", "", "w"}));
  EXPECT_EQ(n.outputs, (std::vector<std::string>{"t", ""}));
  EXPECT_EQ(get(n, "f").f, 0.25f);
  EXPECT_EQ(get(n, "f").doc_string, "attr doc");
  EXPECT_EQ(get(n, "i").i, -7);
  EXPECT_EQ(get(n, "s").s, std::string("bytes\0here", 10));
  EXPECT_EQ(values<int32_t>(get(n, "t").t), (std::vector<int32_t>{1, -2, 3}));
  const auto& sub = *get(n, "g").g;
  EXPECT_EQ(sub.name, "then");
  EXPECT_EQ(sub.nodes.at(0).inputs.at(0), "outer_x");
  EXPECT_EQ(values<float>(sub.initializers.at("then_w")), (std::vector<float>{1, 2}));
  EXPECT_EQ(get(n, "floats").floats, (std::vector<float>{1, 2.5f, -3}));
  EXPECT_EQ(get(n, "ints").ints, (std::vector<int64_t>{1, -1, int64_t(1) << 40}));
  EXPECT_EQ(get(n, "strings").strings, (std::vector<std::string>{"x", "", "zz"}));
  ASSERT_EQ(get(n, "tensors").tensors.size(), 2u);
  EXPECT_EQ(get(n, "tensors").tensors[0].data<double>()[0], 2.0);
  ASSERT_EQ(get(n, "graphs").graphs.size(), 2u);
  EXPECT_EQ(get(n, "graphs").graphs[1]->name, "b");
  EXPECT_EQ(get(n, "sparse").type, AttrType::kSparseTensor);
  EXPECT_EQ(values<float>(get(n, "sparse").t), (std::vector<float>{0, 0, 5, 0, 7, 0}));
  EXPECT_EQ(get(n, "sparse").t.shape(), (Shape{2, 3}));
  const auto& sps = get(n, "sparses").tensors;
  ASSERT_EQ(sps.size(), 2u);
  EXPECT_EQ(values<int64_t>(sps[0]), (std::vector<int64_t>{0, 9}));
  EXPECT_EQ(values<std::string>(sps[1]), (std::vector<std::string>{"", "q"}));
  EXPECT_EQ(get(n, "tp").tp.to_string(), "seq(tensor(uint8))");
  ASSERT_EQ(get(n, "tps").type_protos.size(), 2u);
  EXPECT_EQ(get(n, "tps").type_protos[1].to_string(), "map(string,tensor(float))");
}

TEST(OnnxRoundTrip, Functions) {
  std::string bytes = onnx::serialize_model(full_model());
  ir::Model m = onnx::parse_model(bytes.data(), bytes.size());
  ASSERT_EQ(m.functions.size(), 1u);
  const ir::Function& f = m.functions[0];
  EXPECT_EQ(f.name, "MyFn");
  EXPECT_EQ(f.domain, "com.example");
  EXPECT_EQ(f.overload, "ov");
  EXPECT_EQ(f.doc_string, "function doc");
  EXPECT_EQ(f.inputs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.outputs, (std::vector<std::string>{"c"}));
  EXPECT_EQ(f.attribute_names, (std::vector<std::string>{"alpha"}));
  ASSERT_EQ(f.attribute_defaults.size(), 1u);
  EXPECT_EQ(f.attribute_defaults[0].f, 0.5f);
  ASSERT_EQ(f.opset_imports.size(), 1u);
  EXPECT_EQ(f.opset_imports[0].version, 21);
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].attributes.at(0).ref_attr_name, "alpha");
  EXPECT_EQ(f.nodes[0].attributes.at(0).type, AttrType::kFloat);
  ASSERT_EQ(f.value_info.size(), 1u);
  EXPECT_EQ(f.value_info[0].name, "c");
}

TEST(OnnxRoundTrip, SaveAndLoadSetsPath) {
  test::TempDir dir;
  std::string path = dir.file("m.onnx");
  onnx::save_model(full_model(), path);
  ir::Model m = onnx::load_model(path);
  EXPECT_EQ(m.path, path);
  EXPECT_EQ(m.graph.nodes.size(), 2u);
}

TEST(OnnxRoundTrip, AttributeTypeInferredWhenMissing) {
  using test::Msg;
  // An old-style node whose attributes have no `type` field.
  Msg node;
  node.str(4, "Foo")
      .msg(5, Msg().str(1, "alpha").f32(2, 0.5f))
      .msg(5, Msg().str(1, "axes").varint(8, 1).varint(8, 2))
      .msg(5, Msg().str(1, "mode").str(4, "linear"))
      .msg(5, Msg().str(1, "k").varint(3, 4));
  Msg model;
  model.varint(1, 3).msg(7, Msg().msg(1, node));
  ir::Model m = onnx::parse_model(model.bytes.data(), model.bytes.size());
  const ir::Node& n = m.graph.nodes.at(0);
  EXPECT_EQ(get(n, "alpha").type, AttrType::kFloat);
  EXPECT_EQ(get(n, "axes").type, AttrType::kInts);
  EXPECT_EQ(get(n, "axes").ints, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(get(n, "mode").type, AttrType::kString);
  EXPECT_EQ(get(n, "k").type, AttrType::kInt);
}

TEST(OnnxRoundTrip, SparseInitializerIsKeptSparse) {
  using test::Msg;
  std::vector<float> vals = {3, 4};
  Msg value_msg;
  value_msg.varint(1, 2).varint(2, 1).str(8, "sp").packed_raw(4, vals.data(), 8);
  Msg indices;  // [NNZ, rank] form
  indices.varint(1, 2).varint(1, 2).varint(2, 7).packed(7, std::vector<int64_t>{0, 1, 1, 2});
  Msg sparse;
  sparse.msg(1, value_msg).msg(2, indices).varint(3, 2).varint(3, 3);
  Msg model;
  model.varint(1, 8).msg(7, Msg().msg(15, sparse));
  ir::Model m = onnx::parse_model(model.bytes.data(), model.bytes.size());
  EXPECT_EQ(m.graph.initializers.count("sp"), 0u);
  const SparseTensor& s = m.graph.sparse_initializers.at("sp");
  EXPECT_EQ(s.format, SparseFormat::kCoo);
  EXPECT_EQ(s.indices.shape(), (Shape{2, 2}));  // the coordinates, as written
  const Tensor t = s.to_dense("sp");
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(t), (std::vector<float>{0, 3, 0, 0, 0, 4}));
}
