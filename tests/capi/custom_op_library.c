/* A custom-op library written the way ONNX Runtime's are: built against
 * onnxruntime_c_api.h only, it exports RegisterCustomOps, which adds the
 * domain "test.customops" with four ops:
 *   ScaleAdd(X, B) -> X * alpha + B         float, attribute alpha; an
 *                                            OrtCustomOp of version 1
 *   Sum(X...) -> X0 + X1 + ...              variadic (at least 2, one type,
 *                                            any type), float and int32
 *   AddOptional(X, [B]) -> X + B or X       optional input, any type in
 *                                            and out (float)
 *   CheckedSqrt(X) -> sqrt(X)               float, status-returning (V2):
 *                                            a negative element is an error */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/onnxruntime_c_api.h"

static const OrtApi* g_api;

#define RETURN_IF_ERROR(expr)            \
  do {                                   \
    OrtStatus* status_ = (expr);         \
    if (status_ != NULL) return status_; \
  } while (0)

/* Element count and type of a value; NULL on success. */
static OrtStatus* tensor_info(const OrtValue* v, size_t* count, ONNXTensorElementDataType* type,
                              int64_t* dims, size_t* rank) {
  OrtTensorTypeAndShapeInfo* info = NULL;
  RETURN_IF_ERROR(g_api->GetTensorTypeAndShape(v, &info));
  OrtStatus* st = g_api->GetTensorShapeElementCount(info, count);
  if (!st && type) st = g_api->GetTensorElementType(info, type);
  if (!st && dims) {
    st = g_api->GetDimensionsCount(info, rank);
    if (!st && *rank > 8) st = g_api->CreateStatus(ORT_INVALID_ARGUMENT, "rank above 8");
    if (!st) st = g_api->GetDimensions(info, dims, *rank);
  }
  g_api->ReleaseTensorTypeAndShapeInfo(info);
  return st;
}

/* Output `index` shaped like input value `like`. */
static OrtStatus* output_like(OrtKernelContext* ctx, size_t index, const OrtValue* like,
                              OrtValue** out) {
  int64_t dims[8];
  size_t rank = 0, count = 0;
  RETURN_IF_ERROR(tensor_info(like, &count, NULL, dims, &rank));
  return g_api->KernelContext_GetOutput(ctx, index, dims, rank, out);
}

/* ---- ScaleAdd (OrtCustomOp version 1: no later member is read) ---- */

typedef struct {
  float alpha;
} ScaleAddKernel;

static void* ORT_API_CALL scale_add_create(const OrtCustomOp* op, const OrtApi* api,
                                           const OrtKernelInfo* info) {
  (void)op;
  ScaleAddKernel* k = (ScaleAddKernel*)calloc(1, sizeof(ScaleAddKernel));
  OrtStatus* st = api->KernelInfoGetAttribute_float(info, "alpha", &k->alpha);
  if (st) { /* alpha defaults to 1 */
    api->ReleaseStatus(st);
    k->alpha = 1.0f;
  }
  return k;
}

static void ORT_API_CALL scale_add_compute(void* kernel, OrtKernelContext* ctx) {
  const ScaleAddKernel* k = (const ScaleAddKernel*)kernel;
  const OrtValue *x = NULL, *b = NULL;
  OrtValue* y = NULL;
  size_t n = 0, nb = 0;
  if (g_api->KernelContext_GetInput(ctx, 0, &x) || g_api->KernelContext_GetInput(ctx, 1, &b))
    return;
  if (tensor_info(x, &n, NULL, NULL, NULL) || tensor_info(b, &nb, NULL, NULL, NULL)) return;
  if (output_like(ctx, 0, x, &y)) return;
  const float *px = NULL, *pb = NULL;
  float* py = NULL;
  g_api->GetTensorData(x, (const void**)&px);
  g_api->GetTensorData(b, (const void**)&pb);
  g_api->GetTensorMutableData(y, (void**)&py);
  for (size_t i = 0; i < n; ++i) py[i] = px[i] * k->alpha + pb[nb == n ? i : 0];
}

static void ORT_API_CALL destroy_kernel(void* kernel) { free(kernel); }
static const char* ORT_API_CALL scale_add_name(const OrtCustomOp* op) {
  (void)op;
  return "ScaleAdd";
}
static ONNXTensorElementDataType ORT_API_CALL float_type(const OrtCustomOp* op, size_t i) {
  (void)op;
  (void)i;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
static ONNXTensorElementDataType ORT_API_CALL any_type(const OrtCustomOp* op, size_t i) {
  (void)op;
  (void)i;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}
static size_t ORT_API_CALL one(const OrtCustomOp* op) {
  (void)op;
  return 1;
}
static size_t ORT_API_CALL two(const OrtCustomOp* op) {
  (void)op;
  return 2;
}

/* ---- Sum: one variadic input of any (one) type ---- */

static void* ORT_API_CALL no_state_create(const OrtCustomOp* op, const OrtApi* api,
                                          const OrtKernelInfo* info) {
  (void)op;
  (void)api;
  (void)info;
  return calloc(1, 1);
}

static void ORT_API_CALL sum_compute(void* kernel, OrtKernelContext* ctx) {
  (void)kernel;
  size_t inputs = 0, n = 0;
  const OrtValue* x0 = NULL;
  OrtValue* y = NULL;
  ONNXTensorElementDataType type;
  g_api->KernelContext_GetInputCount(ctx, &inputs);
  if (g_api->KernelContext_GetInput(ctx, 0, &x0) || tensor_info(x0, &n, &type, NULL, NULL)) return;
  if (output_like(ctx, 0, x0, &y)) return;
  void* out = NULL;
  g_api->GetTensorMutableData(y, &out);
  for (size_t i = 0; i < n; ++i) {
    if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
      ((float*)out)[i] = 0;
    else
      ((int32_t*)out)[i] = 0;
  }
  for (size_t k = 0; k < inputs; ++k) {
    const OrtValue* x = NULL;
    const void* in = NULL;
    g_api->KernelContext_GetInput(ctx, k, &x);
    g_api->GetTensorData(x, &in);
    for (size_t i = 0; i < n; ++i) {
      if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
        ((float*)out)[i] += ((const float*)in)[i];
      else
        ((int32_t*)out)[i] += ((const int32_t*)in)[i];
    }
  }
}

static const char* ORT_API_CALL sum_name(const OrtCustomOp* op) {
  (void)op;
  return "Sum";
}
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL variadic(const OrtCustomOp* op, size_t i) {
  (void)op;
  (void)i;
  return INPUT_OUTPUT_VARIADIC;
}
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL required(const OrtCustomOp* op, size_t i) {
  (void)op;
  (void)i;
  return INPUT_OUTPUT_REQUIRED;
}
static int ORT_API_CALL min_arity_two(const OrtCustomOp* op) {
  (void)op;
  return 2;
}
static int ORT_API_CALL yes(const OrtCustomOp* op) {
  (void)op;
  return 1;
}
static int ORT_API_CALL min_arity_one(const OrtCustomOp* op) {
  (void)op;
  return 1;
}

/* ---- AddOptional: X + B, B optional ---- */

static void ORT_API_CALL add_optional_compute(void* kernel, OrtKernelContext* ctx) {
  (void)kernel;
  const OrtValue *x = NULL, *b = NULL;
  OrtValue* y = NULL;
  size_t n = 0, nb = 0, inputs = 0;
  g_api->KernelContext_GetInputCount(ctx, &inputs);
  g_api->KernelContext_GetInput(ctx, 0, &x);
  if (inputs > 1) g_api->KernelContext_GetInput(ctx, 1, &b);
  if (tensor_info(x, &n, NULL, NULL, NULL) || output_like(ctx, 0, x, &y)) return;
  const float *px = NULL, *pb = NULL;
  float* py = NULL;
  g_api->GetTensorData(x, (const void**)&px);
  if (b) {
    tensor_info(b, &nb, NULL, NULL, NULL);
    g_api->GetTensorData(b, (const void**)&pb);
  }
  g_api->GetTensorMutableData(y, (void**)&py);
  for (size_t i = 0; i < n; ++i) py[i] = px[i] + (pb ? pb[nb == n ? i : 0] : 0.0f);
}

static const char* ORT_API_CALL add_optional_name(const OrtCustomOp* op) {
  (void)op;
  return "AddOptional";
}
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL second_optional(const OrtCustomOp* op,
                                                                         size_t i) {
  (void)op;
  return i == 1 ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
}

/* ---- CheckedSqrt: status-returning create and compute (version 16) ---- */

typedef struct {
  char node[64];
  int64_t tolerance_bits;
} SqrtKernel;

static OrtStatusPtr ORT_API_CALL sqrt_create_v2(const OrtCustomOp* op, const OrtApi* api,
                                                const OrtKernelInfo* info, void** kernel) {
  (void)op;
  SqrtKernel* k = (SqrtKernel*)calloc(1, sizeof(SqrtKernel));
  size_t size = sizeof(k->node);
  OrtStatus* st = api->KernelInfo_GetNodeName(info, k->node, &size);
  if (st) {
    free(k);
    return st;
  }
  const OrtLogger* logger = NULL;
  RETURN_IF_ERROR(api->KernelInfo_GetLogger(info, &logger));
  RETURN_IF_ERROR(api->Logger_LogMessage(logger, ORT_LOGGING_LEVEL_INFO, "CheckedSqrt kernel made",
                                         __FILE__, __LINE__, "sqrt_create_v2"));
  *kernel = k;
  return NULL;
}

static OrtStatusPtr ORT_API_CALL sqrt_compute_v2(void* kernel, OrtKernelContext* ctx) {
  const SqrtKernel* k = (const SqrtKernel*)kernel;
  const OrtValue* x = NULL;
  OrtValue* y = NULL;
  size_t n = 0;
  RETURN_IF_ERROR(g_api->KernelContext_GetInput(ctx, 0, &x));
  RETURN_IF_ERROR(tensor_info(x, &n, NULL, NULL, NULL));
  RETURN_IF_ERROR(output_like(ctx, 0, x, &y));
  const float* px = NULL;
  float* py = NULL;
  RETURN_IF_ERROR(g_api->GetTensorData(x, (const void**)&px));
  RETURN_IF_ERROR(g_api->GetTensorMutableData(y, (void**)&py));
  for (size_t i = 0; i < n; ++i) {
    if (px[i] < 0) {
      char message[160];
      snprintf(message, sizeof message, "CheckedSqrt '%s': element %zu is negative (%g)", k->node,
               i, (double)px[i]);
      return g_api->CreateStatus(ORT_INVALID_ARGUMENT, message);
    }
    py[i] = sqrtf(px[i]);
  }
  return NULL;
}

static const char* ORT_API_CALL sqrt_name(const OrtCustomOp* op) {
  (void)op;
  return "CheckedSqrt";
}

/* ScaleAdd is built as a library of ONNX Runtime 1.1 would build it: the
 * struct ends after KernelDestroy, so reading a later member reads past the
 * allocation (which the sanitizer build reports). */
static const OrtCustomOp* g_scale_add;
static OrtCustomOp g_sum, g_add_optional, g_sqrt;

/* The runtime unloads the library once no session options or session use
 * its ops. */
__attribute__((destructor)) static void free_ops(void) { free((void*)g_scale_add); }

static void init_ops(void) {
  if (!g_scale_add) {
    OrtCustomOp op;
    memset(&op, 0, sizeof op);
    op.version = 1;
    op.CreateKernel = scale_add_create;
    op.GetName = scale_add_name;
    op.GetInputType = float_type;
    op.GetInputTypeCount = two;
    op.GetOutputType = float_type;
    op.GetOutputTypeCount = one;
    op.KernelCompute = scale_add_compute;
    op.KernelDestroy = destroy_kernel;
    const size_t v1_size = offsetof(OrtCustomOp, GetInputCharacteristic);
    void* prefix = malloc(v1_size);
    memcpy(prefix, &op, v1_size);
    g_scale_add = (const OrtCustomOp*)prefix;
  }

  memset(&g_sum, 0, sizeof g_sum);
  g_sum.version = 14;
  g_sum.CreateKernel = no_state_create;
  g_sum.GetName = sum_name;
  g_sum.GetInputType = any_type;
  g_sum.GetInputTypeCount = one;
  g_sum.GetOutputType = any_type;
  g_sum.GetOutputTypeCount = one;
  g_sum.KernelCompute = sum_compute;
  g_sum.KernelDestroy = destroy_kernel;
  g_sum.GetInputCharacteristic = variadic;
  g_sum.GetOutputCharacteristic = required;
  g_sum.GetVariadicInputMinArity = min_arity_two;
  g_sum.GetVariadicInputHomogeneity = yes;
  g_sum.GetVariadicOutputMinArity = min_arity_one;
  g_sum.GetVariadicOutputHomogeneity = yes;

  memset(&g_add_optional, 0, sizeof g_add_optional);
  g_add_optional.version = ORT_API_VERSION;
  g_add_optional.CreateKernel = no_state_create;
  g_add_optional.GetName = add_optional_name;
  g_add_optional.GetInputType = any_type;
  g_add_optional.GetInputTypeCount = two;
  g_add_optional.GetOutputType = any_type;
  g_add_optional.GetOutputTypeCount = one;
  g_add_optional.KernelCompute = add_optional_compute;
  g_add_optional.KernelDestroy = destroy_kernel;
  g_add_optional.GetInputCharacteristic = second_optional;
  g_add_optional.GetOutputCharacteristic = required;

  memset(&g_sqrt, 0, sizeof g_sqrt);
  g_sqrt.version = 16;
  g_sqrt.GetName = sqrt_name;
  g_sqrt.GetInputType = float_type;
  g_sqrt.GetInputTypeCount = one;
  g_sqrt.GetOutputType = float_type;
  g_sqrt.GetOutputTypeCount = one;
  g_sqrt.KernelDestroy = destroy_kernel;
  g_sqrt.GetInputCharacteristic = required;
  g_sqrt.GetOutputCharacteristic = required;
  g_sqrt.CreateKernelV2 = sqrt_create_v2;
  g_sqrt.KernelComputeV2 = sqrt_compute_v2;
}

ORT_EXPORT OrtStatus* ORT_API_CALL RegisterCustomOps(OrtSessionOptions* options,
                                                     const OrtApiBase* api_base) {
  g_api = api_base->GetApi(ORT_API_VERSION);
  if (!g_api) return NULL;
  init_ops();
  OrtCustomOpDomain* domain = NULL;
  RETURN_IF_ERROR(g_api->CreateCustomOpDomain("test.customops", &domain));
  const OrtCustomOp* ops[] = {g_scale_add, &g_sum, &g_add_optional, &g_sqrt};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; ++i) {
    OrtStatus* st = g_api->CustomOpDomain_Add(domain, ops[i]);
    if (st) {
      g_api->ReleaseCustomOpDomain(domain);
      return st;
    }
  }
  OrtStatus* st = g_api->AddCustomOpDomain(options, domain);
  /* Tessera copies what it needs from the domain (ONNX Runtime would need it
   * kept until the sessions go). */
  g_api->ReleaseCustomOpDomain(domain);
  return st;
}
