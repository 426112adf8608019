/* Runs a model with execution providers appended in order, each with its
 * options and the CPU provider last, through ONNX Runtime's C API as Tessera
 * serves it. Prints each output and checks it against a session that runs on
 * the CPU provider alone; exits 1 on any error or mismatch.
 *
 *   c_providers MODEL [--plugin NAME=LIBRARY]... [PROVIDER[:KEY=VALUE[,KEY=VALUE]...]]...
 *
 * e.g. c_providers model.onnx --plugin sandbox=libtessera_sandbox_ep.so
 *        SandboxExecutionProvider:fuse=0
 *
 * Written the way ONNX Runtime programs are (<onnxruntime_c_api.h>, found in
 * <prefix>/include/onnxruntime): it builds unchanged against either library.
 * Inputs must be float tensors; symbolic dimensions are taken as 1. */
#include <math.h>
#include <onnxruntime_c_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTIONS 16
#define MAX_VALUES 16

static const OrtApi* ort;

/* Any failed call ends the program with the runtime's message. */
static void check(OrtStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "c_providers: %s: %s\n", what, ort->GetErrorMessage(status));
  ort->ReleaseStatus(status);
  exit(1);
}

/* "NAME:k=v,k=v" -> SessionOptionsAppendExecutionProvider(NAME, {k}, {v}). */
static void append_provider(OrtSessionOptions* options, char* spec) {
  const char* keys[MAX_OPTIONS] = {NULL};
  const char* values[MAX_OPTIONS] = {NULL};
  size_t n = 0;
  char* colon = strchr(spec, ':');
  if (colon != NULL) {
    *colon = '\0';
    for (char* kv = strtok(colon + 1, ","); kv != NULL && n < MAX_OPTIONS; kv = strtok(NULL, ",")) {
      char* eq = strchr(kv, '=');
      if (eq == NULL) {
        fprintf(stderr, "c_providers: option '%s' of %s is not KEY=VALUE\n", kv, spec);
        exit(2);
      }
      *eq = '\0';
      keys[n] = kv;
      values[n] = eq + 1;
      ++n;
    }
  }
  check(ort->SessionOptionsAppendExecutionProvider(options, spec, keys, values, n), spec);
  printf("provider %s", spec);
  for (size_t i = 0; i < n; ++i) printf("%s%s=%s", i == 0 ? " (" : ", ", keys[i], values[i]);
  printf("%s\n", n > 0 ? ")" : "");
}

/* Every input as a float tensor of deterministic values; returns the count. */
static size_t make_inputs(OrtSession* session, OrtAllocator* allocator, char** names,
                          OrtValue** values) {
  size_t count = 0;
  check(ort->SessionGetInputCount(session, &count), "SessionGetInputCount");
  if (count > MAX_VALUES) count = MAX_VALUES;
  for (size_t i = 0; i < count; ++i) {
    OrtTypeInfo* type = NULL;
    const OrtTensorTypeAndShapeInfo* tensor = NULL;
    ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    int64_t shape[8];
    size_t rank = 0;
    check(ort->SessionGetInputName(session, i, allocator, &names[i]), "SessionGetInputName");
    check(ort->SessionGetInputTypeInfo(session, i, &type), "SessionGetInputTypeInfo");
    check(ort->CastTypeInfoToTensorInfo(type, &tensor), "CastTypeInfoToTensorInfo");
    check(ort->GetTensorElementType(tensor, &element), "GetTensorElementType");
    check(ort->GetDimensionsCount(tensor, &rank), "GetDimensionsCount");
    if (element != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || rank > 8) {
      fprintf(stderr, "c_providers: input '%s' is not a float tensor of rank <= 8\n", names[i]);
      exit(1);
    }
    check(ort->GetDimensions(tensor, shape, rank), "GetDimensions");
    ort->ReleaseTypeInfo(type);
    for (size_t d = 0; d < rank; ++d)
      if (shape[d] < 1) shape[d] = 1; /* a symbolic dimension */
    check(ort->CreateTensorAsOrtValue(allocator, shape, rank, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                      &values[i]),
          "CreateTensorAsOrtValue");
    float* data = NULL;
    size_t elements = 0;
    OrtTensorTypeAndShapeInfo* info = NULL;
    check(ort->GetTensorMutableData(values[i], (void**)&data), "GetTensorMutableData");
    check(ort->GetTensorTypeAndShape(values[i], &info), "GetTensorTypeAndShape");
    check(ort->GetTensorShapeElementCount(info, &elements), "GetTensorShapeElementCount");
    ort->ReleaseTensorTypeAndShapeInfo(info);
    for (size_t k = 0; k < elements; ++k) data[k] = (float)sin(0.37 * (double)k + (double)i);
  }
  return count;
}

/* Runs `session` on `inputs`, returning every output (by the session's names). */
static size_t run(OrtSession* session, OrtAllocator* allocator, char** in_names, OrtValue** inputs,
                  size_t n_in, OrtValue** outputs, char** out_names) {
  size_t n_out = 0;
  check(ort->SessionGetOutputCount(session, &n_out), "SessionGetOutputCount");
  if (n_out > MAX_VALUES) n_out = MAX_VALUES;
  for (size_t i = 0; i < n_out; ++i) {
    check(ort->SessionGetOutputName(session, i, allocator, &out_names[i]), "SessionGetOutputName");
    outputs[i] = NULL;
  }
  check(ort->Run(session, NULL, (const char* const*)in_names, (const OrtValue* const*)inputs, n_in,
                 (const char* const*)out_names, n_out, outputs),
        "Run");
  return n_out;
}

/* Prints the output and returns how many elements differ from the reference. */
static size_t compare(const char* name, OrtValue* got, OrtValue* want) {
  OrtTensorTypeAndShapeInfo* info = NULL;
  size_t n = 0, rank = 0, bad = 0;
  int64_t shape[8];
  const float* a = NULL;
  const float* b = NULL;
  double worst = 0;
  check(ort->GetTensorTypeAndShape(got, &info), "GetTensorTypeAndShape");
  check(ort->GetTensorShapeElementCount(info, &n), "GetTensorShapeElementCount");
  check(ort->GetDimensionsCount(info, &rank), "GetDimensionsCount");
  if (rank > 8) rank = 8;
  check(ort->GetDimensions(info, shape, rank), "GetDimensions");
  ort->ReleaseTensorTypeAndShapeInfo(info);
  check(ort->GetTensorMutableData(got, (void**)&a), "GetTensorMutableData");
  check(ort->GetTensorMutableData(want, (void**)&b), "GetTensorMutableData");
  printf("output %s [", name);
  for (size_t d = 0; d < rank; ++d) printf("%s%lld", d ? ", " : "", (long long)shape[d]);
  printf("]:");
  for (size_t k = 0; k < n && k < 6; ++k) printf(" %.5f", a[k]);
  printf("%s\n", n > 6 ? " ..." : "");
  for (size_t k = 0; k < n; ++k) {
    double diff = fabs((double)a[k] - (double)b[k]);
    if (diff > worst) worst = diff;
    if (!(diff <= 1e-3 + 1e-3 * fabs((double)b[k]))) ++bad;
  }
  printf("  %zu elements, largest difference from the CPU provider alone %.3g: %s\n", n, worst,
         bad ? "MISMATCH" : "ok");
  return bad;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: c_providers MODEL [--plugin NAME=LIBRARY]... "
            "[PROVIDER[:KEY=VALUE[,KEY=VALUE]...]]...\n");
    return 2;
  }
  ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (ort == NULL) {
    fprintf(stderr, "c_providers: the library does not serve OrtApi version %d\n", ORT_API_VERSION);
    return 1;
  }
  printf("runtime %s\n", OrtGetApiBase()->GetVersionString());
  OrtEnv* env = NULL;
  OrtAllocator* allocator = NULL;
  OrtSessionOptions* options = NULL;
  OrtSessionOptions* cpu_only = NULL;
  OrtSession* session = NULL;
  OrtSession* reference = NULL;
  check(ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "c_providers", &env), "CreateEnv");
  check(ort->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  check(ort->CreateSessionOptions(&options), "CreateSessionOptions");
  int cpu_last = 0;
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      char* eq = strchr(argv[++i], '=');
      if (eq == NULL) {
        fprintf(stderr, "c_providers: --plugin takes NAME=LIBRARY\n");
        return 2;
      }
      *eq = '\0';
      check(ort->RegisterExecutionProviderLibrary(env, argv[i], eq + 1),
            "RegisterExecutionProviderLibrary");
      printf("plugin %s: %s\n", argv[i], eq + 1);
      continue;
    }
    append_provider(options, argv[i]);
    cpu_last = strncmp(argv[i], "CPU", 3) == 0;
  }
  if (!cpu_last) append_provider(options, (char[]){"CPU"});
  check(ort->CreateSession(env, argv[1], options, &session), "CreateSession");
  check(ort->CreateSessionOptions(&cpu_only), "CreateSessionOptions");
  check(ort->CreateSession(env, argv[1], cpu_only, &reference), "CreateSession (CPU only)");

  char* in_names[MAX_VALUES];
  char* out_names[MAX_VALUES];
  char* ref_names[MAX_VALUES];
  OrtValue* inputs[MAX_VALUES];
  OrtValue* outputs[MAX_VALUES];
  OrtValue* expected[MAX_VALUES];
  size_t n_in = make_inputs(session, allocator, in_names, inputs);
  size_t n_out = run(session, allocator, in_names, inputs, n_in, outputs, out_names);
  run(reference, allocator, in_names, inputs, n_in, expected, ref_names);
  size_t bad = 0;
  for (size_t i = 0; i < n_out; ++i) bad += compare(out_names[i], outputs[i], expected[i]);

  for (size_t i = 0; i < n_in; ++i) {
    ort->ReleaseValue(inputs[i]);
    check(ort->AllocatorFree(allocator, in_names[i]), "AllocatorFree");
  }
  for (size_t i = 0; i < n_out; ++i) {
    ort->ReleaseValue(outputs[i]);
    ort->ReleaseValue(expected[i]);
    check(ort->AllocatorFree(allocator, out_names[i]), "AllocatorFree");
    check(ort->AllocatorFree(allocator, ref_names[i]), "AllocatorFree");
  }
  ort->ReleaseSession(reference);
  ort->ReleaseSession(session);
  ort->ReleaseSessionOptions(cpu_only);
  ort->ReleaseSessionOptions(options);
  ort->ReleaseEnv(env);
  printf("c_providers: %s\n", bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}
