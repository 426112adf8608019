// The model editor table and the graph-introspection entries: a model built
// in memory runs, and reading it back gives what was built (names, types,
// shapes, producers, consumers, attributes, subgraphs, initializers).
#include <cstring>
#include <string>
#include <vector>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

const OrtModelEditorApi* editor() { return api()->GetModelEditorApi(); }

OrtTypeInfo* tensor_type(ONNXTensorElementDataType t, const std::vector<int64_t>& dims) {
  OrtTensorTypeAndShapeInfo* info = nullptr;
  EXPECT_EQ(result(api()->CreateTensorTypeAndShapeInfo(&info)).first, ORT_OK);
  EXPECT_EQ(result(api()->SetTensorElementType(info, t)).first, ORT_OK);
  EXPECT_EQ(result(api()->SetDimensions(info, dims.data(), dims.size())).first, ORT_OK);
  OrtTypeInfo* type = nullptr;
  EXPECT_EQ(result(editor()->CreateTensorTypeInfo(info, &type)).first, ORT_OK);
  api()->ReleaseTensorTypeAndShapeInfo(info);
  return type;
}

OrtValueInfo* value_info(const char* name, ONNXTensorElementDataType t,
                         const std::vector<int64_t>& dims) {
  OrtTypeInfo* type = tensor_type(t, dims);
  OrtValueInfo* v = nullptr;
  EXPECT_EQ(result(editor()->CreateValueInfo(name, type, &v)).first, ORT_OK);
  api()->ReleaseTypeInfo(type);
  return v;
}

OrtNode* node(const char* op, const char* name, std::vector<const char*> in,
              std::vector<const char*> out, std::vector<OrtOpAttr*> attrs = {}) {
  OrtNode* n = nullptr;
  auto r = result(editor()->CreateNode(op, "", name, in.data(), in.size(), out.data(), out.size(),
                                       attrs.data(), attrs.size(), &n));
  EXPECT_EQ(r.first, ORT_OK) << r.second;
  return n;
}

void set_io(OrtGraph* g, std::vector<OrtValueInfo*> in, std::vector<OrtValueInfo*> out) {
  EXPECT_EQ(result(editor()->SetGraphInputs(g, in.data(), in.size())).first, ORT_OK);
  EXPECT_EQ(result(editor()->SetGraphOutputs(g, out.data(), out.size())).first, ORT_OK);
}

OrtModel* model_of(OrtGraph* g, int opset = 17) {
  const char* domains[] = {""};
  const int versions[] = {opset};
  OrtModel* m = nullptr;
  EXPECT_EQ(result(editor()->CreateModel(domains, versions, 1, &m)).first, ORT_OK);
  EXPECT_EQ(result(editor()->AddGraphToModel(m, g)).first, ORT_OK);
  return m;
}

std::string name_of(const OrtValueInfo* v) {
  const char* s = nullptr;
  EXPECT_EQ(result(api()->GetValueInfoName(v, &s)).first, ORT_OK);
  return s ? s : "<null>";
}

std::string op_of(const OrtNode* n) {
  const char* s = nullptr;
  EXPECT_EQ(result(api()->Node_GetOperatorType(n, &s)).first, ORT_OK);
  return s ? s : "<null>";
}

#define EXPECT_CAPI_OK(expr) EXPECT_EQ(capi_test::result(expr).first, ORT_OK) << #expr

// Y = (X + W) * B, W an initializer the graph copies, B one over the
// application's memory; S = Transpose(Y, perm [1,0]).
struct AddMul {
  std::vector<float> w{1, 2, 3, 4, 5, 6};
  std::vector<float> b = std::vector<float>(6, 2.0f);  // kept by the caller while the model lives
  OrtGraph* graph = nullptr;
  OrtModel* model = nullptr;

  AddMul() {
    EXPECT_CAPI_OK(editor()->CreateGraph(&graph));
    set_io(graph, {value_info("X", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2, 3})},
           {value_info("Y", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2, 3}),
            value_info("S", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {3, 2})});
    EXPECT_CAPI_OK(editor()->AddInitializerToGraph(graph, "W", float_tensor(w, {2, 3}), false));
    EXPECT_CAPI_OK(editor()->AddInitializerToGraph(graph, "B", float_tensor(b, {2, 3}), true));
    EXPECT_CAPI_OK(editor()->AddNodeToGraph(graph, node("Add", "add", {"X", "W"}, {"Z"})));
    EXPECT_CAPI_OK(editor()->AddNodeToGraph(graph, node("Mul", "mul", {"Z", "B"}, {"Y"})));
    const int64_t perm[] = {1, 0};
    OrtOpAttr* attr = nullptr;
    EXPECT_CAPI_OK(api()->CreateOpAttr("perm", perm, 2, ORT_OP_ATTR_INTS, &attr));
    EXPECT_CAPI_OK(editor()->AddNodeToGraph(graph, node("Transpose", "t", {"Y"}, {"S"}, {attr})));
    model = model_of(graph);
  }
  ~AddMul() { api()->ReleaseModel(model); }
};

std::vector<const OrtNode*> nodes_of(const OrtGraph* g) {
  size_t n = 0;
  EXPECT_EQ(result(api()->Graph_GetNumNodes(g, &n)).first, ORT_OK);
  std::vector<const OrtNode*> out(n);
  EXPECT_EQ(result(api()->Graph_GetNodes(g, out.data(), n)).first, ORT_OK);
  return out;
}

}  // namespace

TEST(CApiModelEditor, TheTableIsServedWithItsTwentyEntries) {
  ASSERT_NE(editor(), nullptr);
  EXPECT_EQ(sizeof(OrtModelEditorApi) / sizeof(void*), 20u);  // the entries of API version 22
  const auto* slots = reinterpret_cast<void* const*>(editor());
  for (size_t i = 0; i < 20; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST(CApiModelEditor, AnEditorSessionExtendsALoadedModel) {
  OrtSession* session = nullptr;
  CAPI_OK(editor()->CreateModelEditorSession(env(), model_path("add_mul.onnx").c_str(), nullptr,
                                             &session));
  int opset = 0;
  CAPI_OK(editor()->SessionGetOpsetForDomain(session, "", &opset));
  EXPECT_GT(opset, 0);
  // Not runnable before it is finalized.
  size_t n = 0;
  auto r = result(api()->SessionGetInputCount(session, &n));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_NE(r.second.find("FinalizeModelEditorSession has not finished"), std::string::npos)
      << r.second;
  // diff = sum - product, the only output now; the inputs stay x and y.
  OrtGraph* g = nullptr;
  CAPI_OK(editor()->CreateGraph(&g));
  set_io(g, {}, {value_info("diff", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {-1, 3})});
  CAPI_OK(editor()->AddNodeToGraph(g, node("Sub", "sub", {"sum", "product"}, {"diff"})));
  OrtModel* m = model_of(g, opset);
  CAPI_OK(editor()->ApplyModelToModelEditorSession(session, m));
  api()->ReleaseModel(m);
  CAPI_OK(editor()->FinalizeModelEditorSession(session, nullptr, nullptr));
  CAPI_OK(api()->SessionGetInputCount(session, &n));
  EXPECT_EQ(n, 2u);
  CAPI_OK(api()->SessionGetOutputCount(session, &n));
  EXPECT_EQ(n, 1u);
  std::vector<float> x{1, 2, 3}, y{4, 5, 6};
  OrtValue* xv = float_tensor(x, {1, 3});
  OrtValue* yv = float_tensor(y, {1, 3});
  const char* in_names[] = {"x", "y"};
  const OrtValue* ins[] = {xv, yv};
  const char* out_names[] = {"diff"};
  OrtValue* out = nullptr;
  CAPI_OK(api()->Run(session, nullptr, in_names, ins, 2, out_names, 1, &out));
  EXPECT_EQ(floats(out), (std::vector<float>{1, -3, -9}));
  // Finished: it cannot be finalized or changed again.
  r = result(editor()->FinalizeModelEditorSession(session, nullptr, nullptr));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("FinalizeModelEditorSession"), std::string::npos) << r.second;
  api()->ReleaseValue(out);
  api()->ReleaseValue(xv);
  api()->ReleaseValue(yv);
  api()->ReleaseSession(session);
}

TEST(CApiModelEditor, ApplyingAConflictingModelChangesNothing) {
  OrtSession* session = nullptr;
  CAPI_OK(editor()->CreateModelEditorSession(env(), model_path("add_mul.onnx").c_str(), nullptr,
                                             &session));
  int opset = 0;
  CAPI_OK(editor()->SessionGetOpsetForDomain(session, "", &opset));
  OrtGraph* g = nullptr;
  CAPI_OK(editor()->CreateGraph(&g));
  set_io(g, {}, {value_info("diff", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {-1, 3})});
  CAPI_OK(editor()->AddNodeToGraph(g, node("Sub", "sub", {"sum", "product"}, {"diff"})));
  OrtModel* m = model_of(g, opset + 1);
  auto r = result(editor()->ApplyModelToModelEditorSession(session, m));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("ApplyModelToModelEditorSession"), std::string::npos) << r.second;
  api()->ReleaseModel(m);
  // The loaded model is unchanged: both outputs remain. (Finalized with a
  // prepacked weights container, as CreateSessionWithPrepackedWeightsContainer takes.)
  OrtPrepackedWeightsContainer* container = nullptr;
  CAPI_OK(api()->CreatePrepackedWeightsContainer(&container));
  CAPI_OK(editor()->FinalizeModelEditorSession(session, nullptr, container));
  api()->ReleasePrepackedWeightsContainer(container);
  size_t n = 0;
  CAPI_OK(api()->SessionGetOutputCount(session, &n));
  EXPECT_EQ(n, 2u);
  api()->ReleaseSession(session);
}

TEST(CApiModelEditor, ABuiltModelRuns) {
  AddMul m;
  OrtSession* session = nullptr;
  CAPI_OK(editor()->CreateSessionFromModel(env(), m.model, nullptr, &session));
  // W was copied when added: changing the caller's buffer now changes nothing.
  m.w.assign(6, 100.0f);
  std::vector<float> x{10, 20, 30, 40, 50, 60};
  OrtValue* in = float_tensor(x, {2, 3});
  const char* in_names[] = {"X"};
  const char* out_names[] = {"Y", "S"};
  OrtValue* outs[2] = {nullptr, nullptr};
  CAPI_OK(api()->Run(session, nullptr, in_names, &in, 1, out_names, 2, outs));
  EXPECT_EQ(floats(outs[0]), (std::vector<float>{22, 44, 66, 88, 110, 132}));
  EXPECT_EQ(floats(outs[1]), (std::vector<float>{22, 88, 44, 110, 66, 132}));
  int opset = 0;
  CAPI_OK(editor()->SessionGetOpsetForDomain(session, "", &opset));
  EXPECT_EQ(opset, 17);
  auto r = result(editor()->SessionGetOpsetForDomain(session, "no.such.domain", &opset));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_NE(r.second.find("no.such.domain"), std::string::npos) << r.second;
  for (OrtValue* v : outs) api()->ReleaseValue(v);
  api()->ReleaseValue(in);
  api()->ReleaseSession(session);
}

TEST(CApiModelEditor, AnInvalidModelFailsAtSessionCreationNamingTheNode) {
  OrtGraph* g = nullptr;
  CAPI_OK(editor()->CreateGraph(&g));
  set_io(g, {value_info("X", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2})},
         {value_info("Y", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2})});
  CAPI_OK(editor()->AddNodeToGraph(g, node("NoSuchOp", "weird", {"X"}, {"Y"})));
  OrtModel* m = model_of(g);
  OrtSession* s = nullptr;
  auto r = result(editor()->CreateSessionFromModel(env(), m, nullptr, &s));
  EXPECT_NE(r.first, ORT_OK);
  EXPECT_NE(r.second.find("NoSuchOp"), std::string::npos) << r.second;
  EXPECT_EQ(s, nullptr);
  api()->ReleaseModel(m);
}

TEST(CApiGraphIntrospection, InputsOutputsAndTheirTypes) {
  AddMul m;
  size_t n = 0;
  CAPI_OK(api()->Graph_GetNumInputs(m.graph, &n));
  ASSERT_EQ(n, 1u);
  const OrtValueInfo* x = nullptr;
  CAPI_OK(api()->Graph_GetInputs(m.graph, &x, 1));
  EXPECT_EQ(name_of(x), "X");
  const OrtTypeInfo* type = nullptr;
  CAPI_OK(api()->GetValueInfoTypeInfo(x, &type));
  const OrtTensorTypeAndShapeInfo* info = nullptr;
  CAPI_OK(api()->CastTypeInfoToTensorInfo(type, &info));
  ONNXTensorElementDataType et{};
  CAPI_OK(api()->GetTensorElementType(info, &et));
  EXPECT_EQ(et, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  int64_t dims[2] = {0, 0};
  CAPI_OK(api()->GetDimensions(info, dims, 2));
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 3);
  bool flag = false;
  CAPI_OK(api()->ValueInfo_IsRequiredGraphInput(x, &flag));
  EXPECT_TRUE(flag);
  CAPI_OK(api()->ValueInfo_IsGraphOutput(x, &flag));
  EXPECT_FALSE(flag);
  CAPI_OK(api()->Graph_GetNumOutputs(m.graph, &n));
  ASSERT_EQ(n, 2u);
  const OrtValueInfo* outs[2] = {};
  CAPI_OK(api()->Graph_GetOutputs(m.graph, outs, 2));
  EXPECT_EQ(name_of(outs[0]), "Y");
  EXPECT_EQ(name_of(outs[1]), "S");
  CAPI_OK(api()->ValueInfo_IsGraphOutput(outs[1], &flag));
  EXPECT_TRUE(flag);
  // The same value, asked for twice, is one handle.
  const OrtValueInfo* again = nullptr;
  CAPI_OK(api()->Graph_GetInputs(m.graph, &again, 1));
  EXPECT_EQ(again, x);
}

TEST(CApiGraphIntrospection, ProducersConsumersAndNodes) {
  AddMul m;
  auto nodes = nodes_of(m.graph);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(op_of(nodes[0]), "Add");
  EXPECT_EQ(op_of(nodes[2]), "Transpose");
  size_t id = 9;
  CAPI_OK(api()->Node_GetId(nodes[1], &id));
  EXPECT_EQ(id, 1u);
  const OrtGraph* owner = nullptr;
  CAPI_OK(api()->Node_GetGraph(nodes[1], &owner));
  EXPECT_EQ(owner, m.graph);
  size_t n = 0;
  CAPI_OK(api()->Node_GetNumOutputs(nodes[0], &n));
  ASSERT_EQ(n, 1u);
  const OrtValueInfo* z = nullptr;
  CAPI_OK(api()->Node_GetOutputs(nodes[0], &z, 1));
  EXPECT_EQ(name_of(z), "Z");
  const OrtNode* producer = nullptr;
  size_t index = 7;
  CAPI_OK(api()->ValueInfo_GetValueProducer(z, &producer, &index));
  EXPECT_EQ(producer, nodes[0]);
  EXPECT_EQ(index, 0u);
  CAPI_OK(api()->ValueInfo_GetValueNumConsumers(z, &n));
  ASSERT_EQ(n, 1u);
  const OrtNode* consumer = nullptr;
  int64_t position = -5;
  CAPI_OK(api()->ValueInfo_GetValueConsumers(z, &consumer, &position, 1));
  EXPECT_EQ(consumer, nodes[1]);
  EXPECT_EQ(position, 0);
  // A graph input has no producer.
  const OrtValueInfo* ins[2] = {};
  CAPI_OK(api()->Node_GetInputs(nodes[0], ins, 2));
  EXPECT_EQ(name_of(ins[0]), "X");
  CAPI_OK(api()->ValueInfo_GetValueProducer(ins[0], &producer, nullptr));
  EXPECT_EQ(producer, nullptr);
  // Opsets and IR version come from the model.
  CAPI_OK(api()->Graph_GetNumOperatorSets(m.graph, &n));
  ASSERT_EQ(n, 1u);
  const char* domain = nullptr;
  int64_t version = 0;
  CAPI_OK(api()->Graph_GetOperatorSets(m.graph, &domain, &version, 1));
  EXPECT_STREQ(domain, "");
  EXPECT_EQ(version, 17);
  int64_t ir = 0;
  CAPI_OK(api()->Graph_GetOnnxIRVersion(m.graph, &ir));
  EXPECT_GT(ir, 0);
}

TEST(CApiGraphIntrospection, SinceVersionIsTheDefinitionServingTheOpset) {
  // Softmax's definition changed at 13 (its axis): opset 10 is served by the
  // earlier definition, opset 17 by 13's.
  for (auto [opset, since] : {std::pair{10, 1}, std::pair{17, 13}}) {
    OrtGraph* g = nullptr;
    CAPI_OK(editor()->CreateGraph(&g));
    set_io(g, {value_info("X", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2, 3})},
           {value_info("Y", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2, 3})});
    OrtNode* n = node("Softmax", "sm", {"X"}, {"Y"});
    int got = 0;
    auto r = result(api()->Node_GetSinceVersion(n, &got));
    EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);  // in no graph yet
    EXPECT_NE(r.second.find("Node_GetSinceVersion"), std::string::npos) << r.second;
    CAPI_OK(editor()->AddNodeToGraph(g, n));
    OrtModel* m = model_of(g, opset);
    CAPI_OK(api()->Node_GetSinceVersion(n, &got));
    EXPECT_EQ(got, since) << "opset " << opset;
    api()->ReleaseModel(m);
  }
}

TEST(CApiGraphIntrospection, InitializersAreSharedNotCopied) {
  AddMul m;
  size_t n = 0;
  CAPI_OK(api()->Graph_GetNumInitializers(m.graph, &n));
  ASSERT_EQ(n, 2u);
  std::vector<const OrtValueInfo*> inits(n);
  CAPI_OK(api()->Graph_GetInitializers(m.graph, inits.data(), n));
  const OrtValueInfo* b = nullptr;
  const OrtValueInfo* w = nullptr;
  for (auto* v : inits) {
    if (name_of(v) == "B") b = v;
    if (name_of(v) == "W") w = v;
  }
  ASSERT_NE(b, nullptr);
  ASSERT_NE(w, nullptr);
  bool constant = false;
  CAPI_OK(api()->ValueInfo_IsConstantInitializer(b, &constant));
  EXPECT_TRUE(constant);
  const OrtValue* value = nullptr;
  CAPI_OK(api()->ValueInfo_GetInitializerValue(b, &value));
  ASSERT_NE(value, nullptr);
  const void* data = nullptr;
  CAPI_OK(api()->GetTensorData(value, &data));
  EXPECT_EQ(data, m.b.data());  // external memory stays the caller's
  CAPI_OK(api()->ValueInfo_GetInitializerValue(w, &value));
  CAPI_OK(api()->GetTensorData(value, &data));
  EXPECT_NE(data, m.w.data());  // an owned initializer was copied when added
  EXPECT_EQ(static_cast<const float*>(data)[5], 6.0f);
  OrtExternalInitializerInfo* ext = reinterpret_cast<OrtExternalInitializerInfo*>(&n);
  CAPI_OK(api()->ValueInfo_GetExternalInitializerInfo(b, &ext));
  EXPECT_EQ(ext, nullptr);  // in memory, not in a file
  // A graph input is no initializer.
  const OrtValueInfo* x = nullptr;
  CAPI_OK(api()->Graph_GetInputs(m.graph, &x, 1));
  CAPI_OK(api()->ValueInfo_GetInitializerValue(x, &value));
  EXPECT_EQ(value, nullptr);
}

TEST(CApiGraphIntrospection, AttributesReadLikeReadOpAttr) {
  AddMul m;
  auto nodes = nodes_of(m.graph);
  size_t n = 0;
  CAPI_OK(api()->Node_GetNumAttributes(nodes[2], &n));
  ASSERT_EQ(n, 1u);
  const OrtOpAttr* attr = nullptr;
  CAPI_OK(api()->Node_GetAttributes(nodes[2], &attr, 1));
  const char* name = nullptr;
  CAPI_OK(api()->OpAttr_GetName(attr, &name));
  EXPECT_STREQ(name, "perm");
  OrtOpAttrType type{};
  CAPI_OK(api()->OpAttr_GetType(attr, &type));
  EXPECT_EQ(type, ORT_OP_ATTR_INTS);
  int64_t perm[2] = {};
  size_t size = 0;
  CAPI_OK(api()->ReadOpAttr(attr, ORT_OP_ATTR_INTS, perm, sizeof perm, &size));
  EXPECT_EQ(size, sizeof perm);
  EXPECT_EQ(perm[0], 1);
  EXPECT_EQ(perm[1], 0);
  const OrtOpAttr* by_name = nullptr;
  CAPI_OK(api()->Node_GetAttributeByName(nodes[2], "perm", &by_name));
  EXPECT_EQ(by_name, attr);
  auto r = result(api()->Node_GetAttributeByName(nodes[2], "axis", &by_name));
  EXPECT_EQ(r.first, ORT_NOT_FOUND);
  EXPECT_NE(r.second.find("axis"), std::string::npos) << r.second;
  OrtValue* tensor = nullptr;
  r = result(api()->OpAttr_GetTensorAttributeAsOrtValue(attr, &tensor));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("OpAttr_GetTensorAttributeAsOrtValue"), std::string::npos) << r.second;
}

TEST(CApiGraphIntrospection, AGraphViewTakesWhatItsNodesRead) {
  AddMul m;
  auto nodes = nodes_of(m.graph);
  OrtGraph* view = nullptr;
  CAPI_OK(api()->Graph_GetGraphView(m.graph, &nodes[0], 1, &view));
  size_t n = 0;
  CAPI_OK(api()->Graph_GetNumInputs(view, &n));
  ASSERT_EQ(n, 1u);
  const OrtValueInfo* in = nullptr;
  CAPI_OK(api()->Graph_GetInputs(view, &in, 1));
  EXPECT_EQ(name_of(in), "X");
  CAPI_OK(api()->Graph_GetNumInitializers(view, &n));
  EXPECT_EQ(n, 1u);  // W
  CAPI_OK(api()->Graph_GetNumOutputs(view, &n));
  ASSERT_EQ(n, 1u);
  const OrtValueInfo* out = nullptr;
  CAPI_OK(api()->Graph_GetOutputs(view, &out, 1));
  EXPECT_EQ(name_of(out), "Z");
  // The view answers model questions through its source.
  CAPI_OK(api()->Graph_GetNumOperatorSets(view, &n));
  EXPECT_EQ(n, 1u);
  api()->ReleaseGraph(view);
  // A node of another graph is refused.
  AddMul other;
  auto foreign = nodes_of(other.graph);
  auto r = result(api()->Graph_GetGraphView(m.graph, &foreign[0], 1, &view));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("not a node of this graph"), std::string::npos) << r.second;
}

TEST(CApiGraphIntrospection, SubgraphsOfAnIfAndTheirOuterScope) {
  // then: T = Neg(X) with X from the outer graph; else: E = Identity(X).
  auto branch = [](const char* op, const char* out) {
    OrtGraph* g = nullptr;
    EXPECT_EQ(result(editor()->CreateGraph(&g)).first, ORT_OK);
    set_io(g, {}, {value_info(out, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2})});
    EXPECT_EQ(result(editor()->AddNodeToGraph(g, node(op, op, {"X"}, {out}))).first, ORT_OK);
    return g;
  };
  OrtGraph* then_g = branch("Neg", "T");
  OrtGraph* else_g = branch("Identity", "E");
  OrtOpAttr* then_attr = nullptr;
  OrtOpAttr* else_attr = nullptr;
  CAPI_OK(api()->CreateOpAttr("then_branch", then_g, 0, ORT_OP_ATTR_GRAPH, &then_attr));
  CAPI_OK(api()->CreateOpAttr("else_branch", else_g, 0, ORT_OP_ATTR_GRAPH, &else_attr));
  api()->ReleaseGraph(then_g);  // the attributes hold copies
  api()->ReleaseGraph(else_g);
  OrtGraph* g = nullptr;
  CAPI_OK(editor()->CreateGraph(&g));
  set_io(g,
         {value_info("C", ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, {}),
          value_info("X", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2})},
         {value_info("Y", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2})});
  CAPI_OK(editor()->AddNodeToGraph(g, node("If", "if", {"C"}, {"Y"}, {then_attr, else_attr})));
  OrtModel* m = model_of(g);

  auto nodes = nodes_of(g);
  ASSERT_EQ(nodes.size(), 1u);
  size_t n = 0;
  CAPI_OK(api()->Node_GetNumSubgraphs(nodes[0], &n));
  ASSERT_EQ(n, 2u);
  const OrtGraph* subs[2] = {};
  const char* names[2] = {};
  CAPI_OK(api()->Node_GetSubgraphs(nodes[0], subs, 2, names));
  EXPECT_STREQ(names[0], "then_branch");
  EXPECT_STREQ(names[1], "else_branch");
  const OrtNode* parent = nullptr;
  CAPI_OK(api()->Graph_GetParentNode(subs[0], &parent));
  EXPECT_EQ(parent, nodes[0]);
  auto inner = nodes_of(subs[0]);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(op_of(inner[0]), "Neg");
  const OrtValueInfo* x = nullptr;
  CAPI_OK(api()->Node_GetInputs(inner[0], &x, 1));
  bool outer = false;
  CAPI_OK(api()->ValueInfo_IsFromOuterScope(x, &outer));
  EXPECT_TRUE(outer);
  // X's type comes from the graph that declares it.
  const OrtTypeInfo* type = nullptr;
  CAPI_OK(api()->GetValueInfoTypeInfo(x, &type));
  ONNXType kind{};
  CAPI_OK(api()->GetOnnxTypeFromTypeInfo(type, &kind));
  EXPECT_EQ(kind, ONNX_TYPE_TENSOR);
  // The If reads X implicitly: an implicit input, and a consumer at -1.
  CAPI_OK(api()->Node_GetNumImplicitInputs(nodes[0], &n));
  ASSERT_EQ(n, 1u);
  const OrtValueInfo* implicit = nullptr;
  CAPI_OK(api()->Node_GetImplicitInputs(nodes[0], &implicit, 1));
  EXPECT_EQ(name_of(implicit), "X");
  const OrtNode* consumer = nullptr;
  int64_t position = 0;
  CAPI_OK(api()->ValueInfo_GetValueNumConsumers(implicit, &n));
  ASSERT_EQ(n, 1u);
  CAPI_OK(api()->ValueInfo_GetValueConsumers(implicit, &consumer, &position, 1));
  EXPECT_EQ(consumer, nodes[0]);
  EXPECT_EQ(position, -1);

  OrtSession* session = nullptr;
  CAPI_OK(editor()->CreateSessionFromModel(env(), m, nullptr, &session));
  std::vector<float> xs{1.5f, -2.0f};
  OrtValue* xv = float_tensor(xs, {2});
  OrtMemoryInfo* cpu = nullptr;
  CAPI_OK(api()->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  bool c = true;
  OrtValue* cv = nullptr;
  CAPI_OK(api()->CreateTensorWithDataAsOrtValue(cpu, &c, sizeof c, nullptr, 0,
                                                ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, &cv));
  const char* in_names[] = {"C", "X"};
  const OrtValue* ins[] = {cv, xv};
  const char* out_names[] = {"Y"};
  OrtValue* y = nullptr;
  CAPI_OK(api()->Run(session, nullptr, in_names, ins, 2, out_names, 1, &y));
  EXPECT_EQ(floats(y), (std::vector<float>{-1.5f, 2.0f}));
  api()->ReleaseValue(y);
  api()->ReleaseValue(cv);
  api()->ReleaseValue(xv);
  api()->ReleaseMemoryInfo(cpu);
  api()->ReleaseSession(session);
  api()->ReleaseModel(m);
}

TEST(CApiGraphIntrospection, BadInputNamesTheEntry) {
  AddMul m;
  size_t n = 0;
  auto r = result(api()->Graph_GetNumInputs(nullptr, &n));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("Graph_GetNumInputs"), std::string::npos) << r.second;
  // An array too small for the graph's outputs.
  const OrtValueInfo* one = nullptr;
  r = result(api()->Graph_GetOutputs(m.graph, &one, 1));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("Graph_GetOutputs"), std::string::npos) << r.second;
  EXPECT_NE(r.second.find("holds 1"), std::string::npos) << r.second;
  auto nodes = nodes_of(m.graph);
  r = result(api()->Node_GetInputs(nodes[0], nullptr, 2));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("Node_GetInputs"), std::string::npos) << r.second;
  r = result(api()->ValueInfo_GetValueProducer(nullptr, nullptr, nullptr));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("ValueInfo_GetValueProducer"), std::string::npos) << r.second;
  // A node already in a graph cannot be added again.
  r = result(editor()->AddNodeToGraph(m.graph, const_cast<OrtNode*>(nodes[0])));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("already in a graph"), std::string::npos) << r.second;
  // Two initializers of one name.
  std::vector<float> w{1};
  OrtValue* v = float_tensor(w, {1});
  r = result(editor()->AddInitializerToGraph(m.graph, "W", v, false));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("'W'"), std::string::npos) << r.second;
  api()->ReleaseValue(v);  // refused, so still the caller's
  OrtOpAttr* attr = nullptr;
  r = result(api()->CreateOpAttr("a", &n, 1, static_cast<OrtOpAttrType>(42), &attr));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("CreateOpAttr"), std::string::npos) << r.second;
  OrtValueInfo* vi = nullptr;
  r = result(editor()->CreateValueInfo("", nullptr, &vi));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("CreateValueInfo"), std::string::npos) << r.second;
  // A graph already in a model is not added to a second one.
  OrtModel* second = nullptr;
  const char* domains[] = {""};
  const int versions[] = {17};
  CAPI_OK(editor()->CreateModel(domains, versions, 1, &second));
  r = result(editor()->AddGraphToModel(second, m.graph));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  api()->ReleaseModel(second);
  // Standalone handles: a value info not in a graph has no producer.
  OrtValueInfo* loose = value_info("L", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {1});
  const OrtNode* producer = nullptr;
  r = result(api()->ValueInfo_GetValueProducer(loose, &producer, nullptr));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("in no graph"), std::string::npos) << r.second;
  api()->ReleaseValueInfo(loose);
}

TEST(CApiGraphIntrospection, ModelMetadataNamesTheGraph) {
  AddMul m;
  OrtModelMetadata* meta = nullptr;
  CAPI_OK(api()->Graph_GetModelMetadata(m.graph, &meta));
  OrtAllocator* alloc = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&alloc));
  char* producer = nullptr;
  CAPI_OK(api()->ModelMetadataGetProducerName(meta, alloc, &producer));
  EXPECT_STREQ(producer, "");
  alloc->Free(alloc, producer);
  api()->ReleaseModelMetadata(meta);
}

TEST(CApiGraphIntrospection, ExternalInitializerInfoKeepsWhatItWasGiven) {
  OrtExternalInitializerInfo* info = nullptr;
  CAPI_OK(api()->CreateExternalInitializerInfo("weights.bin", 128, 4096, &info));
  EXPECT_STREQ(api()->ExternalInitializerInfo_GetFilePath(info), "weights.bin");
  EXPECT_EQ(api()->ExternalInitializerInfo_GetFileOffset(info), 128);
  EXPECT_EQ(api()->ExternalInitializerInfo_GetByteSize(info), 4096u);
  api()->ReleaseExternalInitializerInfo(info);
  auto r = result(api()->CreateExternalInitializerInfo("w.bin", -1, 4, &info));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("CreateExternalInitializerInfo"), std::string::npos) << r.second;
}
