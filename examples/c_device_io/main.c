/* Device-resident inputs and outputs with no provider-specific code: the
 * provider-agnostic IO-binding loop of ONNX Runtime's C API, on Tessera.
 *
 *   c_device_io MODEL PLUGIN_LIBRARY [ITERATIONS]
 *
 * The plugin (e.g. libtessera_sandbox_ep.so, a device whose memory is kept
 * apart from the host) is registered with RegisterExecutionProviderLibrary.
 * Then, for each device provider GetEpDevices lists (the plugin's; the CUDA
 * provider's too when this build has it and a GPU is present):
 *   - append it with SessionOptionsAppendExecutionProvider_V2, the CPU last;
 *   - ask the session which device reads the first input
 *     (SessionGetEpDeviceForInputs -> EpDevice_Device -> HardwareDevice_VendorId);
 *   - describe that device's memory by vendor (CreateMemoryInfo_V2) and take
 *     the environment's allocator for it (GetSharedAllocator);
 *   - make the input and output tensors there, copy the input host->device
 *     once (CopyTensors), bind both (IoBinding) and run ITERATIONS times;
 *   - copy the output device->host once and check it against a session that
 *     runs on the CPU provider alone.
 * Exits 1 on any error or mismatch, or when no device provider is listed
 * (the plugin's always is). Inputs must be float tensors (symbolic dimensions
 * are taken as 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tessera/onnxruntime_c_api.h>

#define MAX_VALUES 8
#define MAX_RANK 8

static const OrtApi* ort;

static void check(OrtStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "c_device_io: %s: %s\n", what, ort->GetErrorMessage(status));
  ort->ReleaseStatus(status);
  exit(1);
}

typedef struct {
  char* name;
  int64_t shape[MAX_RANK];
  size_t rank, elements;
} TensorDesc;

/* Name and shape of input or output `i` (symbolic dimensions as 1). */
static void describe(OrtSession* session, int output, size_t i, OrtAllocator* host, TensorDesc* d) {
  OrtTypeInfo* type = NULL;
  const OrtTensorTypeAndShapeInfo* tensor = NULL;
  ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  if (output) {
    check(ort->SessionGetOutputName(session, i, host, &d->name), "SessionGetOutputName");
    check(ort->SessionGetOutputTypeInfo(session, i, &type), "SessionGetOutputTypeInfo");
  } else {
    check(ort->SessionGetInputName(session, i, host, &d->name), "SessionGetInputName");
    check(ort->SessionGetInputTypeInfo(session, i, &type), "SessionGetInputTypeInfo");
  }
  check(ort->CastTypeInfoToTensorInfo(type, &tensor), "CastTypeInfoToTensorInfo");
  check(ort->GetTensorElementType(tensor, &element), "GetTensorElementType");
  check(ort->GetDimensionsCount(tensor, &d->rank), "GetDimensionsCount");
  if (element != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || d->rank > MAX_RANK) {
    fprintf(stderr, "c_device_io: '%s' is not a float tensor of rank <= %d\n", d->name, MAX_RANK);
    exit(1);
  }
  check(ort->GetDimensions(tensor, d->shape, d->rank), "GetDimensions");
  ort->ReleaseTypeInfo(type);
  d->elements = 1;
  for (size_t k = 0; k < d->rank; ++k) {
    if (d->shape[k] < 1) d->shape[k] = 1;
    d->elements *= (size_t)d->shape[k];
  }
}

static OrtValue* host_tensor(OrtAllocator* host, const TensorDesc* d) {
  OrtValue* v = NULL;
  check(
      ort->CreateTensorAsOrtValue(host, d->shape, d->rank, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v),
      "CreateTensorAsOrtValue (host)");
  return v;
}

static float* floats(OrtValue* v) {
  float* p = NULL;
  check(ort->GetTensorMutableData(v, (void**)&p), "GetTensorMutableData");
  return p;
}

/* Ends the program unless `value` lives in device memory of `vendor`. */
static void expect_on_device(const OrtValue* value, uint32_t vendor) {
  const OrtMemoryInfo* memory = NULL;
  OrtMemoryInfoDeviceType type = OrtMemoryInfoDeviceType_CPU;
  check(ort->GetTensorMemoryInfo(value, &memory), "GetTensorMemoryInfo");
  ort->MemoryInfoGetDeviceType(memory, &type);
  if (type == OrtMemoryInfoDeviceType_CPU || ort->MemoryInfoGetVendorId(memory) != vendor) {
    fprintf(stderr,
            "c_device_io: a tensor from the shared allocator is not in the device's memory\n");
    exit(1);
  }
}

/* The loop on one device provider; returns the number of mismatched elements. */
static size_t run_on(OrtEnv* env, const OrtEpDevice* ep_device, const char* model, int iterations,
                     OrtAllocator* host) {
  const char* ep_name = ort->EpDevice_EpName(ep_device);
  OrtSessionOptions* options = NULL;
  OrtSessionOptions* cpu_only = NULL;
  OrtSession* session = NULL;
  OrtSession* reference = NULL;
  check(ort->CreateSessionOptions(&options), "CreateSessionOptions");
  check(ort->SessionOptionsAppendExecutionProvider_V2(options, env, &ep_device, 1, NULL, NULL, 0),
        "SessionOptionsAppendExecutionProvider_V2");
  check(ort->SessionOptionsAppendExecutionProvider(options, "CPU", NULL, NULL, 0),
        "SessionOptionsAppendExecutionProvider (CPU)");
  check(ort->CreateSession(env, model, options, &session), "CreateSession");
  check(ort->CreateSessionOptions(&cpu_only), "CreateSessionOptions");
  check(ort->CreateSession(env, model, cpu_only, &reference), "CreateSession (CPU only)");

  size_t n_in = 0, n_out = 0;
  check(ort->SessionGetInputCount(session, &n_in), "SessionGetInputCount");
  check(ort->SessionGetOutputCount(session, &n_out), "SessionGetOutputCount");
  if (n_in < 1 || n_in > MAX_VALUES || n_out < 1 || n_out > MAX_VALUES) {
    fprintf(stderr, "c_device_io: %s has %zu inputs and %zu outputs (1 to %d each)\n", model, n_in,
            n_out, MAX_VALUES);
    exit(1);
  }

  /* Which device reads the inputs, and its vendor: nothing below names it. */
  const OrtEpDevice* input_devices[MAX_VALUES] = {NULL};
  check(ort->SessionGetEpDeviceForInputs(session, input_devices, n_in),
        "SessionGetEpDeviceForInputs");
  if (input_devices[0] == NULL) {
    fprintf(stderr, "c_device_io: no node reads input 0\n");
    exit(1);
  }
  const OrtHardwareDevice* hardware = ort->EpDevice_Device(input_devices[0]);
  const uint32_t vendor = ort->HardwareDevice_VendorId(hardware);
  /* The device's ordinal among its vendor's (HardwareDevice_DeviceId is the
   * PCI device id in ONNX Runtime, not an ordinal). */
  int device_id = 0;
  check(ort->MemoryInfoGetId(
            ort->EpDevice_MemoryInfo(input_devices[0], OrtDeviceMemoryType_DEFAULT), &device_id),
        "MemoryInfoGetId");
  printf("%s: input 0 is read by %s on device %d of vendor 0x%04x\n", ep_name,
         ort->EpDevice_EpName(input_devices[0]), device_id, vendor);

  OrtMemoryInfo* device_memory = NULL;
  OrtAllocator* device = NULL;
  const OrtMemoryInfoDeviceType device_type =
      ort->HardwareDevice_Type(hardware) == OrtHardwareDeviceType_NPU ? OrtMemoryInfoDeviceType_NPU
                                                                      : OrtMemoryInfoDeviceType_GPU;
  check(ort->CreateMemoryInfo_V2("example_device_memory", device_type, vendor, device_id,
                                 OrtDeviceMemoryType_DEFAULT, 0, OrtArenaAllocator, &device_memory),
        "CreateMemoryInfo_V2");
  check(ort->GetSharedAllocator(env, device_memory, &device), "GetSharedAllocator");

  /* Host inputs with deterministic values; device copies of them, made once. */
  TensorDesc in[MAX_VALUES], out[MAX_VALUES];
  OrtValue* host_in[MAX_VALUES];
  OrtValue* dev_in[MAX_VALUES];
  OrtValue* host_out[MAX_VALUES];
  OrtValue* dev_out[MAX_VALUES];
  OrtValue* expected[MAX_VALUES];
  for (size_t i = 0; i < n_in; ++i) {
    describe(session, 0, i, host, &in[i]);
    host_in[i] = host_tensor(host, &in[i]);
    float* x = floats(host_in[i]);
    for (size_t k = 0; k < in[i].elements; ++k) x[k] = (float)sin(0.11 * (double)k + (double)i);
    check(ort->CreateTensorAsOrtValue(device, in[i].shape, in[i].rank,
                                      ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &dev_in[i]),
          "CreateTensorAsOrtValue (device input)");
  }
  check(ort->CopyTensors(env, (const OrtValue* const*)host_in, dev_in, NULL, n_in),
        "CopyTensors (host to device)");
  expect_on_device(dev_in[0], vendor);

  OrtIoBinding* binding = NULL;
  check(ort->CreateIoBinding(session, &binding), "CreateIoBinding");
  for (size_t i = 0; i < n_in; ++i)
    check(ort->BindInput(binding, in[i].name, dev_in[i]), "BindInput");
  for (size_t i = 0; i < n_out; ++i) {
    describe(session, 1, i, host, &out[i]);
    check(ort->CreateTensorAsOrtValue(device, out[i].shape, out[i].rank,
                                      ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &dev_out[i]),
          "CreateTensorAsOrtValue (device output)");
    check(ort->BindOutput(binding, out[i].name, dev_out[i]), "BindOutput");
    host_out[i] = host_tensor(host, &out[i]);
  }
  expect_on_device(dev_out[0], vendor);
  for (int it = 0; it < iterations; ++it)
    check(ort->RunWithBinding(session, NULL, binding), "RunWithBinding");
  check(ort->CopyTensors(env, (const OrtValue* const*)dev_out, host_out, NULL, n_out),
        "CopyTensors (device to host)");

  /* The same inputs through the CPU provider alone. */
  const char* in_names[MAX_VALUES];
  const char* out_names[MAX_VALUES];
  for (size_t i = 0; i < n_in; ++i) in_names[i] = in[i].name;
  for (size_t i = 0; i < n_out; ++i) {
    out_names[i] = out[i].name;
    expected[i] = NULL;
  }
  check(ort->Run(reference, NULL, in_names, (const OrtValue* const*)host_in, n_in, out_names, n_out,
                 expected),
        "Run (CPU only)");
  size_t bad = 0;
  for (size_t i = 0; i < n_out; ++i) {
    const float* got = floats(host_out[i]);
    const float* want = floats(expected[i]);
    double worst = 0;
    size_t mismatched = 0;
    for (size_t k = 0; k < out[i].elements; ++k) {
      double diff = fabs((double)got[k] - (double)want[k]);
      if (diff > worst) worst = diff;
      if (!(diff <= 1e-3 + 1e-3 * fabs((double)want[k]))) ++mismatched;
    }
    printf("%s: output %s after %d bound runs:", ep_name, out[i].name, iterations);
    for (size_t k = 0; k < out[i].elements && k < 4; ++k) printf(" %.5f", got[k]);
    printf("%s; largest difference from the CPU provider alone %.3g: %s\n",
           out[i].elements > 4 ? " ..." : "", worst, mismatched ? "MISMATCH" : "ok");
    bad += mismatched;
  }

  for (size_t i = 0; i < n_in; ++i) {
    ort->ReleaseValue(host_in[i]);
    ort->ReleaseValue(dev_in[i]);
    check(ort->AllocatorFree(host, in[i].name), "AllocatorFree");
  }
  for (size_t i = 0; i < n_out; ++i) {
    ort->ReleaseValue(host_out[i]);
    ort->ReleaseValue(dev_out[i]);
    ort->ReleaseValue(expected[i]);
    check(ort->AllocatorFree(host, out[i].name), "AllocatorFree");
  }
  ort->ReleaseIoBinding(binding);
  ort->ReleaseMemoryInfo(device_memory);
  ort->ReleaseSession(reference);
  ort->ReleaseSession(session);
  ort->ReleaseSessionOptions(cpu_only);
  ort->ReleaseSessionOptions(options);
  return bad;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: c_device_io MODEL PLUGIN_LIBRARY [ITERATIONS]\n");
    return 2;
  }
  const int iterations = argc > 3 ? atoi(argv[3]) : 20;
  ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (ort == NULL) {
    fprintf(stderr, "c_device_io: the library does not serve OrtApi version %d\n", ORT_API_VERSION);
    return 1;
  }
  OrtEnv* env = NULL;
  OrtAllocator* host = NULL;
  check(ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "c_device_io", &env), "CreateEnv");
  check(ort->GetAllocatorWithDefaultOptions(&host), "GetAllocatorWithDefaultOptions");
  check(ort->RegisterExecutionProviderLibrary(env, "example_plugin", argv[2]),
        "RegisterExecutionProviderLibrary");

  const OrtEpDevice* const* devices = NULL;
  size_t n = 0, used = 0, bad = 0;
  int cuda = 0;
  check(ort->GetEpDevices(env, &devices, &n), "GetEpDevices");
  for (size_t i = 0; i < n; ++i) {
    const OrtHardwareDevice* hw = ort->EpDevice_Device(devices[i]);
    printf("device: %s on %s (vendor 0x%04x, type %d)\n", ort->EpDevice_EpName(devices[i]),
           ort->HardwareDevice_Vendor(hw), ort->HardwareDevice_VendorId(hw),
           (int)ort->HardwareDevice_Type(hw));
  }
  for (size_t i = 0; i < n; ++i) {
    const OrtHardwareDevice* hw = ort->EpDevice_Device(devices[i]);
    if (ort->HardwareDevice_Type(hw) == OrtHardwareDeviceType_CPU) continue;
    if (strcmp(ort->EpDevice_EpName(devices[i]), "CUDAExecutionProvider") == 0) cuda = 1;
    bad += run_on(env, devices[i], argv[1], iterations, host);
    ++used;
  }
  if (!cuda) printf("CUDAExecutionProvider: no GPU for it here (or not built); skipped\n");
  check(ort->UnregisterExecutionProviderLibrary(env, "example_plugin"),
        "UnregisterExecutionProviderLibrary");
  ort->ReleaseEnv(env);
  if (used == 0) {
    fprintf(stderr, "c_device_io: GetEpDevices lists no device provider, not even the plugin's\n");
    return 1;
  }
  printf("c_device_io: %s\n", bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}
