/* Calls entries spread over the OrtApi table (versions 1 to 26), the model
 * editor table and the compile table through the library named on the command line and prints what
 * each gives back. Run
 * against ONNX Runtime's own library and against Tessera's, the outputs must
 * agree (but for the version and build lines): an entry in the wrong slot
 * would answer differently, or crash. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "tessera/onnxruntime_c_api.h"

/* The code of a status (0 for success), which it releases. */
static int code_of(const OrtApi* a, OrtStatus* s) {
  int c = s ? (int)a->GetErrorCode(s) : 0;
  if (s) a->ReleaseStatus(s);
  return c;
}

static OrtStatus* ORT_API_CALL count_bytes(void* state, const void* buffer, size_t n) {
  (void)buffer;
  *(size_t*)state += n;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  const OrtApiBase* (*base)(void) = (const OrtApiBase* (*)(void))dlsym(h, "OrtGetApiBase");
  const OrtApi* a = base()->GetApi(30);
  printf("version %s\n", base()->GetVersionString());
  OrtStatus* s = a->CreateStatus(ORT_INVALID_GRAPH, "hello");
  printf("status code %d msg %s\n", a->GetErrorCode(s), a->GetErrorMessage(s));
  a->ReleaseStatus(s);
  printf("build info: %.40s\n", a->GetBuildInfoString());
  OrtKeyValuePairs* kv = NULL;
  a->CreateKeyValuePairs(&kv);
  a->AddKeyValuePair(kv, "k", "v");
  printf("kv k=%s\n", a->GetKeyValue(kv, "k"));
  a->ReleaseKeyValuePairs(kv);
  OrtMemoryInfo* m = NULL;
  a->CreateMemoryInfo_V2("X", OrtMemoryInfoDeviceType_GPU, 0x10DE, 0,
                         OrtDeviceMemoryType_HOST_ACCESSIBLE, 0, OrtDeviceAllocator, &m);
  if (m)
    printf("memtype %d vendor %x\n", a->MemoryInfoGetDeviceMemType(m), a->MemoryInfoGetVendorId(m));
  OrtTensorTypeAndShapeInfo* ti = NULL;
  a->CreateTensorTypeAndShapeInfo(&ti);
  printf("hasshape(empty) %d\n", a->TensorTypeAndShape_HasShape(ti));
  int64_t d[2] = {2, 3};
  a->SetDimensions(ti, d, 2);
  printf("hasshape(2d) %d\n", a->TensorTypeAndShape_HasShape(ti));
  printf("experimental(null name) %p\n", (void*)a->GetExperimentalFunction("no_such_function"));
  OrtRunOptions* ro = NULL;
  a->CreateRunOptions(&ro);
  a->AddRunConfigEntry(ro, "a.b", "c");
  printf("run config %s\n", a->GetRunConfigEntry(ro, "a.b"));
  OrtSessionOptions* so = NULL;
  a->CreateSessionOptions(&so);
  a->DisableMemPattern(so);
  int mp = -1;
  OrtStatus* st = a->GetMemPatternEnabled(so, &mp);
  printf("mem pattern %d (status %p)\n", mp, (void*)st);
  ExecutionMode em = 7;
  st = a->GetSessionExecutionMode(so, &em);
  printf("exec mode %d (status %p)\n", em, (void*)st);
  /* The model editor table (API 22): Y = X + W built in memory and run; the
   * caller's value-info pointers are taken (set to NULL). */
  const OrtModelEditorApi* ed = a->GetModelEditorApi();
  printf("model editor %s\n", ed ? "present" : "absent");
  if (ed) {
    OrtEnv* env = NULL;
    a->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "probe", &env);
    OrtTensorTypeAndShapeInfo* tsi = NULL;
    a->CreateTensorTypeAndShapeInfo(&tsi);
    a->SetTensorElementType(tsi, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
    int64_t dims[1] = {3};
    a->SetDimensions(tsi, dims, 1);
    OrtTypeInfo* tinfo = NULL;
    printf("tensor type info status %p\n", (void*)ed->CreateTensorTypeInfo(tsi, &tinfo));
    OrtValueInfo* x = NULL;
    OrtValueInfo* y = NULL;
    ed->CreateValueInfo("X", tinfo, &x);
    ed->CreateValueInfo("Y", tinfo, &y);
    OrtGraph* g = NULL;
    ed->CreateGraph(&g);
    ed->SetGraphInputs(g, &x, 1);
    ed->SetGraphOutputs(g, &y, 1);
    printf("value infos taken %d %d\n", x == NULL, y == NULL);
    OrtMemoryInfo* cpu = NULL;
    a->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu);
    float w[3] = {1, 2, 3};
    OrtValue* wv = NULL;
    a->CreateTensorWithDataAsOrtValue(cpu, w, sizeof w, dims, 1,
                                      ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &wv);
    printf("initializer status %p\n", (void*)ed->AddInitializerToGraph(g, "W", wv, false));
    const char* add_in[2] = {"X", "W"};
    const char* add_out[1] = {"Y"};
    int64_t axes[2] = {4, 5};
    OrtOpAttr* attr = NULL;
    a->CreateOpAttr("unused_ints", axes, 2, ORT_OP_ATTR_INTS, &attr);
    int64_t back[2] = {0, 0};
    size_t got = 0;
    a->ReadOpAttr(attr, ORT_OP_ATTR_INTS, back, sizeof back, &got);
    printf("op attr ints %lld %lld (%zu bytes)\n", (long long)back[0], (long long)back[1], got);
    a->ReleaseOpAttr(attr);
    OrtNode* n = NULL;
    ed->CreateNode("Add", "", "add", add_in, 2, add_out, 1, NULL, 0, &n);
    printf("node status %p\n", (void*)ed->AddNodeToGraph(g, n));
    const char* domains[1] = {""};
    int versions[1] = {17};
    OrtModel* model = NULL;
    ed->CreateModel(domains, versions, 1, &model);
    ed->AddGraphToModel(model, g);
    OrtSession* sess = NULL;
    st = ed->CreateSessionFromModel(env, model, so, &sess);
    printf("session status %p\n", (void*)st);
    if (sess) {
      float xs[3] = {10, 20, 30};
      OrtValue* xv = NULL;
      a->CreateTensorWithDataAsOrtValue(cpu, xs, sizeof xs, dims, 1,
                                        ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &xv);
      const char* in_names[1] = {"X"};
      const char* out_names[1] = {"Y"};
      OrtValue* yv = NULL;
      const OrtValue* ins[1] = {xv};
      a->Run(sess, NULL, in_names, ins, 1, out_names, 1, &yv);
      float* yp = NULL;
      if (yv) a->GetTensorMutableData(yv, (void**)&yp);
      if (yp) printf("editor model output %g %g %g\n", yp[0], yp[1], yp[2]);
      int opset = 0;
      ed->SessionGetOpsetForDomain(sess, "", &opset);
      printf("opset for '' %d\n", opset);
    }
    /* The compile table (API 22..29) over the same model: compiled to a
     * buffer that runs, to a write function, and refused for bad input. */
    const OrtCompileApi* c = a->GetCompileApi();
    printf("compile api %s\n", c ? "present" : "absent");
    if (c) {
      OrtModelCompilationOptions* co = NULL;
      printf("compile options %d\n",
             code_of(a, c->CreateModelCompilationOptionsFromSessionOptions(env, so, &co)));
      printf("compile without input %d\n", code_of(a, c->CompileModel(env, co)));
      printf("missing input path %d\n",
             code_of(a, c->ModelCompilationOptions_SetInputModelPath(co, "/no/such/model.onnx")));
      printf("compile missing input %d\n", code_of(a, c->CompileModel(env, co)));
      printf("bad level %d\n", code_of(a, c->ModelCompilationOptions_SetGraphOptimizationLevel(
                                              co, (GraphOptimizationLevel)42)));
      c->ModelCompilationOptions_SetInputModel(co, model);
      OrtAllocator* alloc = NULL;
      a->GetAllocatorWithDefaultOptions(&alloc);
      void* buf = NULL;
      size_t len = 0;
      c->ModelCompilationOptions_SetOutputModelBuffer(co, alloc, &buf, &len);
      int code = code_of(a, c->CompileModel(env, co));
      printf("compile to buffer %d (bytes %d)\n", code, len > 0);
      OrtSession* compiled = NULL;
      if (buf) a->CreateSessionFromArray(env, buf, len, so, &compiled);
      if (compiled) {
        float xs[3] = {1, 1, 1};
        OrtValue* xv = NULL;
        a->CreateTensorWithDataAsOrtValue(cpu, xs, sizeof xs, dims, 1,
                                          ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &xv);
        const char* in_names[1] = {"X"};
        const char* out_names[1] = {"Y"};
        const OrtValue* ins[1] = {xv};
        OrtValue* yv = NULL;
        a->Run(compiled, NULL, in_names, ins, 1, out_names, 1, &yv);
        float* yp = NULL;
        if (yv) a->GetTensorMutableData(yv, (void**)&yp);
        if (yp) printf("compiled model output %g %g %g\n", yp[0], yp[1], yp[2]);
      }
      size_t written = 0;
      c->ModelCompilationOptions_SetOutputModelWriteFunc(co, count_bytes, &written);
      code = code_of(a, c->CompileModel(env, co));
      printf("compile to write function %d (bytes %d)\n", code, written > 0);
      c->ModelCompilationOptions_SetFlags(co, OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED);
      printf("nothing compiled %d\n", code_of(a, c->CompileModel(env, co)));
      const char* exists = "/tmp/tessera_abi_probe_exists.onnx";
      FILE* f = fopen(exists, "w");
      if (f) {
        fputs("x", f);
        fclose(f);
      }
      c->ModelCompilationOptions_SetOutputModelPath(co, exists);
      c->ModelCompilationOptions_SetFlags(co, OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_EXISTS);
      printf("output exists %d\n", code_of(a, c->CompileModel(env, co)));
      remove(exists);
      c->ReleaseModelCompilationOptions(co);
    }
  }
  /* Parts of ONNX Runtime built only on request: absent in both. */
  printf("extensions custom ops %d, with NULL %d\n", code_of(a, a->EnableOrtCustomOps(so)),
         code_of(a, a->EnableOrtCustomOps(NULL)));
  const void* provider_api = &provider_api;
  int code = code_of(a, a->GetExecutionProviderApi("DML", 1, &provider_api));
  printf("provider api %d (table %s)\n", code,
         provider_api == NULL            ? "NULL"
         : provider_api == &provider_api ? "untouched"
                                         : "set");
  printf("training api %p\n", (const void*)a->GetTrainingApi(30));
  return 0;
}
