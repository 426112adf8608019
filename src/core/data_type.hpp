// Element types, numbered as ONNX's TensorProto.DataType so the wire value
// converts with a range check and nothing else.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/float16.hpp"

namespace tessera {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};
constexpr int32_t kMaxDataType = 26;

bool is_valid_data_type(int32_t v);
// ONNX spelling used in type strings: "float", "int64", "float16", ...
std::string_view data_type_name(DataType t);
// Parses the names data_type_name returns; kUndefined if unknown.
DataType data_type_from_name(std::string_view name);
// Bits per element: 4 for int4/uint4/float4, 2 for int2/uint2, 0 for string/undefined.
int data_type_bits(DataType t);
// Bytes needed to hold n elements (sub-byte types are packed, rounded up).
size_t data_type_storage_bytes(DataType t, size_t n);
bool is_float_type(DataType t);     // float, double, float16, bfloat16, float8/4 kinds
bool is_integer_type(DataType t);   // all signed/unsigned integers, including 4/2-bit
bool is_signed_type(DataType t);
bool is_sub_byte_type(DataType t);

// Compile-time mapping from C++ element types to DataType.
template <typename T>
struct TypeOf;
#define TESSERA_TYPE_OF(CT, DT) \
  template <>                   \
  struct TypeOf<CT> {           \
    static constexpr DataType value = DT; \
  };
TESSERA_TYPE_OF(float, DataType::kFloat)
TESSERA_TYPE_OF(double, DataType::kDouble)
TESSERA_TYPE_OF(uint8_t, DataType::kUInt8)
TESSERA_TYPE_OF(int8_t, DataType::kInt8)
TESSERA_TYPE_OF(uint16_t, DataType::kUInt16)
TESSERA_TYPE_OF(int16_t, DataType::kInt16)
TESSERA_TYPE_OF(int32_t, DataType::kInt32)
TESSERA_TYPE_OF(int64_t, DataType::kInt64)
TESSERA_TYPE_OF(uint32_t, DataType::kUInt32)
TESSERA_TYPE_OF(uint64_t, DataType::kUInt64)
TESSERA_TYPE_OF(bool, DataType::kBool)
TESSERA_TYPE_OF(std::string, DataType::kString)
TESSERA_TYPE_OF(Float16, DataType::kFloat16)
TESSERA_TYPE_OF(BFloat16, DataType::kBFloat16)
TESSERA_TYPE_OF(std::complex<float>, DataType::kComplex64)
TESSERA_TYPE_OF(std::complex<double>, DataType::kComplex128)
#undef TESSERA_TYPE_OF

template <typename T>
constexpr DataType data_type_of() {
  return TypeOf<T>::value;
}

}  // namespace tessera
