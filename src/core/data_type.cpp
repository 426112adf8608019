#include "core/data_type.hpp"

#include <array>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace tessera {

namespace {
struct TypeRow {
  std::string_view name;
  int bits;
};
// Indexed by the DataType value.
constexpr std::array<TypeRow, kMaxDataType + 1> kTypes = {{
    {"undefined", 0},      {"float", 32},       {"uint8", 8},          {"int8", 8},
    {"uint16", 16},        {"int16", 16},       {"int32", 32},         {"int64", 64},
    {"string", 0},         {"bool", 8},         {"float16", 16},       {"double", 64},
    {"uint32", 32},        {"uint64", 64},      {"complex64", 64},     {"complex128", 128},
    {"bfloat16", 16},      {"float8e4m3fn", 8}, {"float8e4m3fnuz", 8}, {"float8e5m2", 8},
    {"float8e5m2fnuz", 8}, {"uint4", 4},        {"int4", 4},           {"float4e2m1", 4},
    {"float8e8m0", 8},     {"uint2", 2},        {"int2", 2},
}};
}  // namespace

bool is_valid_data_type(int32_t v) { return v > 0 && v <= kMaxDataType; }

std::string_view data_type_name(DataType t) {
  auto i = static_cast<int32_t>(t);
  return (i >= 0 && i <= kMaxDataType) ? kTypes[size_t(i)].name : "invalid";
}

DataType data_type_from_name(std::string_view name) {
  for (int32_t i = 1; i <= kMaxDataType; ++i)
    if (kTypes[size_t(i)].name == name) return static_cast<DataType>(i);
  return DataType::kUndefined;
}

int data_type_bits(DataType t) {
  auto i = static_cast<int32_t>(t);
  return (i >= 0 && i <= kMaxDataType) ? kTypes[size_t(i)].bits : 0;
}

size_t data_type_storage_bytes(DataType t, size_t n) {
  // n comes from shapes a model or a caller gives: a byte count that would
  // wrap around would allocate a small block for a huge tensor.
  const size_t bits = t == DataType::kString ? 8 * sizeof(std::string) : size_t(data_type_bits(t));
  size_t total_bits = 0;
  if (__builtin_mul_overflow(n, bits, &total_bits) || total_bits > SIZE_MAX - 7)
    fail(ErrorCode::kOutOfMemory, "a tensor of ", n, " ", data_type_name(t),
         " elements is larger than memory");
  return (total_bits + 7) / 8;
}

bool is_float_type(DataType t) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat4E2M1:
    case DataType::kFloat8E8M0:
      return true;
    default:
      return false;
  }
}

bool is_signed_type(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kInt4:
    case DataType::kInt2:
      return true;
    default:
      return is_float_type(t);
  }
}

bool is_integer_type(DataType t) {
  switch (t) {
    case DataType::kUInt8:
    case DataType::kInt8:
    case DataType::kUInt16:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUInt32:
    case DataType::kUInt64:
    case DataType::kUInt4:
    case DataType::kInt4:
    case DataType::kUInt2:
    case DataType::kInt2:
      return true;
    default:
      return false;
  }
}

bool is_sub_byte_type(DataType t) {
  int b = data_type_bits(t);
  return b > 0 && b < 8;
}

}  // namespace tessera
