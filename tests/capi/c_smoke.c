/* The C ABI from C: the header compiles as C, and a program written the way
 * C programs use ONNX Runtime loads a model, runs it and reads its output. */
#include <stdio.h>
#include <stdlib.h>

#include "tessera/onnxruntime_c_api.h"

static const OrtApi* g_api;

static int fail_on(OrtStatus* s, const char* what) {
  if (s == NULL) return 0;
  fprintf(stderr, "%s: %s\n", what, g_api->GetErrorMessage(s));
  g_api->ReleaseStatus(s);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_smoke MODEL (add_mul.onnx)\n");
    return 2;
  }
  g_api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = NULL;
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  OrtMemoryInfo* cpu = NULL;
  OrtValue* inputs[2] = {NULL, NULL};
  OrtValue* output = NULL;
  float x[3] = {1, 2, 3}, y[3] = {0.5f, 0.5f, 0.5f};
  const int64_t shape[2] = {1, 3};
  const char* in_names[2] = {"x", "y"};
  const char* out_names[1] = {"sum"};
  float* sum = NULL;
  int bad = 0;
  bad = bad || fail_on(g_api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "c_smoke", &env), "CreateEnv");
  bad = bad || fail_on(g_api->CreateSessionOptions(&options), "CreateSessionOptions");
  bad = bad || fail_on(g_api->SetIntraOpNumThreads(options, 1), "SetIntraOpNumThreads");
  bad = bad || fail_on(g_api->CreateSession(env, argv[1], options, &session), "CreateSession");
  bad = bad || fail_on(g_api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu),
                       "CreateCpuMemoryInfo");
  bad = bad ||
        fail_on(g_api->CreateTensorWithDataAsOrtValue(
                    cpu, x, sizeof x, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &inputs[0]),
                "x");
  bad = bad ||
        fail_on(g_api->CreateTensorWithDataAsOrtValue(
                    cpu, y, sizeof y, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &inputs[1]),
                "y");
  bad = bad || fail_on(g_api->Run(session, NULL, in_names, (const OrtValue* const*)inputs, 2,
                                  out_names, 1, &output),
                       "Run");
  bad = bad || fail_on(g_api->GetTensorMutableData(output, (void**)&sum), "GetTensorMutableData");
  if (!bad && (sum[0] != 1.5f || sum[1] != 2.5f || sum[2] != 3.5f)) {
    fprintf(stderr, "wrong sum: %g %g %g\n", sum[0], sum[1], sum[2]);
    bad = 1;
  }
  g_api->ReleaseValue(output);
  g_api->ReleaseValue(inputs[0]);
  g_api->ReleaseValue(inputs[1]);
  g_api->ReleaseMemoryInfo(cpu);
  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);
  g_api->ReleaseEnv(env);
  if (!bad) printf("c_smoke: ok\n");
  return bad;
}
