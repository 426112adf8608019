// compute_half_in_float: float16 models on the CPU become float32 ones inside
// (the convolutions the float32 fused and blocked ones, the weights float32),
// with float16 graph inputs and outputs, Casts only at the edges of what an
// op outside the allowlist or an overridable initializer keeps in float16,
// and nothing changed when the session opts out.
#include "ep/provider_registry.hpp"
#include "linalg/nchwc.hpp"
#include "ops/graph_types.hpp"
#include "optimizer_test_util.hpp"
#include "runtime/provider_transforms.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

std::map<std::string, std::string> half_kept() {
  std::map<std::string, std::string> c;
  c.emplace(std::string("session.cpu_half_as_float"), std::string(1, '0'));
  return c;
}

ir::Model half_model(int64_t opset, const std::vector<std::pair<std::string, Shape>>& inputs,
                     const std::vector<std::string>& outputs, DataType type = DataType::kFloat16) {
  ir::Model m = float_model(opset, inputs, outputs);
  for (auto& v : m.graph.inputs) v.type.elem_type = type;
  for (auto& v : m.graph.outputs) v.type.elem_type = type;
  return m;
}

Tensor half_weights(Shape shape, uint64_t seed, float range, DataType type = DataType::kFloat16) {
  return to_half(random_floats(std::move(shape), seed, -range, range), type);
}

Tensor widened(const Tensor& h) {
  Tensor f(DataType::kFloat, h.shape());
  for (int64_t i = 0; i < h.num_elements(); ++i)
    f.mutable_data<float>()[i] = float(h.element_as_double(i));
  return f;
}

// The same model in float32: weights widened, float inputs and outputs.
ir::Model float_twin(ir::Model m) {
  for (auto& [name, t] : m.graph.initializers) t = widened(t);
  for (auto& v : m.graph.inputs) v.type.elem_type = DataType::kFloat;
  for (auto& v : m.graph.outputs) v.type.elem_type = DataType::kFloat;
  return m;
}

// The model's outputs on the same random inputs, at `level`: values of
// type `values` (the inputs' own type when undefined).
std::vector<Tensor> run_half(const ir::Model& m, const std::map<std::string, std::string>& config,
                             GraphOptimizationLevel level = GraphOptimizationLevel::kAll,
                             DataType values = DataType::kUndefined) {
  SessionOptions o;
  o.graph_optimization_level = level;
  o.intra_op_num_threads = 1;
  for (const auto& [k, v] : config) o.config_entries[k] = v;
  auto s = Session::create_from_model(m, o);
  std::vector<std::pair<std::string, Value>> feeds;
  uint64_t seed = 11;
  for (const auto& in : m.graph.inputs) {
    if (m.graph.initializers.count(in.name)) continue;
    std::vector<int64_t> dims;
    for (const auto& d : *in.type.shape) dims.push_back(*d.value);
    Tensor x = to_half(random_floats(Shape(dims), seed++, -2, 2),
                       values == DataType::kUndefined ? in.type.elem_type : values);
    feeds.emplace_back(in.name, Value(in.type.elem_type == DataType::kFloat ? widened(x) : x));
  }
  std::vector<Tensor> out;
  for (auto& v : s->run(feeds)) out.push_back(v.tensor());
  return out;
}

void expect_close(const std::vector<Tensor>& kept, const std::vector<Tensor>& converted,
                  float tol) {
  ASSERT_EQ(kept.size(), converted.size());
  for (size_t k = 0; k < kept.size(); ++k) {
    ASSERT_EQ(kept[k].shape(), converted[k].shape()) << "output " << k;
    for (int64_t i = 0; i < kept[k].num_elements(); ++i) {
      const double x = kept[k].element_as_double(i), y = converted[k].element_as_double(i);
      ASSERT_NEAR(x, y, tol * (1 + std::abs(x))) << "output " << k << " element " << i;
    }
  }
}

// Outputs in the half type and within its rounding of the node-by-node ones.
void expect_half_outputs_match(const ir::Model& m, float tol) {
  auto converted = run_half(m, {});
  for (const auto& t : converted) EXPECT_EQ(t.dtype(), DataType::kFloat16);
  expect_close(run_half(m, half_kept()), converted, tol);
}

bool is_half(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }

// The nodes that read or make a float16 value, by op type.
std::multiset<std::string> half_nodes(const ir::Model& m) {
  ops::ValueTypes types;
  ops::infer_graph_types(m, m.graph, types);
  auto half = [&](const std::string& v) {
    auto it = v.empty() ? types.end() : types.find(v);
    return it != types.end() && it->second.is_tensor() && is_half(it->second.elem_type);
  };
  std::multiset<std::string> out;
  for (const auto& n : m.graph.nodes) {
    bool any = false;
    for (const auto& v : n.inputs) any |= half(v);
    for (const auto& v : n.outputs) any |= half(v);
    if (any) out.insert(n.op_type);
  }
  return out;
}

const ir::Node* producer(const ir::Model& m, const std::string& v) {
  for (const auto& n : m.graph.nodes)
    for (const auto& o : n.outputs)
      if (o == v) return &n;
  return nullptr;
}

// x[1, 16, 12, 12] -> Conv 3x3 (16 -> 32) -> Relu -> Conv 1x1 (32 -> 16) -> y.
ir::Model conv_relu_conv(DataType type = DataType::kFloat16) {
  ir::Model m = half_model(17, {{"x", Shape{1, 16, 12, 12}}}, {"y"}, type);
  auto& in = m.graph.initializers;
  in["w1"] = half_weights(Shape{32, 16, 3, 3}, 1, 0.2f, type);
  in["b1"] = half_weights(Shape{32}, 2, 0.5f, type);
  in["w2"] = half_weights(Shape{16, 32, 1, 1}, 3, 0.3f, type);
  in["b2"] = half_weights(Shape{16}, 4, 0.5f, type);
  auto& n = m.graph.nodes;
  n.push_back(op("Conv", {"x", "w1", "b1"}, {"c1"}, {attr_ints("pads", {1, 1, 1, 1})}));
  n.push_back(op("Relu", {"c1"}, {"r1"}));
  n.push_back(op("Conv", {"r1", "w2", "b2"}, {"y"}));
  return m;
}

TEST(HalfToFloat, ConvolutionsBecomeTheFloatFusedOnes) {
  for (DataType type : {DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(data_type_name(type));
    const ir::Model m = conv_relu_conv(type);
    ir::Model out = m;
    optimize_as_cpu_session(out);
    EXPECT_EQ(count_ops(out, "Conv"), 0u);
    EXPECT_EQ(count_ops(out, "Relu"), 0u);  // fused into the first convolution
    if (linalg::nchwc::fast_path_available())
      EXPECT_EQ(count_ops(out, "NchwcConv"), 2u);
    else
      EXPECT_EQ(count_ops(out, "FusedConv"), 2u);
    // Only the edges read or make the half type: one Cast in, one out.
    EXPECT_EQ(half_nodes(out), (std::multiset<std::string>{"Cast", "Cast"}));
    for (const auto& [name, t] : out.graph.initializers) EXPECT_FALSE(is_half(t.dtype())) << name;
    ASSERT_EQ(out.graph.inputs.size(), 1u);
    EXPECT_EQ(out.graph.inputs[0].name, "x");
    EXPECT_EQ(out.graph.inputs[0].type.elem_type, type);
    ASSERT_EQ(out.graph.outputs.size(), 1u);
    EXPECT_EQ(out.graph.outputs[0].name, "y");
    EXPECT_EQ(out.graph.outputs[0].type.elem_type, type);
    if (type == DataType::kFloat16) {
      expect_half_outputs_match(m, 2e-2f);
    } else {
      // Against its float twin, rounded once at the end (the CPU has no
      // bfloat16 Conv to run the model node by node).
      expect_close(run_half(float_twin(m), {}, GraphOptimizationLevel::kAll, type),
                   run_half(out, {}, GraphOptimizationLevel::kDisableAll), 2e-2f);
    }
  }
}

// A bfloat16 Conv at opset 17 has no kernel in its own type (Conv takes
// bfloat16 from opset 22): the CPU provider claims it for the float
// computation, at the top level and below it, so a session runs the model.
TEST(HalfToFloat, SessionsRunBfloat16ConvolutionsNoKernelTakes) {
  const ir::Model m = conv_relu_conv(DataType::kBFloat16);
  const auto want = run_half(float_twin(m), {}, GraphOptimizationLevel::kAll, DataType::kBFloat16);
  for (auto level : {GraphOptimizationLevel::kAll, GraphOptimizationLevel::kBasic}) {
    const auto got = run_half(m, {}, level);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].dtype(), DataType::kBFloat16);
    expect_close(want, got, 2e-2f);
  }
  // Kept in bfloat16 on request, it cannot run: the CPU provider declines
  // the node (it does not claim it and then fail), and the error names the
  // node and the setting.
  try {
    run_half(m, half_kept());
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Conv"), std::string::npos) << what;
    EXPECT_NE(what.find("session.cpu_half_as_float is off"), std::string::npos) << what;
    EXPECT_EQ(what.find("claimed"), std::string::npos) << what;
  }
}

// The claim itself, as the partitioner asks for it: with the setting on (or
// absent) the CPU provider claims the bfloat16 Conv nodes; with it off it
// declines them, saying why.
TEST(HalfToFloat, CpuClaimSeesTheSessionConfig) {
  const ir::Model m = conv_relu_conv(DataType::kBFloat16);
  ops::ValueTypes types;
  ops::infer_graph_types(m, m.graph, types);
  auto cpu = ep::ProviderRegistry::instance().find("CPUExecutionProvider")->create({});
  ep::GraphView view;
  view.model = &m;
  view.graph = &m.graph;
  view.value_types = &types;
  for (size_t i = 0; i < m.graph.nodes.size(); ++i) view.candidates.push_back(i);
  auto declined_convs = [&](const std::map<std::string, std::string>* config) {
    view.config = config;
    size_t n = 0;
    for (const ep::Decline& d : cpu->get_capability(view).declined)
      if (m.graph.nodes[d.node].op_type == "Conv") {
        ++n;
        EXPECT_NE(d.reason.find("session.cpu_half_as_float is off"), std::string::npos)
            << d.reason;
      }
    return n;
  };
  const std::map<std::string, std::string> on = {{"session.cpu_half_as_float", "1"}};
  const std::map<std::string, std::string> off = half_kept();
  EXPECT_EQ(declined_convs(nullptr), 0u);
  EXPECT_EQ(declined_convs(&on), 0u);
  EXPECT_EQ(declined_convs(&off), 2u);
}

// x[5, 8] -> MatMul(w) + b -> LayerNormalization -> n; EyeLike(n), an op whose
// output type an attribute may set, stays float16 between Casts; Add(n, e)
// -> MatMul(w2) -> Mul by "temp", an initializer the caller may override ->
// Softmax -> y.
ir::Model transformer_block() {
  ir::Model m = half_model(17, {{"x", Shape{5, 8}}}, {"y"});
  auto& in = m.graph.initializers;
  in["w"] = half_weights(Shape{8, 8}, 5, 0.5f);
  in["b"] = half_weights(Shape{8}, 6, 0.5f);
  in["scale"] = half_weights(Shape{8}, 7, 1.f);
  in["bias"] = half_weights(Shape{8}, 8, 0.5f);
  in["w2"] = half_weights(Shape{8, 8}, 9, 0.5f);
  in["temp"] = to_half(Tensor::scalar<float>(0.75f), DataType::kFloat16);
  m.graph.inputs.push_back(
      {"temp", ir::TypeInfo::tensor(DataType::kFloat16, std::vector<ir::Dim>{}), ""});
  auto& n = m.graph.nodes;
  n.push_back(op("MatMul", {"x", "w"}, {"p"}));
  n.push_back(op("Add", {"p", "b"}, {"h"}));
  n.push_back(op("LayerNormalization", {"h", "scale", "bias"}, {"ln"}, {attr_i("axis", -1)}));
  n.push_back(op("EyeLike", {"ln"}, {"e"}));
  n.push_back(op("Add", {"ln", "e"}, {"s"}));
  n.push_back(op("MatMul", {"s", "w2"}, {"q"}));
  n.push_back(op("Mul", {"q", "temp"}, {"qt"}));
  n.push_back(op("Softmax", {"qt"}, {"y"}, {attr_i("axis", -1)}));
  return m;
}

TEST(HalfToFloat, TransformerBlockKeepsHalfOnlyWhereItMust) {
  const ir::Model m = transformer_block();
  ir::Model out = m;
  optimize_as_cpu_session(out);
  // Casts: x in, EyeLike's input back to float16 and its output to float,
  // temp in, y out.
  EXPECT_EQ(half_nodes(out),
            (std::multiset<std::string>{"Cast", "Cast", "Cast", "Cast", "Cast", "EyeLike"}));
  EXPECT_EQ(count_ops(out, "LayerNormalization") + count_ops(out, "SkipLayerNormalization"), 1u);
  for (const auto& n : out.graph.nodes) {
    if (n.op_type != "EyeLike") continue;
    const ir::Node* in = producer(out, n.inputs[0]);
    ASSERT_NE(in, nullptr);
    EXPECT_EQ(in->op_type, "Cast");
  }
  // The overridable initializer stays what the caller may replace.
  ASSERT_TRUE(out.graph.initializers.count("temp"));
  EXPECT_EQ(out.graph.initializers.at("temp").dtype(), DataType::kFloat16);
  ASSERT_NE(out.graph.find_input("temp"), nullptr);
  EXPECT_EQ(out.graph.find_input("temp")->type.elem_type, DataType::kFloat16);
  for (const auto& [name, t] : out.graph.initializers)
    EXPECT_TRUE(name == "temp" || t.dtype() == DataType::kFloat) << name;
  EXPECT_EQ(out.graph.outputs[0].type.elem_type, DataType::kFloat16);
  expect_half_outputs_match(m, 2e-2f);
}

// A part of a model, as a session with other providers hands it over:
// values read outside it are its graph outputs and keep their names and
// float16 type, and a weight also read outside stays float16 there.
TEST(HalfToFloat, PartKeepsItsBoundary) {
  ir::Model m = transformer_block();
  m.graph.nodes.back().inputs[0] = "qb";
  m.graph.nodes.insert(m.graph.nodes.end() - 1, op("Add", {"qt", "b"}, {"qb"}));
  ops::ValueTypes types;
  ops::infer_graph_types(m, m.graph, types);
  const std::vector<size_t> nodes = {0, 1, 2};  // MatMul, Add, LayerNormalization
  ir::Model part = runtime::extract_part(m, nodes, &types);
  std::map<std::string, std::string> config;
  ep::TransformOptions o;
  o.level = GraphOptimizationLevel::kAll;
  o.config = &config;
  cpu::transform_for_cpu(part, o);
  EXPECT_EQ(half_nodes(part), (std::multiset<std::string>{"Cast", "Cast"}));
  ASSERT_EQ(part.graph.outputs.size(), 1u);
  EXPECT_EQ(part.graph.outputs[0].name, "ln");
  EXPECT_EQ(part.graph.outputs[0].type.elem_type, DataType::kFloat16);
  EXPECT_FALSE(part.graph.initializers.count("b"));  // its float copy is there instead

  ir::Model spliced = m;
  runtime::splice_part(spliced, nodes, std::move(part));
  ASSERT_TRUE(spliced.graph.initializers.count("b"));
  EXPECT_EQ(spliced.graph.initializers.at("b").dtype(), DataType::kFloat16);
  EXPECT_FALSE(spliced.graph.initializers.count("w"));  // read by the part only
  expect_close(run_half(m, {}, GraphOptimizationLevel::kDisableAll),
               run_half(spliced, {}, GraphOptimizationLevel::kDisableAll), 2e-2f);
}

// With "session.cpu_half_as_float" = "0" the float16 nodes stay float16 (and
// without it they do not).
TEST(HalfToFloat, SessionOptionKeepsHalfNodes) {
  ir::Model kept = conv_relu_conv();
  optimize_as_cpu_session(kept, GraphOptimizationLevel::kAll, half_kept());
  EXPECT_EQ(count_ops(kept, "Cast"), 0u);
  for (const auto& [name, t] : kept.graph.initializers)
    EXPECT_EQ(t.dtype(), DataType::kFloat16) << name;
  EXPECT_EQ(half_nodes(kept).size(), kept.graph.nodes.size());

  ir::Model converted = conv_relu_conv();
  optimize_as_cpu_session(converted);
  EXPECT_EQ(count_ops(converted, "Cast"), 2u);
}

}  // namespace
