#include "capi/convert.hpp"

#include <cstring>

#include "core/device.hpp"

namespace tessera::capi {

DataType from_ort_type(int t) {
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2:
      return DataType::kUInt2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2:
      return DataType::kInt2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0:
      return DataType::kFloat8E8M0;
    default:
      break;
  }
  const int v = static_cast<int>(t);
  check(v > 0 && v <= static_cast<int>(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1), "element type ",
        v, " is not a tensor element type");
  return static_cast<DataType>(v);
}

ONNXTensorElementDataType to_ort_type(DataType t) {
  switch (t) {
    case DataType::kUInt2:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2;
    case DataType::kInt2:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2;
    case DataType::kFloat8E8M0:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0;
    default:
      return static_cast<ONNXTensorElementDataType>(static_cast<int>(t));
  }
}

OrtTensorTypeAndShapeInfo tensor_info(DataType dtype, const Shape& shape) {
  OrtTensorTypeAndShapeInfo info;
  info.elem_type = to_ort_type(dtype);
  info.has_shape = true;
  info.dims = shape.dims();
  info.symbols.assign(shape.rank(), "");
  return info;
}

namespace {

std::unique_ptr<OrtTensorTypeAndShapeInfo> tensor_info(const ir::TypeInfo& type) {
  auto info = std::make_unique<OrtTensorTypeAndShapeInfo>();
  info->elem_type = to_ort_type(type.elem_type);
  if (type.shape) {
    info->has_shape = true;
    for (const ir::Dim& d : *type.shape) {
      info->dims.push_back(d.is_known() ? *d.value : -1);
      info->symbols.push_back(d.symbol);
    }
  }
  return info;
}

}  // namespace

std::unique_ptr<OrtTypeInfo> make_type_info(const ir::TypeInfo& type) {
  auto info = std::make_unique<OrtTypeInfo>();
  info->denotation = type.denotation;
  switch (type.kind) {
    case ir::TypeInfo::Kind::kTensor:
    case ir::TypeInfo::Kind::kSparseTensor:
      info->type =
          type.kind == ir::TypeInfo::Kind::kTensor ? ONNX_TYPE_TENSOR : ONNX_TYPE_SPARSETENSOR;
      info->tensor = tensor_info(type);
      break;
    case ir::TypeInfo::Kind::kSequence:
      info->type = ONNX_TYPE_SEQUENCE;
      info->sequence = std::make_unique<OrtSequenceTypeInfo>();
      info->sequence->element_type = make_type_info(type.inner ? *type.inner : ir::TypeInfo{});
      break;
    case ir::TypeInfo::Kind::kMap:
      info->type = ONNX_TYPE_MAP;
      info->map = std::make_unique<OrtMapTypeInfo>();
      info->map->key_type = to_ort_type(type.elem_type);
      info->map->value_type = make_type_info(type.inner ? *type.inner : ir::TypeInfo{});
      break;
    case ir::TypeInfo::Kind::kOptional:
      info->type = ONNX_TYPE_OPTIONAL;
      info->optional = std::make_unique<OrtOptionalTypeInfo>();
      info->optional->contained_type = make_type_info(type.inner ? *type.inner : ir::TypeInfo{});
      break;
    case ir::TypeInfo::Kind::kUnknown:
      break;
  }
  return info;
}

std::unique_ptr<OrtTypeInfo> make_type_info(const Value& value) {
  auto info = std::make_unique<OrtTypeInfo>();
  switch (value.kind()) {
    case Value::Kind::kTensor:
      info->type = ONNX_TYPE_TENSOR;
      info->tensor = std::make_unique<OrtTensorTypeAndShapeInfo>(
          tensor_info(value.tensor().dtype(), value.tensor().shape()));
      break;
    case Value::Kind::kSequence: {
      info->type = ONNX_TYPE_SEQUENCE;
      info->sequence = std::make_unique<OrtSequenceTypeInfo>();
      const auto& items = value.seq();
      info->sequence->element_type =
          items.empty() ? make_type_info(ir::TypeInfo::tensor(value.seq_elem_type()))
                        : make_type_info(items.front());
      break;
    }
    case Value::Kind::kMap:
      info->type = ONNX_TYPE_MAP;
      info->map = std::make_unique<OrtMapTypeInfo>();
      info->map->key_type = to_ort_type(value.map().keys.dtype());
      info->map->value_type = make_type_info(ir::TypeInfo::tensor(value.map().values.dtype()));
      break;
    case Value::Kind::kSparseTensor:
      info->type = ONNX_TYPE_SPARSETENSOR;
      info->tensor = std::make_unique<OrtTensorTypeAndShapeInfo>(
          tensor_info(value.sparse().dtype(), value.sparse().dense_shape));
      break;
    case Value::Kind::kNone:
      info->type = ONNX_TYPE_OPTIONAL;
      break;
  }
  return info;
}

std::unique_ptr<OrtTypeInfo> clone_type_info(const OrtTypeInfo& in) {
  auto out = std::make_unique<OrtTypeInfo>();
  out->type = in.type;
  out->denotation = in.denotation;
  if (in.tensor) out->tensor = std::make_unique<OrtTensorTypeAndShapeInfo>(*in.tensor);
  if (in.map) {
    out->map = std::make_unique<OrtMapTypeInfo>();
    out->map->key_type = in.map->key_type;
    out->map->value_type = clone_type_info(*in.map->value_type);
  }
  if (in.sequence) {
    out->sequence = std::make_unique<OrtSequenceTypeInfo>();
    out->sequence->element_type = clone_type_info(*in.sequence->element_type);
  }
  if (in.optional) {
    out->optional = std::make_unique<OrtOptionalTypeInfo>();
    out->optional->contained_type = clone_type_info(*in.optional->contained_type);
  }
  return out;
}

char* allocate_string(OrtAllocator* allocator, const std::string& s) {
  need(allocator, "allocator");
  check(allocator->Alloc != nullptr, "allocator has no Alloc function");
  auto* p = static_cast<char*>(allocator->Alloc(allocator, s.size() + 1));
  check_code(p != nullptr, ErrorCode::kOutOfMemory, "allocator returned null for ", s.size() + 1,
             " bytes");
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

void copy_string_out(const std::string& s, char* out, size_t* size, const char* what) {
  need(size, "size");
  const size_t needed = s.size() + 1;
  if (out == nullptr) {
    *size = needed;
    return;
  }
  if (*size < needed) {
    const size_t given = *size;
    *size = needed;
    fail(ErrorCode::kInvalidArgument, what, " needs a buffer of ", needed, " bytes; ", given,
         " given");
  }
  std::memcpy(out, s.c_str(), needed);
  *size = needed;
}

std::vector<std::string> string_list(const char* const* items, size_t n, const char* what) {
  std::vector<std::string> out;
  if (n == 0) return out;
  need(items, what);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    check(items[i] != nullptr, what, "[", i, "] is null");
    out.emplace_back(items[i]);
  }
  return out;
}

namespace {

// Memory names ONNX Runtime's providers use, and the device each stands for.
// A name is accepted whether or not Tessera has a provider for that device,
// as ONNX Runtime accepts it whether or not that provider is built; a session
// then says no provider serves the memory if one is asked to.
struct KnownMemory {
  const char* name;
  DeviceType device;
  uint32_t vendor;
  MemoryType type;
};
constexpr KnownMemory kKnownMemories[] = {
    {"Cuda", DeviceType::kGPU, 0x10DE, MemoryType::kDefault},
    {"CudaPinned", DeviceType::kGPU, 0x10DE, MemoryType::kHostAccessible},
    {"HIP", DeviceType::kGPU, 0x1002, MemoryType::kDefault},
    {"HipPinned", DeviceType::kGPU, 0x1002, MemoryType::kHostAccessible},
    {"Cann", DeviceType::kNPU, 0x19E5, MemoryType::kDefault},
    {"CannPinned", DeviceType::kNPU, 0x19E5, MemoryType::kHostAccessible},
    {"DML", DeviceType::kGPU, 0x1414, MemoryType::kDefault},
    {"OpenVINO_GPU", DeviceType::kGPU, 0x8086, MemoryType::kDefault},
    {"OpenVINO_RT_NPU", DeviceType::kNPU, 0x8086, MemoryType::kDefault},
    {"WebGPU_Buffer", DeviceType::kGPU, 0, MemoryType::kDefault},
    {"WebGPU_Buf", DeviceType::kGPU, 0, MemoryType::kDefault},
    {"WebNN_Tensor", DeviceType::kCPU, 0, MemoryType::kDefault},
    {"QnnHtpShared", DeviceType::kCPU, 0x5143, MemoryType::kDefault},
};

}  // namespace

MemoryInfo memory_from_ort(const char* name, int type, int id, int mem_type) {
  need(name, "name");
  const std::string n = name;
  check(type == OrtDeviceAllocator || type == OrtArenaAllocator || type == OrtReadOnlyAllocator,
        "allocator type ", type, " is not OrtDeviceAllocator or OrtArenaAllocator");
  check(mem_type >= OrtMemTypeCPUInput && mem_type <= OrtMemTypeDefault, "memory type ", mem_type,
        " is not OrtMemTypeCPUInput, OrtMemTypeCPUOutput or OrtMemTypeDefault");
  const AllocatorType alloc =
      type == OrtDeviceAllocator ? AllocatorType::kDevice : AllocatorType::kArena;
  // A device provider's CPU-side memory: host memory it reads or writes.
  const bool host_side = mem_type == OrtMemTypeCPUInput || mem_type == OrtMemTypeCPUOutput;
  if (n == "Cpu" || n == "CPU" || n == "OpenVINO_CPU") {
    MemoryInfo m = cpu_memory_info();
    m.allocator_type = alloc;
    return m;
  }
  for (const KnownMemory& k : kKnownMemories) {
    if (n != k.name) continue;
    const MemoryType t = host_side ? MemoryType::kHostAccessible : k.type;
    return make_memory_info(n, k.device, k.vendor, id, t, 256, alloc);
  }
  // A plugin provider's memory, by the name it gives its memory.
  for (const EpDevice& d : Environment::global().ep_devices()) {
    if (d.memory.name == n && d.memory.device_id == id) {
      MemoryInfo m = d.memory;
      if (host_side) m.mem_type = MemoryType::kHostAccessible;
      m.allocator_type = alloc;
      return m;
    }
  }
  fail(ErrorCode::kInvalidArgument, "memory name '", n,
       "' is not one Tessera knows (Cpu, Cuda, CudaPinned, another provider's name for its "
       "memory, or the memory of a registered provider library)");
}

OrtMemoryInfo to_ort_memory(const MemoryInfo& memory) {
  OrtMemoryInfo out;
  out.info = memory;
  out.id = memory.device_id;
  out.allocator_type =
      memory.allocator_type == AllocatorType::kDevice ? OrtDeviceAllocator : OrtArenaAllocator;
  out.mem_type =
      memory.device_type != DeviceType::kCPU && memory.mem_type == MemoryType::kHostAccessible
          ? OrtMemTypeCPUOutput
          : OrtMemTypeDefault;
  return out;
}

}  // namespace tessera::capi
