// Byte counts of tensors: what a shape from a model may ask for must not wrap
// around (a small block for a huge tensor), whatever the element size.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/tensor.hpp"

using namespace tessera;

TEST(DataTypeStorage, ByteCounts) {
  EXPECT_EQ(data_type_storage_bytes(DataType::kFloat, 3), 12u);
  EXPECT_EQ(data_type_storage_bytes(DataType::kInt4, 3), 2u);  // two a byte, rounded up
  EXPECT_EQ(data_type_storage_bytes(DataType::kString, 2), 2 * sizeof(std::string));
}

TEST(DataTypeStorage, CountsThatWouldWrapAreErrors) {
  // 2^59 + 1 floats: 2^64 + 4 bytes, which wrapped to 4 before.
  const size_t n = (size_t(1) << 59) + 1;
  for (DataType t : {DataType::kFloat, DataType::kDouble, DataType::kString}) {
    try {
      data_type_storage_bytes(t, n);
      ADD_FAILURE() << data_type_name(t) << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kOutOfMemory);
      EXPECT_NE(std::string(e.what()).find("larger than memory"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(Tensor(DataType::kFloat, Shape{int64_t(n)}), Error);
}
