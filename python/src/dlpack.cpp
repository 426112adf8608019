// OrtValue <-> DLPack capsules, without copies. Export hands out a view of
// the tensor's Buffer; import wraps the producer's memory in a Buffer whose
// keep-alive calls the producer's deleter.
#include "dlpack.hpp"

#include <utility>
#include <vector>

namespace tessera::python {
namespace {

using dlpack::DLDataType;
using dlpack::DLManagedTensor;

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

// kUndefined code 255 marks types DLPack cannot describe.
DLDataType dl_type_of(DataType t) {
  using namespace dlpack;
  switch (t) {
    case DataType::kFloat:
      return {kDLFloat, 32, 1};
    case DataType::kDouble:
      return {kDLFloat, 64, 1};
    case DataType::kFloat16:
      return {kDLFloat, 16, 1};
    case DataType::kBFloat16:
      return {kDLBfloat, 16, 1};
    case DataType::kInt8:
      return {kDLInt, 8, 1};
    case DataType::kInt16:
      return {kDLInt, 16, 1};
    case DataType::kInt32:
      return {kDLInt, 32, 1};
    case DataType::kInt64:
      return {kDLInt, 64, 1};
    case DataType::kUInt8:
      return {kDLUInt, 8, 1};
    case DataType::kUInt16:
      return {kDLUInt, 16, 1};
    case DataType::kUInt32:
      return {kDLUInt, 32, 1};
    case DataType::kUInt64:
      return {kDLUInt, 64, 1};
    case DataType::kBool:
      return {kDLBool, 8, 1};
    case DataType::kComplex64:
      return {kDLComplex, 64, 1};
    case DataType::kComplex128:
      return {kDLComplex, 128, 1};
    default:
      return {255, 0, 0};
  }
}

DataType data_type_of(const DLDataType& dl) {
  static constexpr DataType kAll[] = {
      DataType::kFloat, DataType::kDouble,    DataType::kFloat16,   DataType::kBFloat16,
      DataType::kInt8,  DataType::kInt16,     DataType::kInt32,     DataType::kInt64,
      DataType::kUInt8, DataType::kUInt16,    DataType::kUInt32,    DataType::kUInt64,
      DataType::kBool,  DataType::kComplex64, DataType::kComplex128};
  if (dl.lanes != 1) return DataType::kUndefined;
  for (DataType t : kAll) {
    DLDataType d = dl_type_of(t);
    if (d.code == dl.code && d.bits == dl.bits) return t;
  }
  return DataType::kUndefined;
}

// Owns what an exported DLManagedTensor points at.
struct ExportContext {
  Tensor tensor;
  std::vector<int64_t> shape;
  DLManagedTensor managed{};
};

void delete_export(DLManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); }

// A consumer renames the capsule when it takes the tensor; an unconsumed
// capsule still owns it.
void capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (m && m->deleter) m->deleter(m);
}

// Compact row-major, the only layout a Tensor can view (dims of 1 may carry any stride).
bool is_row_major(const dlpack::DLTensor& t) {
  if (!t.strides) return true;
  int64_t expected = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

// The producer's deleter may touch Python objects (numpy's does), so it runs
// holding the GIL; after interpreter shutdown the memory is left to the OS.
void release_import(DLManagedTensor* m) {
  if (!m->deleter || !Py_IsInitialized()) return;
  PyGILState_STATE state = PyGILState_Ensure();
  m->deleter(m);
  PyGILState_Release(state);
}

}  // namespace

py::capsule to_dlpack(const Value& v) {
  check(v.is_tensor(), "__dlpack__ needs an OrtValue holding a tensor; this one holds a ",
        v.kind_name());
  const Tensor& t = v.tensor();
  check_code(t.memory_info().host_accessible(), ErrorCode::kNotImplemented,
             "__dlpack__: the tensor is in ", t.memory_info().to_string(),
             "; only host memory is exported (copy it to the CPU first)");
  DLDataType type = dl_type_of(t.dtype());
  check_code(type.code != 255, ErrorCode::kNotImplemented, "__dlpack__: DLPack has no type for ",
             data_type_name(t.dtype()), " tensors");
  auto ctx = std::make_unique<ExportContext>();
  ctx->tensor = t;
  ctx->shape = t.shape().dims();
  dlpack::DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = const_cast<void*>(t.raw_data());
  dl.device = {dlpack::kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(ctx->shape.size());
  dl.dtype = type;
  dl.shape = ctx->shape.data();
  dl.strides = nullptr;
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &delete_export;
  PyObject* capsule = PyCapsule_New(&ctx->managed, kCapsuleName, &capsule_destructor);
  if (!capsule) throw py::error_already_set();
  ctx.release();  // owned by the capsule (or its consumer) now
  return py::reinterpret_steal<py::capsule>(capsule);
}

bool is_dlpack_uint8_tensor(const py::capsule& capsule) {
  check(PyCapsule_IsValid(capsule.ptr(), kCapsuleName),
        "is_dlpack_uint8_tensor needs an unconsumed 'dltensor' capsule");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
  const dlpack::DLDataType& t = m->dl_tensor.dtype;
  return t.code == dlpack::kDLUInt && t.bits == 8 && t.lanes == 1;
}

Value from_dlpack(const py::object& obj, bool is_bool_tensor) {
  py::object capsule = obj;
  if (py::hasattr(obj, "__dlpack__")) {
    if (py::hasattr(obj, "__dlpack_device__")) {
      auto device = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
      check_code(device.first == dlpack::kDLCPU || device.first == dlpack::kDLCUDAHost,
                 ErrorCode::kNotImplemented, "from_dlpack: the tensor is on DLPack device type ",
                 device.first, " (id ", device.second,
                 "); only CPU tensors (type 1) can be viewed, move it to the CPU first");
    }
    capsule = obj.attr("__dlpack__")();
  }
  check(PyCapsule_IsValid(capsule.ptr(), kCapsuleName),
        "from_dlpack needs an object with __dlpack__ or an unconsumed 'dltensor' capsule, got ",
        std::string(py::str(py::type::of(obj).attr("__name__"))));
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
  const dlpack::DLTensor& dl = m->dl_tensor;
  check_code(
      dl.device.device_type == dlpack::kDLCPU || dl.device.device_type == dlpack::kDLCUDAHost,
      ErrorCode::kNotImplemented, "from_dlpack: DLPack device type ", dl.device.device_type,
      " is not host memory; only CPU tensors can be viewed");
  DataType type = data_type_of(dl.dtype);
  // Producers without a DLPack bool type hand bools over as uint8.
  if (is_bool_tensor && type == DataType::kUInt8) type = DataType::kBool;
  check(type != DataType::kUndefined, "from_dlpack: no ONNX type for DLPack type code ",
        int(dl.dtype.code), ", ", int(dl.dtype.bits), " bits, ", dl.dtype.lanes, " lanes");
  check(dl.ndim >= 0 && (dl.ndim == 0 || dl.shape), "from_dlpack: a tensor of rank ", dl.ndim,
        " without a shape");
  check(is_row_major(dl),
        "from_dlpack: only compact row-major (C-contiguous) tensors can be viewed without a copy; "
        "make it contiguous first (np.ascontiguousarray / tensor.contiguous())");
  Shape shape(std::vector<int64_t>(dl.shape, dl.shape + dl.ndim));
  size_t bytes = data_type_storage_bytes(type, size_t(shape.num_elements()));
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  // From here on the tensor is ours: the renamed capsule no longer frees it.
  if (PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName) != 0) throw py::error_already_set();
  std::shared_ptr<void> owner(m, [](void* p) { release_import(static_cast<DLManagedTensor*>(p)); });
  auto buffer = std::make_shared<Buffer>(data, bytes, cpu_memory_info(), std::move(owner));
  return Value(Tensor(type, std::move(shape), std::move(buffer)));
}

}  // namespace tessera::python
