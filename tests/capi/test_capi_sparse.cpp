// Sparse tensors through the C API: filled with copies or over the
// application's buffers, read back by format, and fed to a model that takes
// one, whose sparse output comes back sparse.
#include <cstring>
#include <vector>

#include "capi_test_util.hpp"

using namespace capi_test;

namespace {

// CAPI_OK asserts, which only void functions may; helpers that return
// values check with this instead.
#define EXPECT_OK(expr)                                                    \
  do {                                                                     \
    auto expect_r = result(expr);                                          \
    EXPECT_EQ(expect_r.first, ORT_OK) << #expr << ": " << expect_r.second; \
  } while (0)

OrtMemoryInfo* cpu_info() {
  OrtMemoryInfo* info = nullptr;
  EXPECT_OK(api()->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &info));
  return info;
}

OrtAllocator* allocator() {
  OrtAllocator* a = nullptr;
  EXPECT_OK(api()->GetAllocatorWithDefaultOptions(&a));
  return a;
}

template <typename T>
std::vector<T> indices_of(const OrtValue* v, OrtSparseIndicesFormat f) {
  size_t n = 0;
  const void* p = nullptr;
  EXPECT_OK(api()->GetSparseTensorIndices(v, f, &n, &p));
  const T* t = static_cast<const T*>(p);
  return std::vector<T>(t, t + n);
}

std::vector<int64_t> shape_of_info(OrtTensorTypeAndShapeInfo* info) {
  size_t n = 0;
  EXPECT_OK(api()->GetDimensionsCount(info, &n));
  std::vector<int64_t> dims(n);
  EXPECT_OK(api()->GetDimensions(info, dims.data(), n));
  api()->ReleaseTensorTypeAndShapeInfo(info);
  return dims;
}

}  // namespace

TEST(CApiSparse, CooFilledWithCopiesReadsBack) {
  const int64_t dense[] = {3, 4};
  OrtValue* v = nullptr;
  CAPI_OK(api()->CreateSparseTensorAsOrtValue(allocator(), dense, 2,
                                              ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v));
  int is_sparse = 0;
  CAPI_OK(api()->IsSparseTensor(v, &is_sparse));
  EXPECT_EQ(is_sparse, 1);
  const float values[] = {1.5f, -2.0f, 3.0f};
  const int64_t nnz[] = {3};
  const int64_t coords[] = {0, 1, 1, 3, 2, 0};  // [nnz, rank] coordinates
  OrtMemoryInfo* info = cpu_info();
  CAPI_OK(api()->FillSparseTensorCoo(v, info, nnz, 1, values, coords, 6));
  OrtSparseFormat format = ORT_SPARSE_UNDEFINED;
  CAPI_OK(api()->GetSparseTensorFormat(v, &format));
  EXPECT_EQ(format, ORT_SPARSE_COO);
  const void* vals = nullptr;
  CAPI_OK(api()->GetSparseTensorValues(v, &vals));
  EXPECT_NE(vals, static_cast<const void*>(values));  // a copy
  EXPECT_EQ(static_cast<const float*>(vals)[1], -2.0f);
  EXPECT_EQ(indices_of<int64_t>(v, ORT_SPARSE_COO_INDICES),
            std::vector<int64_t>(coords, coords + 6));
  OrtTensorTypeAndShapeInfo* ti = nullptr;
  CAPI_OK(api()->GetSparseTensorIndicesTypeShape(v, ORT_SPARSE_COO_INDICES, &ti));
  EXPECT_EQ(shape_of_info(ti), (std::vector<int64_t>{3, 2}));
  CAPI_OK(api()->GetSparseTensorValuesTypeAndShape(v, &ti));
  EXPECT_EQ(shape_of_info(ti), (std::vector<int64_t>{3}));
  CAPI_OK(api()->GetTensorTypeAndShape(v, &ti));  // the dense shape
  EXPECT_EQ(shape_of_info(ti), (std::vector<int64_t>{3, 4}));
  ONNXType type = ONNX_TYPE_UNKNOWN;
  CAPI_OK(api()->GetValueType(v, &type));
  EXPECT_EQ(type, ONNX_TYPE_SPARSETENSOR);
  auto r = result(api()->GetSparseTensorIndices(v, ORT_SPARSE_CSR_INNER_INDICES, nullptr, &vals));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  size_t n = 0;
  r = result(api()->GetSparseTensorIndices(v, ORT_SPARSE_CSR_INNER_INDICES, &n, &vals));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("CSR indices asked of a COO"), std::string::npos) << r.second;
  api()->ReleaseMemoryInfo(info);
  api()->ReleaseValue(v);
}

TEST(CApiSparse, IndicesOutsideTheDenseShapeAreRefusedByName) {
  const int64_t dense[] = {2, 2};
  OrtValue* v = nullptr;
  CAPI_OK(api()->CreateSparseTensorAsOrtValue(allocator(), dense, 2,
                                              ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v));
  OrtMemoryInfo* info = cpu_info();
  const float values[] = {1, 2};
  const int64_t nnz[] = {2};
  const int64_t linear[] = {1, 4};
  auto r = result(api()->FillSparseTensorCoo(v, info, nnz, 1, values, linear, 2));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("COO index 4"), std::string::npos) << r.second;
  r = result(api()->FillSparseTensorCoo(v, info, nnz, 1, values, linear, 3));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("3 given for 2 values"), std::string::npos) << r.second;
  const int64_t inner[] = {0, 1}, bad_outer[] = {0, 2, 1};
  r = result(api()->FillSparseTensorCsr(v, info, nnz, 1, values, inner, 2, bad_outer, 3));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  OrtSparseFormat format = ORT_SPARSE_COO;
  CAPI_OK(api()->GetSparseTensorFormat(v, &format));
  EXPECT_EQ(format, ORT_SPARSE_UNDEFINED);  // a failed fill leaves the value as it was
  OrtValue* dense_value = nullptr;
  const int64_t shape[] = {2};
  CAPI_OK(api()->CreateTensorAsOrtValue(allocator(), shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                        &dense_value));
  r = result(api()->GetSparseTensorFormat(dense_value, &format));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("not a sparse tensor"), std::string::npos) << r.second;
  api()->ReleaseValue(dense_value);
  api()->ReleaseMemoryInfo(info);
  api()->ReleaseValue(v);
}

TEST(CApiSparse, CsrAndBlockSparseOverTheApplicationsBuffers) {
  OrtMemoryInfo* info = cpu_info();
  float values[] = {1, 2, 3};
  const int64_t dense[] = {2, 3}, vshape[] = {3};
  OrtValue* v = nullptr;
  CAPI_OK(api()->CreateSparseTensorWithValuesAsOrtValue(info, values, dense, 2, vshape, 1,
                                                        ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v));
  int64_t inner[] = {0, 2, 1}, outer[] = {0, 2, 3};
  CAPI_OK(api()->UseCsrIndices(v, inner, 3, outer, 3));
  const void* p = nullptr;
  CAPI_OK(api()->GetSparseTensorValues(v, &p));
  EXPECT_EQ(p, static_cast<const void*>(values));  // no copy
  size_t n = 0;
  CAPI_OK(api()->GetSparseTensorIndices(v, ORT_SPARSE_CSR_OUTER_INDICES, &n, &p));
  EXPECT_EQ(p, static_cast<const void*>(outer));
  EXPECT_EQ(n, 3u);
  api()->ReleaseValue(v);

  float blocks[] = {1, 2, 3, 4, 5, 6, 7, 8};  // two 2x2 blocks
  const int64_t bdense[] = {4, 4}, bshape[] = {2, 2, 2}, ishape[] = {2, 2};
  int32_t where[] = {0, 1, 1, 0};  // block rows {0, 1}, block cols {1, 0}
  CAPI_OK(api()->CreateSparseTensorWithValuesAsOrtValue(info, blocks, bdense, 2, bshape, 3,
                                                        ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v));
  CAPI_OK(api()->UseBlockSparseIndices(v, ishape, 2, where));
  EXPECT_EQ(indices_of<int32_t>(v, ORT_SPARSE_BLOCK_SPARSE_INDICES),
            (std::vector<int32_t>{0, 1, 1, 0}));
  int32_t outside[] = {0, 2, 1, 0};  // block column 2 of a 4-wide tensor of 2-wide blocks
  auto r = result(api()->UseBlockSparseIndices(v, ishape, 2, outside));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("lies outside"), std::string::npos) << r.second;
  api()->ReleaseValue(v);
  api()->ReleaseMemoryInfo(info);
}

TEST(CApiSparse, AModelTakesASparseInputAndReturnsItSparse) {
  OrtSession* s = open_session("sparse_matmul.onnx");
  ASSERT_NE(s, nullptr);
  OrtTypeInfo* ti = nullptr;
  CAPI_OK(api()->SessionGetInputTypeInfo(s, 0, &ti));
  ONNXType type = ONNX_TYPE_UNKNOWN;
  CAPI_OK(api()->GetOnnxTypeFromTypeInfo(ti, &type));
  EXPECT_EQ(type, ONNX_TYPE_SPARSETENSOR);
  api()->ReleaseTypeInfo(ti);

  // a = [[0 2 0 0] [0 0 0 -1] [3 0 0 0]] in CSR; b = 4x2 of 1..8.
  OrtMemoryInfo* info = cpu_info();
  float a_values[] = {2, -1, 3};
  int64_t inner[] = {1, 3, 0}, outer[] = {0, 1, 2, 3};
  const int64_t dense[] = {3, 4}, vshape[] = {3};
  OrtValue* a = nullptr;
  CAPI_OK(api()->CreateSparseTensorWithValuesAsOrtValue(info, a_values, dense, 2, vshape, 1,
                                                        ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &a));
  CAPI_OK(api()->UseCsrIndices(a, inner, 3, outer, 4));
  float b_values[] = {1, 2, 3, 4, 5, 6, 7, 8};
  const int64_t bshape[] = {4, 2};
  OrtValue* b = nullptr;
  CAPI_OK(api()->CreateTensorWithDataAsOrtValue(info, b_values, sizeof(b_values), bshape, 2,
                                                ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &b));
  const char* in_names[] = {"a", "b"};
  const char* out_names[] = {"y", "a"};
  const OrtValue* inputs[] = {a, b};
  OrtValue* outputs[2] = {nullptr, nullptr};
  CAPI_OK(api()->Run(s, nullptr, in_names, inputs, 2, out_names, 2, outputs));
  float* y = nullptr;
  CAPI_OK(api()->GetTensorMutableData(outputs[0], reinterpret_cast<void**>(&y)));
  const float want[] = {6, 8, -7, -8, 3, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], want[i]) << i;
  int is_sparse = 0;
  CAPI_OK(api()->IsSparseTensor(outputs[1], &is_sparse));
  EXPECT_EQ(is_sparse, 1);

  // A dense tensor where the model declares a sparse one is refused by name.
  const OrtValue* wrong[] = {b, b};
  OrtValue* none[1] = {nullptr};
  auto r = result(api()->Run(s, nullptr, in_names, wrong, 2, out_names, 1, none));
  EXPECT_EQ(r.first, ORT_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("input 'a' expects sparse_tensor(float)"), std::string::npos) << r.second;
  for (OrtValue* o : outputs) api()->ReleaseValue(o);
  api()->ReleaseValue(a);
  api()->ReleaseValue(b);
  api()->ReleaseMemoryInfo(info);
  api()->ReleaseSession(s);
}
