// What a custom op's kernel reads of its node (OrtKernelInfo): attributes,
// inputs and outputs with their names and types, constant inputs, the
// session's configuration entries, an allocator and a logger.
#include <cstring>

#include "capi/allocators.hpp"
#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {
namespace {

const ep::KernelInfo& ki(const OrtKernelInfo* info) {
  need(info, "kernel info");
  need(info->info, "kernel info");
  return *info->info;
}

// The size-query protocol of the array attributes: with `out` null, *size
// receives the element count; with *size too small it does too, and the call
// fails; otherwise the elements are copied.
template <typename T>
void copy_array_out(const std::vector<T>& v, T* out, size_t* size, const std::string& what) {
  need(size, "size");
  if (out == nullptr) {
    *size = v.size();
    return;
  }
  if (*size < v.size()) {
    const size_t given = *size;
    *size = v.size();
    fail(ErrorCode::kInvalidArgument, what, " has ", v.size(), " values; room for ", given,
         " given");
  }
  if (!v.empty()) std::memcpy(out, v.data(), v.size() * sizeof(T));
  *size = v.size();
}

const ir::Attribute& attr(const ep::KernelInfo& info, const char* name, ir::AttrType type) {
  need(name, "name");
  const ir::Attribute* a = info.node().attr(name);
  if (!a) info.fail_node("has no attribute '", name, "'");
  if (a->type != type)
    info.fail_node("attribute '", name, "' has type ", ir::attr_type_name(a->type), ", not ",
                   ir::attr_type_name(type));
  return *a;
}

void check_index(const ep::KernelInfo& info, size_t index, size_t count, const char* what) {
  if (index >= count)
    info.fail_node(what, " index ", index, " is out of range (the node has ", count, ")");
}

}  // namespace

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_float(const OrtKernelInfo* info, const char* name,
                                                     float* out) noexcept {
  return guard("KernelInfoGetAttribute_float", [&] {
    need(out, "out");
    *out = attr(ki(info), name, ir::AttrType::kFloat).f;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_int64(const OrtKernelInfo* info, const char* name,
                                                     int64_t* out) noexcept {
  return guard("KernelInfoGetAttribute_int64", [&] {
    need(out, "out");
    *out = attr(ki(info), name, ir::AttrType::kInt).i;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_string(const OrtKernelInfo* info, const char* name,
                                                      char* out, size_t* size) noexcept {
  return guard("KernelInfoGetAttribute_string", [&] {
    copy_string_out(attr(ki(info), name, ir::AttrType::kString).s, out, size,
                    str_cat("attribute '", name, "'").c_str());
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttributeArray_float(const OrtKernelInfo* info,
                                                          const char* name, float* out,
                                                          size_t* size) noexcept {
  return guard("KernelInfoGetAttributeArray_float", [&] {
    copy_array_out(attr(ki(info), name, ir::AttrType::kFloats).floats, out, size,
                   str_cat("attribute '", name, "'"));
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttributeArray_int64(const OrtKernelInfo* info,
                                                          const char* name, int64_t* out,
                                                          size_t* size) noexcept {
  return guard("KernelInfoGetAttributeArray_int64", [&] {
    copy_array_out(attr(ki(info), name, ir::AttrType::kInts).ints, out, size,
                   str_cat("attribute '", name, "'"));
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttributeArray_string(const OrtKernelInfo* info,
                                                           const char* name,
                                                           OrtAllocator* allocator, char*** out,
                                                           size_t* size) noexcept {
  return guard("KernelInfoGetAttributeArray_string", [&] {
    need(allocator, "allocator");
    need(out, "out");
    need(size, "size");
    const auto& strings = attr(ki(info), name, ir::AttrType::kStrings).strings;
    *out = nullptr;
    *size = strings.size();
    if (strings.empty()) return;
    auto** array = static_cast<char**>(allocator->Alloc(allocator, strings.size() * sizeof(char*)));
    check_code(array != nullptr, ErrorCode::kOutOfMemory, "allocator returned null");
    size_t made = 0;
    try {
      for (; made < strings.size(); ++made) array[made] = allocate_string(allocator, strings[made]);
    } catch (...) {
      for (size_t i = 0; i < made; ++i) allocator->Free(allocator, array[i]);
      allocator->Free(allocator, array);
      throw;
    }
    *out = array;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_tensor(const OrtKernelInfo* info, const char* name,
                                                      OrtAllocator* allocator,
                                                      OrtValue** out) noexcept {
  return guard("KernelInfoGetAttribute_tensor", [&] {
    need(out, "out");
    const Tensor& t = attr(ki(info), name, ir::AttrType::kTensor).t;
    *out = new OrtValue{t.clone(tessera_allocator(allocator))};
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetInputCount(const OrtKernelInfo* info, size_t* out) noexcept {
  return guard("KernelInfo_GetInputCount", [&] {
    need(out, "out");
    *out = ki(info).num_inputs();
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOutputCount(const OrtKernelInfo* info, size_t* out) noexcept {
  return guard("KernelInfo_GetOutputCount", [&] {
    need(out, "out");
    *out = ki(info).num_outputs();
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetInputName(const OrtKernelInfo* info, size_t index, char* out,
                                                size_t* size) noexcept {
  return guard("KernelInfo_GetInputName", [&] {
    const auto& k = ki(info);
    check_index(k, index, k.num_inputs(), "input");
    copy_string_out(k.node().inputs[index], out, size, "the input name");
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOutputName(const OrtKernelInfo* info, size_t index, char* out,
                                                 size_t* size) noexcept {
  return guard("KernelInfo_GetOutputName", [&] {
    const auto& k = ki(info);
    check_index(k, index, k.num_outputs(), "output");
    copy_string_out(k.node().outputs[index], out, size, "the output name");
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetInputTypeInfo(const OrtKernelInfo* info, size_t index,
                                                    OrtTypeInfo** type_info) noexcept {
  return guard("KernelInfo_GetInputTypeInfo", [&] {
    need(type_info, "type_info");
    const auto& k = ki(info);
    check_index(k, index, k.num_inputs(), "input");
    *type_info = make_type_info(k.input_type_info(index)).release();
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOutputTypeInfo(const OrtKernelInfo* info, size_t index,
                                                     OrtTypeInfo** type_info) noexcept {
  return guard("KernelInfo_GetOutputTypeInfo", [&] {
    need(type_info, "type_info");
    const auto& k = ki(info);
    check_index(k, index, k.num_outputs(), "output");
    *type_info = make_type_info(k.output_type_info(index)).release();
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetNodeName(const OrtKernelInfo* info, char* out,
                                               size_t* size) noexcept {
  return guard("KernelInfo_GetNodeName",
               [&] { copy_string_out(ki(info).node().name, out, size, "the node name"); });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOperatorDomain(const OrtKernelInfo* info, char* out,
                                                     size_t* size) noexcept {
  return guard("KernelInfo_GetOperatorDomain",
               [&] { copy_string_out(ki(info).node().domain, out, size, "the operator domain"); });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOperatorType(const OrtKernelInfo* info, char* out,
                                                   size_t* size) noexcept {
  return guard("KernelInfo_GetOperatorType",
               [&] { copy_string_out(ki(info).node().op_type, out, size, "the operator type"); });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOperatorSinceVersion(const OrtKernelInfo* info,
                                                           int* since_version) noexcept {
  return guard("KernelInfo_GetOperatorSinceVersion", [&] {
    need(since_version, "since_version");
    ki(info);
    *since_version = info->since_version;
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetConfigEntries(const OrtKernelInfo* info,
                                                    OrtKeyValuePairs** out) noexcept {
  return guard("KernelInfo_GetConfigEntries", [&] {
    need(out, "out");
    ki(info);
    auto kv = std::make_unique<OrtKeyValuePairs>();
    if (info->session_config)
      for (const auto& [key, value] : *info->session_config) kv->set(key, value);
    *out = kv.release();
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetConstantInput_tensor(const OrtKernelInfo* info, size_t index,
                                                          int* is_constant,
                                                          const OrtValue** out) noexcept {
  return guard("KernelInfoGetConstantInput_tensor", [&] {
    need(is_constant, "is_constant");
    need(out, "out");
    const auto& k = ki(info);
    check_index(k, index, k.num_inputs(), "input");
    const Tensor* t = k.constant_input(index);
    *is_constant = t != nullptr;
    *out = nullptr;
    if (!t) return;
    std::lock_guard<std::mutex> lock(info->mu);
    auto& v = info->constants[index];
    if (!v) v = std::make_unique<OrtValue>(*t);
    *out = v.get();
  });
}

OrtStatus* ORT_API_CALL CopyKernelInfo(const OrtKernelInfo* info,
                                       OrtKernelInfo** info_copy) noexcept {
  return guard("CopyKernelInfo", [&] {
    need(info_copy, "info_copy");
    auto copy = std::make_unique<OrtKernelInfo>();
    copy->copy = std::make_shared<const ep::KernelInfo>(ki(info));
    copy->info = copy->copy.get();
    copy->session_config = info->session_config;
    copy->since_version = info->since_version;
    copy->logger = info->logger;
    *info_copy = copy.release();
  });
}

void ORT_API_CALL ReleaseKernelInfo(OrtKernelInfo* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL KernelInfo_GetLogger(const OrtKernelInfo* info,
                                             const OrtLogger** logger) noexcept {
  return guard("KernelInfo_GetLogger", [&] {
    need(logger, "logger");
    ki(info);
    *logger = &info->logger;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAllocator(const OrtKernelInfo* info, OrtMemType mem_type,
                                               OrtAllocator** out) noexcept {
  return guard("KernelInfoGetAllocator", [&] {
    need(out, "out");
    ki(info);
    check(mem_type == OrtMemTypeDefault || mem_type == OrtMemTypeCPUInput ||
              mem_type == OrtMemTypeCPUOutput,
          "memory type ", static_cast<int>(mem_type), " is not an OrtMemType");
    // Custom ops run on the CPU provider: every memory type is host memory.
    *out = new CApiAllocator(default_cpu_allocator());
  });
}

}  // namespace tessera::capi
