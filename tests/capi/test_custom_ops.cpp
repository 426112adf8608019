// Custom ops through the C API, as an application uses them: this program
// links only libtessera.so and includes only include/. It registers the
// custom-op library (tests/capi/custom_op_library.c) and ops of its own,
// runs a model of them, and checks the outputs, the partition report (in the
// log, through the environment's logger) and the errors.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/onnxruntime_c_api.h"

namespace {

const OrtApi* api() { return OrtGetApiBase()->GetApi(ORT_API_VERSION); }

// The message of a status (freed), "" for success.
std::string message(OrtStatus* st) {
  if (!st) return "";
  std::string m = api()->GetErrorMessage(st);
  api()->ReleaseStatus(st);
  return m.empty() ? "(empty message)" : m;
}

#define ASSERT_ORT_OK(expr) ASSERT_EQ(message(expr), "")

// ---- a minimal protobuf writer for the test models ----

struct Proto {
  std::string bytes;
  void varint(uint64_t v) {
    while (v >= 0x80) {
      bytes += char((v & 0x7f) | 0x80);
      v >>= 7;
    }
    bytes += char(v);
  }
  void tag(int field, int wire) { varint(uint64_t(field) << 3 | uint64_t(wire)); }
  Proto& num(int field, int64_t v) {
    tag(field, 0);
    varint(uint64_t(v));
    return *this;
  }
  Proto& str(int field, const std::string& s) {
    tag(field, 2);
    varint(s.size());
    bytes += s;
    return *this;
  }
  Proto& msg(int field, const Proto& m) { return str(field, m.bytes); }
  Proto& f32(int field, float f) {
    tag(field, 5);
    char b[4];
    std::memcpy(b, &f, 4);
    bytes.append(b, 4);
    return *this;
  }
};

constexpr int kFloat = 1, kInt32 = 6;

Proto value_info(const std::string& name, int elem_type, std::vector<int64_t> dims) {
  Proto shape;
  for (int64_t d : dims) shape.msg(1, Proto().num(1, d));
  Proto tensor;
  tensor.num(1, elem_type).msg(2, shape);
  return Proto().str(1, name).msg(2, Proto().msg(1, tensor));
}

struct NodeSpec {
  std::string name, domain, op;
  std::vector<std::string> inputs, outputs;
  std::vector<Proto> attributes;
};

Proto float_attr(const std::string& name, float f) {
  return Proto().str(1, name).f32(2, f).num(20, 1);
}
Proto int_attr(const std::string& name, int64_t i) {
  return Proto().str(1, name).num(3, i).num(20, 2);
}
Proto string_attr(const std::string& name, const std::string& s) {
  return Proto().str(1, name).str(4, s).num(20, 3);
}
Proto floats_attr(const std::string& name, const std::vector<float>& fs) {
  Proto p;
  p.str(1, name);
  for (float f : fs) p.f32(7, f);
  return p.num(20, 6);
}

std::string model(const std::vector<NodeSpec>& nodes, const std::vector<Proto>& inputs,
                  const std::vector<Proto>& outputs,
                  const std::vector<std::pair<std::string, int>>& opsets) {
  Proto graph;
  for (const auto& n : nodes) {
    Proto node;
    for (const auto& i : n.inputs) node.str(1, i);
    for (const auto& o : n.outputs) node.str(2, o);
    node.str(3, n.name).str(4, n.op);
    for (const auto& a : n.attributes) node.msg(5, a);
    if (!n.domain.empty()) node.str(7, n.domain);
    graph.msg(1, node);
  }
  graph.str(2, "custom_ops_test");
  for (const auto& i : inputs) graph.msg(11, i);
  for (const auto& o : outputs) graph.msg(12, o);
  Proto m;
  m.num(1, 8);
  for (const auto& [domain, version] : opsets) m.msg(8, Proto().str(1, domain).num(2, version));
  m.msg(7, graph);
  return m.bytes;
}

const char* kDomain = "test.customops";

// The library's ops in one model: V = AddOptional(AddOptional(Sum(Relu(
// ScaleAdd(X, B)), X, B)), B), Z = CheckedSqrt(Q), J = Sum(I, I).
std::string library_model() {
  return model(
      {{"scale", kDomain, "ScaleAdd", {"X", "B"}, {"S"}, {float_attr("alpha", 2.0f)}},
       {"relu", "", "Relu", {"S"}, {"R"}, {}},
       {"sum3", kDomain, "Sum", {"R", "X", "B"}, {"T"}, {}},
       {"add_none", kDomain, "AddOptional", {"T"}, {"U"}, {}},
       {"add_b", kDomain, "AddOptional", {"U", "B"}, {"V"}, {}},
       {"sqrt", kDomain, "CheckedSqrt", {"Q"}, {"Z"}, {}},
       {"sum_int", kDomain, "Sum", {"I", "I"}, {"J"}, {}}},
      {value_info("X", kFloat, {4}), value_info("B", kFloat, {4}), value_info("Q", kFloat, {3}),
       value_info("I", kInt32, {2})},
      {value_info("V", kFloat, {4}), value_info("Z", kFloat, {3}), value_info("J", kInt32, {2})},
      {{"", 17}, {kDomain, 1}});
}

// ---- the environment and its logger (the log holds the partition report) ----

std::mutex g_log_mu;
std::string g_log;

void ORT_API_CALL capture_log(void*, OrtLoggingLevel, const char*, const char*, const char*,
                              const char* message) {
  std::lock_guard<std::mutex> lock(g_log_mu);
  g_log += message;
  g_log += "\n";
}

std::string take_log() {
  std::lock_guard<std::mutex> lock(g_log_mu);
  std::string s;
  s.swap(g_log);
  return s;
}

class CustomOps : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_ORT_OK(api()->CreateEnvWithCustomLogger(capture_log, nullptr, ORT_LOGGING_LEVEL_INFO,
                                                   "custom_ops", &env_));
  }
  static void TearDownTestSuite() { api()->ReleaseEnv(env_); }

  void SetUp() override {
    ASSERT_ORT_OK(api()->CreateSessionOptions(&options_));
    ASSERT_ORT_OK(api()->SetSessionLogSeverityLevel(options_, 1));  // info: the partition
    take_log();
  }
  void TearDown() override {
    if (session_) api()->ReleaseSession(session_);
    api()->ReleaseSessionOptions(options_);
  }

  OrtStatus* create(const std::string& bytes) {
    return api()->CreateSessionFromArray(env_, bytes.data(), bytes.size(), options_, &session_);
  }

  OrtValue* tensor(std::vector<float>& data) { return make(data.data(), data.size(), 4, kFloat); }
  OrtValue* tensor(std::vector<int32_t>& data) { return make(data.data(), data.size(), 4, kInt32); }
  OrtValue* make(void* p, size_t n, size_t elem, int type) {
    OrtMemoryInfo* mem = nullptr;
    EXPECT_EQ(message(api()->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem)), "");
    const int64_t dims[] = {int64_t(n)};
    OrtValue* v = nullptr;
    EXPECT_EQ(message(api()->CreateTensorWithDataAsOrtValue(mem, p, n * elem, dims, 1,
                                                            ONNXTensorElementDataType(type), &v)),
              "");
    api()->ReleaseMemoryInfo(mem);
    return v;
  }

  // Runs the session on named inputs; the outputs' values (float or int32
  // as floats), or the run's error message in *error.
  std::vector<std::vector<float>> run(const std::vector<const char*>& names,
                                      const std::vector<OrtValue*>& values,
                                      const std::vector<const char*>& outputs,
                                      std::string* error = nullptr) {
    std::vector<OrtValue*> out(outputs.size(), nullptr);
    std::string e = message(api()->Run(session_, nullptr, names.data(), values.data(),
                                       values.size(), outputs.data(), outputs.size(), out.data()));
    for (OrtValue* v : values) api()->ReleaseValue(v);
    if (error)
      *error = e;
    else
      EXPECT_EQ(e, "");
    std::vector<std::vector<float>> result;
    for (OrtValue* v : out) {
      if (!v) continue;
      OrtTensorTypeAndShapeInfo* info = nullptr;
      EXPECT_EQ(message(api()->GetTensorTypeAndShape(v, &info)), "");
      size_t n = 0;
      ONNXTensorElementDataType type;
      api()->GetTensorShapeElementCount(info, &n);
      api()->GetTensorElementType(info, &type);
      api()->ReleaseTensorTypeAndShapeInfo(info);
      void* p = nullptr;
      api()->GetTensorMutableData(v, &p);
      std::vector<float> values_out;
      for (size_t i = 0; i < n; ++i)
        values_out.push_back(type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32
                                 ? float(static_cast<int32_t*>(p)[i])
                                 : static_cast<float*>(p)[i]);
      result.push_back(values_out);
      api()->ReleaseValue(v);
    }
    return result;
  }

  std::vector<std::vector<float>> run_library_model(std::vector<float> q, std::string* error) {
    std::vector<float> x = {1, 2, 3, 4}, b = {0.5f, -1, 2, -3};
    std::vector<int32_t> i = {7, -2};
    return run({"X", "B", "Q", "I"}, {tensor(x), tensor(b), tensor(q), tensor(i)}, {"V", "Z", "J"},
               error);
  }

  static OrtEnv* env_;
  OrtSessionOptions* options_ = nullptr;
  OrtSession* session_ = nullptr;
};

OrtEnv* CustomOps::env_ = nullptr;

TEST_F(CustomOps, LibraryOpsRunInAModelOnTheCpuProvider) {
  ASSERT_ORT_OK(api()->RegisterCustomOpsLibrary_V2(options_, TESSERA_CUSTOM_OP_LIBRARY));
  ASSERT_ORT_OK(create(library_model()));
  std::string error;
  auto out = run_library_model({4, 9, 0.25f}, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(out.size(), 3u);
  // S = 2X + B = [2.5 3 8 5]; T = S + X + B = [4 4 13 6]; V = T + B.
  EXPECT_EQ(out[0], (std::vector<float>{4.5f, 3, 15, 3}));
  EXPECT_EQ(out[1], (std::vector<float>{2, 3, 0.5f}));
  EXPECT_EQ(out[2], (std::vector<float>{14, -4}));  // int32: the "any type" Sum
  // The output types the session reports come from the ops' declarations.
  OrtTypeInfo* type = nullptr;
  ASSERT_ORT_OK(api()->SessionGetOutputTypeInfo(session_, 2, &type));
  const OrtTensorTypeAndShapeInfo* tinfo = nullptr;
  ASSERT_ORT_OK(api()->CastTypeInfoToTensorInfo(type, &tinfo));
  ONNXTensorElementDataType elem;
  ASSERT_ORT_OK(api()->GetTensorElementType(tinfo, &elem));
  EXPECT_EQ(elem, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32);
  api()->ReleaseTypeInfo(type);
  // The partition report (logged at info level) shows each custom node on
  // the CPU provider.
  const std::string log = take_log();
  for (const char* node : {"scale", "sum3", "add_none", "add_b", "sqrt", "sum_int"}) {
    const size_t at = log.find(std::string("\n") + node + " ");
    ASSERT_NE(at, std::string::npos) << node << " is not in the partition report:\n" << log;
    const std::string row = log.substr(at + 1, log.find('\n', at + 1) - at - 1);
    EXPECT_NE(row.find("CPUExecutionProvider"), std::string::npos) << row;
  }
  EXPECT_NE(log.find("CheckedSqrt kernel made"), std::string::npos) << log;
}

TEST_F(CustomOps, AStatusReturningOpsErrorSurfacesThroughRun) {
  ASSERT_ORT_OK(api()->RegisterCustomOpsLibrary_V2(options_, TESSERA_CUSTOM_OP_LIBRARY));
  ASSERT_ORT_OK(create(library_model()));
  std::string error;
  run_library_model({4, -1, 1}, &error);
  EXPECT_NE(error.find("CheckedSqrt 'sqrt': element 1 is negative (-1)"), std::string::npos)
      << error;
  // The session still runs good inputs afterwards.
  auto out = run_library_model({1, 4, 16}, &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1], (std::vector<float>{1, 2, 4}));
}

TEST_F(CustomOps, TheLibraryStaysLoadedAfterTheApplicationClosesItsHandle) {
  void* handle = nullptr;
  ASSERT_ORT_OK(api()->RegisterCustomOpsLibrary(options_, TESSERA_CUSTOM_OP_LIBRARY, &handle));
  ASSERT_NE(handle, nullptr);
  ASSERT_EQ(dlclose(handle), 0);
  ASSERT_ORT_OK(create(library_model()));
  std::string error;
  auto out = run_library_model({4, 9, 0.25f}, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], (std::vector<float>{4.5f, 3, 15, 3}));
}

TEST_F(CustomOps, AMissingLibraryIsNotFound) {
  const std::string err = message(
      api()->RegisterCustomOpsLibrary_V2(options_, "/nonexistent/libmissing_custom_ops.so"));
  EXPECT_NE(err.find("'/nonexistent/libmissing_custom_ops.so' not found"), std::string::npos)
      << err;
  void* handle = nullptr;
  const std::string err1 = message(
      api()->RegisterCustomOpsLibrary(options_, "/nonexistent/libmissing_custom_ops.so", &handle));
  EXPECT_NE(err1.find("not found"), std::string::npos) << err1;
  EXPECT_EQ(handle, nullptr);
}

TEST_F(CustomOps, ALibraryWithoutRegisterCustomOpsIsRefused) {
  const std::string err =
      message(api()->RegisterCustomOpsLibrary_V2(options_, TESSERA_NO_REGISTER_LIBRARY));
  EXPECT_NE(err.find("does not export RegisterCustomOps"), std::string::npos) << err;
  EXPECT_NE(err.find(TESSERA_NO_REGISTER_LIBRARY), std::string::npos) << err;
}

TEST_F(CustomOps, AnUnknownOpOfARegisteredDomainNamesNodeOpAndDomain) {
  ASSERT_ORT_OK(api()->RegisterCustomOpsLibrary_V2(options_, TESSERA_CUSTOM_OP_LIBRARY));
  const std::string err = message(create(
      model({{"mystery", kDomain, "NoSuchOp", {"X"}, {"Y"}, {}}}, {value_info("X", kFloat, {2})},
            {value_info("Y", kFloat, {2})}, {{"", 17}, {kDomain, 1}})));
  EXPECT_NE(err.find("test.customops.NoSuchOp node 'mystery'"), std::string::npos) << err;
  EXPECT_NE(err.find("no kernel for this op"), std::string::npos) << err;
}

TEST_F(CustomOps, AnOpOfAnUnregisteredDomainFailsNamingTheDomain) {
  const std::string err = message(create(
      model({{"foreign", "other.domain", "Foo", {"X"}, {"Y"}, {}}}, {value_info("X", kFloat, {2})},
            {value_info("Y", kFloat, {2})}, {{"", 17}, {"other.domain", 1}})));
  EXPECT_NE(err.find("other.domain.Foo node 'foreign'"), std::string::npos) << err;
  EXPECT_NE(err.find("domain 'other.domain' is not known"), std::string::npos) << err;
}

// Y = If(C) then Sum(X, X) else Neg(X): the custom op inside a subgraph,
// where its input's type is known only at run time.
std::string if_model() {
  auto branch = [](const NodeSpec& n, const char* name) {
    Proto node;
    for (const auto& i : n.inputs) node.str(1, i);
    for (const auto& o : n.outputs) node.str(2, o);
    node.str(3, n.name).str(4, n.op);
    if (!n.domain.empty()) node.str(7, n.domain);
    Proto g;
    g.msg(1, node).str(2, name).msg(12, Proto().str(1, n.outputs[0]));
    return g;
  };
  Proto then_attr = Proto()
                        .str(1, "then_branch")
                        .msg(6, branch({"twice", kDomain, "Sum", {"X", "X"}, {"T"}, {}}, "then"))
                        .num(20, 5);
  Proto else_attr = Proto()
                        .str(1, "else_branch")
                        .msg(6, branch({"neg", "", "Neg", {"X"}, {"E"}, {}}, "else"))
                        .num(20, 5);
  return model({{"if", "", "If", {"C"}, {"Y"}, {then_attr, else_attr}}},
               {value_info("C", 9, {1}), value_info("X", kFloat, {3})},
               {value_info("Y", kFloat, {3})}, {{"", 17}, {kDomain, 1}});
}

TEST_F(CustomOps, AnOpInsideASubgraphRuns) {
  ASSERT_ORT_OK(api()->RegisterCustomOpsLibrary_V2(options_, TESSERA_CUSTOM_OP_LIBRARY));
  ASSERT_ORT_OK(create(if_model()));
  for (bool c : {true, false}) {
    std::vector<float> x = {1, -2, 0.5f};
    bool cond = c;
    auto out = run({"C", "X"}, {make(&cond, 1, 1, 9), tensor(x)}, {"Y"});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], c ? (std::vector<float>{2, -4, 1}) : (std::vector<float>{-1, 2, -0.5f}));
  }
}

TEST_F(CustomOps, AVariadicInputBelowItsMinimumArityIsAnError) {
  ASSERT_ORT_OK(api()->RegisterCustomOpsLibrary_V2(options_, TESSERA_CUSTOM_OP_LIBRARY));
  const std::string err = message(
      create(model({{"lonely", kDomain, "Sum", {"X"}, {"Y"}, {}}}, {value_info("X", kFloat, {2})},
                   {value_info("Y", kFloat, {2})}, {{"", 17}, {kDomain, 1}})));
  EXPECT_NE(err.find("node 'lonely'"), std::string::npos) << err;
  EXPECT_NE(err.find("needs at least 2"), std::string::npos) << err;
}

// ---- ops of the application's own, registered directly or by function name ----

const char* ORT_API_CALL null_name(const OrtCustomOp*) { return nullptr; }
const char* ORT_API_CALL probe_name(const OrtCustomOp*) { return "Probe"; }
const char* ORT_API_CALL cuda_provider(const OrtCustomOp*) { return "CUDAExecutionProvider"; }
size_t ORT_API_CALL count_one(const OrtCustomOp*) { return 1; }
int ORT_API_CALL start_two(const OrtCustomOp*) { return 2; }
int ORT_API_CALL end_three(const OrtCustomOp*) { return 3; }
ONNXTensorElementDataType ORT_API_CALL float_elem(const OrtCustomOp*, size_t) {
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}

// What Probe's kernel read of its node at creation.
struct ProbeSeen {
  int64_t count = 0;
  std::string mode, node, domain, op_type, input_name, config;
  std::vector<float> weights;
  size_t inputs = 0, outputs = 0;
  int since = 0;
  int constant = -1;
  ONNXTensorElementDataType input_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  // Read when the node has them: int and string arrays, a tensor attribute,
  // the constant input's values, and the node name through a copy of the info.
  std::vector<int64_t> sizes;
  std::vector<std::string> tags;
  std::vector<float> table, constant_values;
  std::string copied_node;
};
ProbeSeen g_seen;

std::string get_string(OrtStatus* (*fn)(const OrtKernelInfo*, char*, size_t*),
                       const OrtKernelInfo* info) {
  size_t size = 0;
  if (!message(fn(info, nullptr, &size)).empty()) return "?";
  std::string s(size, '\0');
  if (!message(fn(info, s.data(), &size)).empty()) return "?";
  s.resize(size - 1);
  return s;
}

void* ORT_API_CALL probe_create(const OrtCustomOp*, const OrtApi* a, const OrtKernelInfo* info) {
  ProbeSeen s;
  EXPECT_EQ(message(a->KernelInfoGetAttribute_int64(info, "count", &s.count)), "");
  size_t size = 0;
  EXPECT_EQ(message(a->KernelInfoGetAttribute_string(info, "mode", nullptr, &size)), "");
  s.mode.resize(size);
  EXPECT_EQ(message(a->KernelInfoGetAttribute_string(info, "mode", s.mode.data(), &size)), "");
  s.mode.resize(size - 1);
  size = 0;
  EXPECT_EQ(message(a->KernelInfoGetAttributeArray_float(info, "weights", nullptr, &size)), "");
  s.weights.resize(size);
  EXPECT_EQ(message(a->KernelInfoGetAttributeArray_float(info, "weights", s.weights.data(), &size)),
            "");
  float missing = 0;
  EXPECT_NE(message(a->KernelInfoGetAttribute_float(info, "absent", &missing)), "");
  s.node = get_string(a->KernelInfo_GetNodeName, info);
  s.domain = get_string(a->KernelInfo_GetOperatorDomain, info);
  s.op_type = get_string(a->KernelInfo_GetOperatorType, info);
  a->KernelInfo_GetInputCount(info, &s.inputs);
  a->KernelInfo_GetOutputCount(info, &s.outputs);
  a->KernelInfo_GetOperatorSinceVersion(info, &s.since);
  size = 0;
  a->KernelInfo_GetInputName(info, 0, nullptr, &size);
  s.input_name.resize(size);
  a->KernelInfo_GetInputName(info, 0, s.input_name.data(), &size);
  s.input_name.resize(size - 1);
  OrtTypeInfo* type = nullptr;
  if (message(a->KernelInfo_GetInputTypeInfo(info, 0, &type)).empty()) {
    const OrtTensorTypeAndShapeInfo* t = nullptr;
    a->CastTypeInfoToTensorInfo(type, &t);
    a->GetTensorElementType(t, &s.input_type);
    a->ReleaseTypeInfo(type);
  }
  const OrtValue* constant = nullptr;
  a->KernelInfoGetConstantInput_tensor(info, 0, &s.constant, &constant);
  OrtKeyValuePairs* config = nullptr;
  if (message(a->KernelInfo_GetConfigEntries(info, &config)).empty()) {
    const char* v = a->GetKeyValue(config, "custom.probe");
    s.config = v ? v : "";
    a->ReleaseKeyValuePairs(config);
  }
  size = 0;
  if (message(a->KernelInfoGetAttributeArray_int64(info, "sizes", nullptr, &size)).empty()) {
    s.sizes.resize(size);
    EXPECT_EQ(message(a->KernelInfoGetAttributeArray_int64(info, "sizes", s.sizes.data(), &size)),
              "");
  }
  OrtAllocator* alloc = nullptr;
  EXPECT_EQ(message(a->KernelInfoGetAllocator(info, OrtMemTypeDefault, &alloc)), "");
  char** strings = nullptr;
  size = 0;
  if (message(a->KernelInfoGetAttributeArray_string(info, "tags", alloc, &strings, &size))
          .empty()) {
    for (size_t i = 0; i < size; ++i) {
      s.tags.push_back(strings[i]);
      alloc->Free(alloc, strings[i]);
    }
    if (strings) alloc->Free(alloc, strings);
  }
  OrtValue* table = nullptr;
  if (message(a->KernelInfoGetAttribute_tensor(info, "table", alloc, &table)).empty()) {
    OrtTensorTypeAndShapeInfo* t = nullptr;
    a->GetTensorTypeAndShape(table, &t);
    size_t n = 0;
    a->GetTensorShapeElementCount(t, &n);
    a->ReleaseTensorTypeAndShapeInfo(t);
    const float* p = nullptr;
    a->GetTensorData(table, reinterpret_cast<const void**>(&p));
    s.table.assign(p, p + n);
    a->ReleaseValue(table);
  }
  a->ReleaseAllocator(alloc);
  if (s.constant == 1 && constant) {
    OrtTensorTypeAndShapeInfo* t = nullptr;
    a->GetTensorTypeAndShape(constant, &t);
    size_t n = 0;
    a->GetTensorShapeElementCount(t, &n);
    a->ReleaseTensorTypeAndShapeInfo(t);
    const float* p = nullptr;
    a->GetTensorData(constant, reinterpret_cast<const void**>(&p));
    s.constant_values.assign(p, p + n);
  }
  OrtKernelInfo* copy = nullptr;
  if (message(a->CopyKernelInfo(info, &copy)).empty()) {
    s.copied_node = get_string(a->KernelInfo_GetNodeName, copy);
    a->ReleaseKernelInfo(copy);
  }
  g_seen = s;
  return new int(int(s.count));
}

void ORT_API_CALL probe_compute(void* kernel, OrtKernelContext* ctx) {
  const OrtApi* a = api();
  const OrtValue* x = nullptr;
  OrtValue* y = nullptr;
  a->KernelContext_GetInput(ctx, 0, &x);
  OrtTensorTypeAndShapeInfo* info = nullptr;
  a->GetTensorTypeAndShape(x, &info);
  size_t n = 0;
  a->GetTensorShapeElementCount(info, &n);
  a->ReleaseTensorTypeAndShapeInfo(info);
  const int64_t dims[] = {int64_t(n)};
  a->KernelContext_GetOutput(ctx, 0, dims, 1, &y);
  const float* px = nullptr;
  float* py = nullptr;
  a->GetTensorData(x, reinterpret_cast<const void**>(&px));
  a->GetTensorMutableData(y, reinterpret_cast<void**>(&py));
  // Scratch memory and the thread pool: y[i] = x[i] * count, through a buffer.
  OrtMemoryInfo* mem = nullptr;
  a->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem);
  float* scratch = nullptr;
  EXPECT_EQ(message(a->KernelContext_GetScratchBuffer(ctx, mem, n * sizeof(float),
                                                      reinterpret_cast<void**>(&scratch))),
            "");
  a->ReleaseMemoryInfo(mem);
  struct Job {
    const float* x;
    float* scratch;
    float scale;
  } job{px, scratch, float(*static_cast<int*>(kernel))};
  EXPECT_EQ(message(a->KernelContext_ParallelFor(
                ctx,
                [](void* d, size_t i) {
                  auto* j = static_cast<Job*>(d);
                  j->scratch[i] = j->x[i] * j->scale;
                },
                n, 0, &job)),
            "");
  std::memcpy(py, scratch, n * sizeof(float));
  void* stream = reinterpret_cast<void*>(1);
  EXPECT_EQ(message(a->KernelContext_GetGPUComputeStream(ctx, &stream)), "");
  EXPECT_EQ(stream, nullptr);
}

void ORT_API_CALL delete_int(void* kernel) { delete static_cast<int*>(kernel); }

OrtCustomOp make_probe() {
  OrtCustomOp op;
  std::memset(&op, 0, sizeof op);
  op.version = ORT_API_VERSION;
  op.CreateKernel = probe_create;
  op.GetName = probe_name;
  op.GetInputType = float_elem;
  op.GetInputTypeCount = count_one;
  op.GetOutputType = float_elem;
  op.GetOutputTypeCount = count_one;
  op.KernelCompute = probe_compute;
  op.KernelDestroy = delete_int;
  return op;
}

OrtCustomOp g_probe = make_probe();

}  // namespace

// Found by RegisterCustomOpsUsingFunction (the program exports its symbols).
extern "C" ORT_EXPORT OrtStatus* ORT_API_CALL RegisterProbeOps(OrtSessionOptions* options,
                                                               const OrtApiBase* base) {
  const OrtApi* a = base->GetApi(ORT_API_VERSION);
  OrtCustomOpDomain* domain = nullptr;
  if (OrtStatus* st = a->CreateCustomOpDomain("test.inprocess", &domain)) return st;
  OrtStatus* st = a->CustomOpDomain_Add(domain, &g_probe);
  if (!st) st = a->AddCustomOpDomain(options, domain);
  a->ReleaseCustomOpDomain(domain);  // Tessera copies what it needs
  return st;
}

namespace {

TEST_F(CustomOps, AnApplicationsOpReadsItsKernelInfoAndRuns) {
  ASSERT_ORT_OK(api()->AddSessionConfigEntry(options_, "custom.probe", "yes"));
  ASSERT_ORT_OK(api()->RegisterCustomOpsUsingFunction(options_, "RegisterProbeOps"));
  ASSERT_ORT_OK(create(model(
      {{"probe",
        "test.inprocess",
        "Probe",
        {"X"},
        {"Y"},
        {int_attr("count", 3), string_attr("mode", "fast"), floats_attr("weights", {0.5f, 1.5f})}}},
      {value_info("X", kFloat, {5})}, {value_info("Y", kFloat, {5})},
      {{"", 17}, {"test.inprocess", 1}})));
  EXPECT_EQ(g_seen.count, 3);
  EXPECT_EQ(g_seen.mode, "fast");
  EXPECT_EQ(g_seen.weights, (std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(g_seen.node, "probe");
  EXPECT_EQ(g_seen.domain, "test.inprocess");
  EXPECT_EQ(g_seen.op_type, "Probe");
  EXPECT_EQ(g_seen.inputs, 1u);
  EXPECT_EQ(g_seen.outputs, 1u);
  EXPECT_EQ(g_seen.since, 1);
  EXPECT_EQ(g_seen.input_name, "X");
  EXPECT_EQ(g_seen.input_type, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  EXPECT_EQ(g_seen.constant, 0);
  EXPECT_EQ(g_seen.config, "yes");
  std::vector<float> x = {1, 2, 3, 4, 5};
  auto out = run({"X"}, {tensor(x)}, {"Y"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{3, 6, 9, 12, 15}));
}

// Probe with GetStartVersion/GetEndVersion 2 and 3: the model's opset of the
// domain picks whether a node is Probe.
OrtCustomOp g_probe_2_3 = [] {
  OrtCustomOp op = make_probe();
  op.GetStartVersion = start_two;
  op.GetEndVersion = end_three;
  return op;
}();

TEST_F(CustomOps, AnOpServesItsOpsetRange) {
  OrtCustomOpDomain* domain = nullptr;
  ASSERT_ORT_OK(api()->CreateCustomOpDomain("test.versions", &domain));
  ASSERT_ORT_OK(api()->CustomOpDomain_Add(domain, &g_probe_2_3));
  ASSERT_ORT_OK(api()->AddCustomOpDomain(options_, domain));
  api()->ReleaseCustomOpDomain(domain);
  auto probe_model = [](int opset) {
    return model({{"probe",
                   "test.versions",
                   "Probe",
                   {"X"},
                   {"Y"},
                   {int_attr("count", 2), string_attr("mode", "m"), floats_attr("weights", {})}}},
                 {value_info("X", kFloat, {2})}, {value_info("Y", kFloat, {2})},
                 {{"", 17}, {"test.versions", opset}});
  };
  const std::string err = message(create(probe_model(1)));
  EXPECT_NE(err.find("test.versions.Probe node 'probe' (opset 1"), std::string::npos) << err;
  EXPECT_NE(err.find("kernels cover opsets 2-3"), std::string::npos) << err;
  ASSERT_ORT_OK(create(probe_model(3)));
  EXPECT_EQ(g_seen.since, 2);
  std::vector<float> x = {1, -4};
  auto out = run({"X"}, {tensor(x)}, {"Y"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{2, -8}));
}

TEST_F(CustomOps, AVersion15OpWithOnlyTheV2FunctionsIsRefused) {
  OrtCustomOp op = make_probe();
  op.version = 15;  // CreateKernelV2 and KernelComputeV2 came with version 16
  op.CreateKernel = nullptr;
  op.KernelCompute = nullptr;
  op.CreateKernelV2 = [](const OrtCustomOp*, const OrtApi*, const OrtKernelInfo*,
                         void**) -> OrtStatusPtr { return nullptr; };
  op.KernelComputeV2 = [](void*, OrtKernelContext*) -> OrtStatusPtr { return nullptr; };
  OrtCustomOpDomain* domain = nullptr;
  ASSERT_ORT_OK(api()->CreateCustomOpDomain("test.v15", &domain));
  const std::string err = message(api()->CustomOpDomain_Add(domain, &op));
  EXPECT_NE(err.find("has neither CreateKernel and KernelCompute"), std::string::npos) << err;
  api()->ReleaseCustomOpDomain(domain);
}

// Repeat(X) -> Y of shape [count, len(X)]: an op of any output type whose
// InferOutputShapeFn (version 17) gives the type and shape.
OrtStatusPtr ORT_API_CALL repeat_infer(const OrtCustomOp*, OrtShapeInferContext* ctx) {
  const OrtApi* a = api();
  size_t inputs = 0;
  if (OrtStatus* st = a->ShapeInferContext_GetInputCount(ctx, &inputs)) return st;
  OrtTensorTypeAndShapeInfo* in = nullptr;
  if (OrtStatus* st = a->ShapeInferContext_GetInputTypeShape(ctx, 0, &in)) return st;
  int64_t dims[2] = {0, 0};
  size_t rank = 0;
  a->GetDimensionsCount(in, &rank);
  if (rank == 1) a->GetDimensions(in, dims + 1, 1);
  ONNXTensorElementDataType elem;
  a->GetTensorElementType(in, &elem);
  a->ReleaseTensorTypeAndShapeInfo(in);
  const OrtOpAttr* count = nullptr;
  if (OrtStatus* st = a->ShapeInferContext_GetAttribute(ctx, "count", &count)) return st;
  size_t bytes = 0;
  if (OrtStatus* st = a->ReadOpAttr(count, ORT_OP_ATTR_INT, dims, sizeof(int64_t), &bytes))
    return st;
  if (dims[0] < 0) return a->CreateStatus(ORT_INVALID_ARGUMENT, "Repeat: count is negative");
  OrtTensorTypeAndShapeInfo* out = nullptr;
  a->CreateTensorTypeAndShapeInfo(&out);
  a->SetTensorElementType(out, elem);
  a->SetDimensions(out, dims, 2);
  OrtStatus* st = a->ShapeInferContext_SetOutputTypeShape(ctx, 0, out);
  a->ReleaseTensorTypeAndShapeInfo(out);
  return st;
}

const char* ORT_API_CALL repeat_name(const OrtCustomOp*) { return "Repeat"; }
ONNXTensorElementDataType ORT_API_CALL undefined_elem(const OrtCustomOp*, size_t) {
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}

void* ORT_API_CALL repeat_create(const OrtCustomOp*, const OrtApi* a, const OrtKernelInfo* info) {
  int64_t count = 0;
  EXPECT_EQ(message(a->KernelInfoGetAttribute_int64(info, "count", &count)), "");
  return new int(int(count));
}

void ORT_API_CALL repeat_compute(void* kernel, OrtKernelContext* ctx) {
  const OrtApi* a = api();
  const int rows = *static_cast<int*>(kernel);
  const OrtValue* x = nullptr;
  a->KernelContext_GetInput(ctx, 0, &x);
  OrtTensorTypeAndShapeInfo* info = nullptr;
  a->GetTensorTypeAndShape(x, &info);
  size_t n = 0;
  a->GetTensorShapeElementCount(info, &n);
  a->ReleaseTensorTypeAndShapeInfo(info);
  const int64_t dims[] = {rows, int64_t(n)};
  OrtValue* y = nullptr;
  a->KernelContext_GetOutput(ctx, 0, dims, 2, &y);
  const float* px = nullptr;
  float* py = nullptr;
  a->GetTensorData(x, reinterpret_cast<const void**>(&px));
  a->GetTensorMutableData(y, reinterpret_cast<void**>(&py));
  for (int r = 0; r < rows; ++r) std::memcpy(py + r * n, px, n * sizeof(float));
}

OrtCustomOp g_repeat = [] {
  OrtCustomOp op = make_probe();
  op.version = 17;
  op.GetName = repeat_name;
  op.GetInputType = undefined_elem;
  op.GetOutputType = undefined_elem;
  op.CreateKernel = repeat_create;
  op.KernelCompute = repeat_compute;
  op.InferOutputShapeFn = repeat_infer;
  return op;
}();

TEST_F(CustomOps, InferOutputShapeFnGivesTheOutputsTypeAndShape) {
  OrtCustomOpDomain* domain = nullptr;
  ASSERT_ORT_OK(api()->CreateCustomOpDomain("test.shapes", &domain));
  ASSERT_ORT_OK(api()->CustomOpDomain_Add(domain, &g_repeat));
  ASSERT_ORT_OK(api()->AddCustomOpDomain(options_, domain));
  api()->ReleaseCustomOpDomain(domain);
  // Y is declared by name only: its type and shape come from the op.
  ASSERT_ORT_OK(create(model(
      {{"repeat", "test.shapes", "Repeat", {"X"}, {"Y"}, {int_attr("count", 3)}}},
      {value_info("X", kFloat, {2})}, {Proto().str(1, "Y")}, {{"", 17}, {"test.shapes", 1}})));
  OrtTypeInfo* type = nullptr;
  ASSERT_ORT_OK(api()->SessionGetOutputTypeInfo(session_, 0, &type));
  const OrtTensorTypeAndShapeInfo* tinfo = nullptr;
  ASSERT_ORT_OK(api()->CastTypeInfoToTensorInfo(type, &tinfo));
  ONNXTensorElementDataType elem;
  ASSERT_ORT_OK(api()->GetTensorElementType(tinfo, &elem));
  EXPECT_EQ(elem, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  size_t rank = 0;
  ASSERT_ORT_OK(api()->GetDimensionsCount(tinfo, &rank));
  ASSERT_EQ(rank, 2u);
  int64_t dims[2];
  ASSERT_ORT_OK(api()->GetDimensions(tinfo, dims, 2));
  EXPECT_EQ(dims[0], 3);
  EXPECT_EQ(dims[1], 2);
  api()->ReleaseTypeInfo(type);
  std::vector<float> x = {1.5f, -2};
  auto out = run({"X"}, {tensor(x)}, {"Y"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{1.5f, -2, 1.5f, -2, 1.5f, -2}));
}

TEST_F(CustomOps, AnInferOutputShapeFnErrorFailsSessionCreation) {
  OrtCustomOpDomain* domain = nullptr;
  ASSERT_ORT_OK(api()->CreateCustomOpDomain("test.shapes", &domain));
  ASSERT_ORT_OK(api()->CustomOpDomain_Add(domain, &g_repeat));
  ASSERT_ORT_OK(api()->AddCustomOpDomain(options_, domain));
  api()->ReleaseCustomOpDomain(domain);
  const std::string err = message(create(model(
      {{"repeat", "test.shapes", "Repeat", {"X"}, {"Y"}, {int_attr("count", -1)}}},
      {value_info("X", kFloat, {2})}, {Proto().str(1, "Y")}, {{"", 17}, {"test.shapes", 1}})));
  EXPECT_NE(err.find("test.shapes.Repeat node 'repeat': InferOutputShapeFn of custom op 'Repeat' "
                     "failed: Repeat: count is negative"),
            std::string::npos)
      << err;
}

Proto ints_attr(const std::string& name, const std::vector<int64_t>& is) {
  Proto p;
  p.str(1, name);
  for (int64_t i : is) p.num(8, i);
  return p.num(20, 7);
}
Proto strings_attr(const std::string& name, const std::vector<std::string>& ss) {
  Proto p;
  p.str(1, name);
  for (const auto& x : ss) p.str(9, x);
  return p.num(20, 8);
}
Proto float_tensor(const std::string& name, const std::vector<float>& values) {
  Proto t;
  t.num(1, int64_t(values.size())).num(2, kFloat);
  for (float f : values) t.f32(4, f);
  if (!name.empty()) t.str(8, name);
  return t;
}

TEST_F(CustomOps, AnOpReadsArrayAndTensorAttributesAndItsConstantInput) {
  ASSERT_ORT_OK(api()->RegisterCustomOpsUsingFunction(options_, "RegisterProbeOps"));
  // W is an initializer (not a graph input): Probe's input is constant.
  Proto graph;
  Proto node;
  node.str(1, "W").str(2, "Y").str(3, "probe").str(4, "Probe");
  for (const Proto& a :
       {int_attr("count", 2), string_attr("mode", "m"), floats_attr("weights", {}),
        ints_attr("sizes", {4, -1, 7}), strings_attr("tags", {"a", "", "long tag"}),
        Proto().str(1, "table").msg(5, float_tensor("", {0.25f, 8})).num(20, 4)})
    node.msg(5, a);
  node.str(7, "test.inprocess");
  graph.msg(1, node).str(2, "constant_input").msg(5, float_tensor("W", {1, 2, 3}));
  graph.msg(12, value_info("Y", kFloat, {3}));
  Proto m;
  m.num(1, 8)
      .msg(8, Proto().str(1, "").num(2, 17))
      .msg(8, Proto().str(1, "test.inprocess").num(2, 1));
  m.msg(7, graph);
  ASSERT_ORT_OK(create(m.bytes));
  EXPECT_EQ(g_seen.sizes, (std::vector<int64_t>{4, -1, 7}));
  EXPECT_EQ(g_seen.tags, (std::vector<std::string>{"a", "", "long tag"}));
  EXPECT_EQ(g_seen.table, (std::vector<float>{0.25f, 8}));
  EXPECT_EQ(g_seen.constant, 1);
  EXPECT_EQ(g_seen.constant_values, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(g_seen.copied_node, "probe");
  auto out = run({}, {}, {"Y"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{2, 4, 6}));
}

TEST_F(CustomOps, AnUnknownRegistrationFunctionIsAnError) {
  const std::string err =
      message(api()->RegisterCustomOpsUsingFunction(options_, "NoSuchRegistrationFunction"));
  EXPECT_NE(err.find("'NoSuchRegistrationFunction'"), std::string::npos) << err;
}

TEST_F(CustomOps, AnOpWithANullNameIsRefused) {
  OrtCustomOp op = make_probe();
  op.GetName = null_name;
  OrtCustomOpDomain* domain = nullptr;
  ASSERT_ORT_OK(api()->CreateCustomOpDomain("test.bad", &domain));
  const std::string err = message(api()->CustomOpDomain_Add(domain, &op));
  EXPECT_NE(err.find("null or empty name"), std::string::npos) << err;
  EXPECT_NE(err.find("'test.bad'"), std::string::npos) << err;
  api()->ReleaseCustomOpDomain(domain);
}

TEST_F(CustomOps, AnOpForAnotherProviderIsRefusedAtRegistration) {
  OrtCustomOp op = make_probe();
  op.GetExecutionProviderType = cuda_provider;
  OrtCustomOpDomain* domain = nullptr;
  ASSERT_ORT_OK(api()->CreateCustomOpDomain("test.gpu", &domain));
  const std::string err = message(api()->CustomOpDomain_Add(domain, &op));
  EXPECT_NE(err.find("custom op 'Probe' of domain 'test.gpu' is for execution provider "
                     "'CUDAExecutionProvider'"),
            std::string::npos)
      << err;
  api()->ReleaseCustomOpDomain(domain);
}

TEST_F(CustomOps, AnOpOfANewerApiVersionIsRefused) {
  OrtCustomOp op = make_probe();
  op.version = ORT_API_VERSION + 1;
  OrtCustomOpDomain* domain = nullptr;
  ASSERT_ORT_OK(api()->CreateCustomOpDomain("test.future", &domain));
  const std::string err = message(api()->CustomOpDomain_Add(domain, &op));
  EXPECT_NE(err.find("has version"), std::string::npos) << err;
  api()->ReleaseCustomOpDomain(domain);
}

}  // namespace
