/* Calls entries spread over the OrtApi table (versions 1 to 26) through the
 * library named on the command line and prints what each gives back. Run
 * against ONNX Runtime's own library and against Tessera's, the outputs must
 * agree (but for the version and build lines): an entry in the wrong slot
 * would answer differently, or crash. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "tessera/onnxruntime_c_api.h"
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
  return 0;
}
