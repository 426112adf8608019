// Conversions between the C API's enums and values and Tessera's.
#pragma once
#include <memory>
#include <string>

#include "capi/api_status.hpp"
#include "capi/handles.hpp"

namespace tessera::capi {

// ONNX Runtime numbers three element types differently from ONNX (and from
// DataType): UINT2 24, INT2 25, FLOAT8E8M0 26.
DataType from_ort_type(int t);  // an ONNXTensorElementDataType value; kInvalidArgument when unknown
ONNXTensorElementDataType to_ort_type(DataType t);

std::unique_ptr<OrtTypeInfo> make_type_info(const ir::TypeInfo& type);
std::unique_ptr<OrtTypeInfo> make_type_info(const Value& value);
std::unique_ptr<OrtTypeInfo> clone_type_info(const OrtTypeInfo& info);
OrtTensorTypeAndShapeInfo tensor_info(DataType dtype, const Shape& shape);

// Copies `s` into memory from `allocator` (NUL-terminated): the caller frees
// it with that allocator.
char* allocate_string(OrtAllocator* allocator, const std::string& s);

// The size-query protocol of entries that fill a caller's buffer: with `out`
// null, *size receives the bytes needed (with the NUL); with a buffer too
// small, *size receives them too and the call fails; otherwise the string is
// copied and *size is the bytes written.
void copy_string_out(const std::string& s, char* out, size_t* size, const char* what);

// An owned copy of a list of C strings ("" for a null pointer is refused).
std::vector<std::string> string_list(const char* const* items, size_t n, const char* what);

// `type` and `mem_type` are OrtAllocatorType and OrtMemType values (checked).
MemoryInfo memory_from_ort(const char* name, int type, int id, int mem_type);
OrtMemoryInfo to_ort_memory(const MemoryInfo& memory);

}  // namespace tessera::capi
