// DLPack: the C structs of the DLPack exchange format (written from the public
// spec at dmlc.github.io/dlpack, the unversioned 0.x ABI that numpy and torch
// exchange through "dltensor" capsules), and OrtValue's export and import.
#pragma once
#include <pybind11/pybind11.h>

#include <cstdint>

#include "core/value.hpp"

namespace tessera::python {
namespace py = pybind11;

namespace dlpack {

// Only the device types Tessera meets; the values are fixed by the spec.
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means compact row-major
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

}  // namespace dlpack

// A "dltensor" capsule viewing `v`'s tensor (host memory only); the capsule
// keeps the tensor's Buffer alive until the consumer calls the deleter.
py::capsule to_dlpack(const Value& v);
// A tensor viewing what `obj` exports: an object with __dlpack__ or a
// "dltensor" capsule. Compact row-major CPU tensors only; the producer's
// memory is kept alive until the tensor's Buffer is released.
// is_bool_tensor: a uint8 tensor is taken as bool (onnxruntime's flag for
// producers that export bools as uint8).
Value from_dlpack(const py::object& obj, bool is_bool_tensor = false);
// Whether an unconsumed capsule holds a uint8 tensor.
bool is_dlpack_uint8_tensor(const py::capsule& capsule);

}  // namespace tessera::python
