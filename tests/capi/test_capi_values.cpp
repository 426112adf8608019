// Values through the C ABI: tensors from an allocator, string tensors,
// sequences, element types, memory descriptions and key/value lists.
#include <cstring>

#include "capi_test_util.hpp"

using namespace capi_test;

TEST(CApiValues, TensorsFromTheDefaultAllocator) {
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  const int64_t shape[2] = {2, 2};
  OrtValue* v = nullptr;
  CAPI_OK(api()->CreateTensorAsOrtValue(a, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &v));
  int is_tensor = 0;
  CAPI_OK(api()->IsTensor(v, &is_tensor));
  EXPECT_EQ(is_tensor, 1);
  int64_t* p = nullptr;
  CAPI_OK(api()->GetTensorMutableData(v, reinterpret_cast<void**>(&p)));
  for (int i = 0; i < 4; ++i) p[i] = i * 10;
  const int64_t at[2] = {1, 0};
  void* e = nullptr;
  CAPI_OK(api()->TensorAt(v, at, 2, &e));
  EXPECT_EQ(*static_cast<int64_t*>(e), 20);
  size_t bytes = 0;
  CAPI_OK(api()->GetTensorSizeInBytes(v, &bytes));
  EXPECT_EQ(bytes, 32u);
  const OrtMemoryInfo* m = nullptr;
  CAPI_OK(api()->GetTensorMemoryInfo(v, &m));
  const char* name = nullptr;
  CAPI_OK(api()->MemoryInfoGetName(m, &name));
  EXPECT_STREQ(name, "Cpu");
  api()->ReleaseValue(v);
}

TEST(CApiValues, StringTensorsRoundTripThroughAModel) {
  OrtAllocator* a = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&a));
  const int64_t shape[1] = {3};
  OrtValue* v = nullptr;
  CAPI_OK(api()->CreateTensorAsOrtValue(a, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &v));
  const char* items[3] = {"alpha", "", "gamma"};
  CAPI_OK(api()->FillStringTensor(v, items, 3));
  CAPI_OK(api()->FillStringTensorElement(v, "beta", 1));

  OrtSession* s = open_session("strings.onnx");
  const char* in_names[1] = {"text"};
  const char* out_names[1] = {"same"};
  OrtValue* out[1] = {nullptr};
  CAPI_OK(api()->Run(s, nullptr, in_names, &v, 1, out_names, 1, out));
  size_t total = 0;
  CAPI_OK(api()->GetStringTensorDataLength(out[0], &total));
  EXPECT_EQ(total, 14u);
  std::string chars(total, '\0');
  size_t offsets[3];
  CAPI_OK(api()->GetStringTensorContent(out[0], chars.data(), total, offsets, 3));
  EXPECT_EQ(chars, "alphabetagamma");
  EXPECT_EQ(offsets[1], 5u);
  EXPECT_EQ(offsets[2], 9u);
  size_t len = 0;
  CAPI_OK(api()->GetStringTensorElementLength(out[0], 2, &len));
  EXPECT_EQ(len, 5u);
  char buf[5];
  CAPI_OK(api()->GetStringTensorElement(out[0], sizeof buf, 2, buf));
  EXPECT_EQ(std::string(buf, 5), "gamma");

  auto r = result(api()->GetStringTensorElement(out[0], 2, 0, buf));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("holds 2 bytes"), std::string::npos) << r.second;
  api()->ReleaseValue(out[0]);
  api()->ReleaseValue(v);
  api()->ReleaseSession(s);
}

TEST(CApiValues, SequencesComeBackAsSequences) {
  OrtSession* s = open_session("sequence.onnx");
  std::vector<float> a = {1, 2}, b = {3, 4};
  OrtValue* in[2] = {float_tensor(a, {2}), float_tensor(b, {2})};
  const char* in_names[2] = {"a", "b"};
  const char* out_names[1] = {"seq"};
  OrtValue* out[1] = {nullptr};
  CAPI_OK(api()->Run(s, nullptr, in_names, in, 2, out_names, 1, out));
  ONNXType t;
  CAPI_OK(api()->GetValueType(out[0], &t));
  EXPECT_EQ(t, ONNX_TYPE_SEQUENCE);
  size_t n = 0;
  CAPI_OK(api()->GetValueCount(out[0], &n));
  ASSERT_EQ(n, 2u);
  OrtAllocator* alloc = nullptr;
  CAPI_OK(api()->GetAllocatorWithDefaultOptions(&alloc));
  OrtValue* second = nullptr;
  CAPI_OK(api()->GetValue(out[0], 1, alloc, &second));
  EXPECT_EQ(floats(second), (std::vector<float>{3, 4}));

  OrtTypeInfo* info = nullptr;
  CAPI_OK(api()->SessionGetOutputTypeInfo(s, 0, &info));
  const OrtSequenceTypeInfo* seq = nullptr;
  CAPI_OK(api()->CastTypeInfoToSequenceTypeInfo(info, &seq));
  ASSERT_NE(seq, nullptr);
  OrtTypeInfo* elem = nullptr;
  CAPI_OK(api()->GetSequenceElementType(seq, &elem));
  ONNXType elem_kind;
  CAPI_OK(api()->GetOnnxTypeFromTypeInfo(elem, &elem_kind));
  EXPECT_EQ(elem_kind, ONNX_TYPE_TENSOR);
  api()->ReleaseTypeInfo(elem);
  api()->ReleaseTypeInfo(info);

  OrtValue* made = nullptr;
  CAPI_OK(api()->CreateValue(in, 2, ONNX_TYPE_SEQUENCE, &made));
  CAPI_OK(api()->GetValueCount(made, &n));
  EXPECT_EQ(n, 2u);
  for (OrtValue* v : {in[0], in[1], out[0], second, made}) api()->ReleaseValue(v);
  api()->ReleaseSession(s);
}

TEST(CApiValues, ElementTypesKeepOnnxRuntimesNumbering) {
  OrtSession* s = open_session("int_types.onnx");
  std::vector<int64_t> x = {1, -2, 3};
  OrtMemoryInfo* cpu = nullptr;
  CAPI_OK(api()->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu));
  const int64_t shape[1] = {3};
  OrtValue* in = nullptr;
  CAPI_OK(api()->CreateTensorWithDataAsOrtValue(cpu, x.data(), x.size() * 8, shape, 1,
                                                ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &in));
  const char* in_names[1] = {"x"};
  const char* out_names[2] = {"y", "f"};
  OrtValue* out[2] = {nullptr, nullptr};
  CAPI_OK(api()->Run(s, nullptr, in_names, &in, 1, out_names, 2, out));
  int64_t* y = nullptr;
  CAPI_OK(api()->GetTensorMutableData(out[0], reinterpret_cast<void**>(&y)));
  EXPECT_EQ(y[1], 2);
  OrtTensorTypeAndShapeInfo* info = nullptr;
  CAPI_OK(api()->GetTensorTypeAndShape(out[1], &info));
  ONNXTensorElementDataType t;
  CAPI_OK(api()->GetTensorElementType(info, &t));
  EXPECT_EQ(t, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16);
  api()->ReleaseTensorTypeAndShapeInfo(info);
  for (OrtValue* v : {in, out[0], out[1]}) api()->ReleaseValue(v);
  api()->ReleaseMemoryInfo(cpu);
  api()->ReleaseSession(s);
}

TEST(CApiValues, MemoryInfosDescribeDevices) {
  OrtMemoryInfo* cuda = nullptr;
  CAPI_OK(api()->CreateMemoryInfo("Cuda", OrtArenaAllocator, 1, OrtMemTypeDefault, &cuda));
  OrtMemoryInfoDeviceType type;
  api()->MemoryInfoGetDeviceType(cuda, &type);
  EXPECT_EQ(type, OrtMemoryInfoDeviceType_GPU);
  EXPECT_EQ(api()->MemoryInfoGetVendorId(cuda), 0x10DEu);
  int id = -1;
  CAPI_OK(api()->MemoryInfoGetId(cuda, &id));
  EXPECT_EQ(id, 1);
  OrtMemoryInfo* v2 = nullptr;
  CAPI_OK(api()->CreateMemoryInfo_V2("Cuda", OrtMemoryInfoDeviceType_GPU, 0x10DE, 1,
                                     OrtDeviceMemoryType_DEFAULT, 0, OrtArenaAllocator, &v2));
  int same = -1;
  CAPI_OK(api()->CompareMemoryInfo(cuda, v2, &same));
  EXPECT_EQ(same, 0);
  OrtMemoryInfo* cpu = nullptr;
  CAPI_OK(api()->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  CAPI_OK(api()->CompareMemoryInfo(cuda, cpu, &same));
  EXPECT_EQ(same, -1);
  OrtMemoryInfo* bad = nullptr;
  auto r =
      result(api()->CreateMemoryInfo("Nowhere", OrtArenaAllocator, 0, OrtMemTypeDefault, &bad));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("'Nowhere'"), std::string::npos) << r.second;
  for (OrtMemoryInfo* m : {cuda, v2, cpu}) api()->ReleaseMemoryInfo(m);
}

TEST(CApiValues, KeyValuePairsKeepInsertionOrderAndReplace) {
  OrtKeyValuePairs* kv = nullptr;
  api()->CreateKeyValuePairs(&kv);
  api()->AddKeyValuePair(kv, "a", "1");
  api()->AddKeyValuePair(kv, "b", "2");
  api()->AddKeyValuePair(kv, "a", "3");
  EXPECT_STREQ(api()->GetKeyValue(kv, "a"), "3");
  const char* const* keys = nullptr;
  const char* const* values = nullptr;
  size_t n = 0;
  api()->GetKeyValuePairs(kv, &keys, &values, &n);
  ASSERT_EQ(n, 2u);
  EXPECT_STREQ(keys[1], "b");
  api()->RemoveKeyValuePair(kv, "a");
  EXPECT_EQ(api()->GetKeyValue(kv, "a"), nullptr);
  api()->ReleaseKeyValuePairs(kv);
}

TEST(CApiValues, CopyTensorsAndDevices) {
  const OrtEpDevice* const* devices = nullptr;
  size_t n = 0;
  CAPI_OK(api()->GetEpDevices(env(), &devices, &n));
  ASSERT_GE(n, 1u);
  bool cpu = false;
  for (size_t i = 0; i < n; ++i) {
    if (std::strcmp(api()->EpDevice_EpName(devices[i]), "CPUExecutionProvider") != 0) continue;
    cpu = true;
    EXPECT_EQ(api()->HardwareDevice_Type(api()->EpDevice_Device(devices[i])),
              OrtHardwareDeviceType_CPU);
    const OrtMemoryInfo* m = api()->EpDevice_MemoryInfo(devices[i], OrtDeviceMemoryType_DEFAULT);
    OrtAllocator* shared = nullptr;
    CAPI_OK(api()->GetSharedAllocator(env(), m, &shared));
    ASSERT_NE(shared, nullptr);
    std::vector<float> src = {1, 2, 3};
    OrtValue* s = float_tensor(src, {3});
    OrtValue* d = nullptr;
    const int64_t shape[1] = {3};
    CAPI_OK(
        api()->CreateTensorAsOrtValue(shared, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &d));
    CAPI_OK(api()->CopyTensors(env(), &s, &d, nullptr, 1));
    EXPECT_EQ(floats(d), src);
    api()->ReleaseValue(s);
    api()->ReleaseValue(d);
  }
  EXPECT_TRUE(cpu);
}
