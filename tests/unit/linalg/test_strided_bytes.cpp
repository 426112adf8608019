#include <gtest/gtest.h>

#include <vector>

#include "linalg/strided_bytes.hpp"

namespace tessera::linalg {
namespace {

// Every width around the vector sizes (16, 32, 64 bytes), steps 1 to 3, and
// a source that ends exactly at the last byte named: AddressSanitizer
// catches any read past it.
TEST(StridedBytes, GathersEveryRunAndReadsNothingPastTheLastPixel) {
  for (int64_t step = 1; step <= 3; ++step)
    for (int64_t width : {1, 7, 14, 15, 16, 17, 31, 32, 33, 56, 63, 64, 65, 112, 130})
      for (int64_t rows : {1, 3}) {
        const int64_t pitch = width * step + 5;
        const int64_t size = (rows - 1) * pitch + (width - 1) * step + 1;
        std::vector<uint8_t> src(static_cast<size_t>(size));
        for (int64_t i = 0; i < size; ++i) src[size_t(i)] = uint8_t(i * 37 + 11);
        std::vector<uint8_t> got(size_t(rows * width + 8), 0xEE);
        gather_strided_bytes(src.data(), pitch, step, rows, width, got.data());
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t i = 0; i < width; ++i)
            ASSERT_EQ(got[size_t(r * width + i)], src[size_t(r * pitch + i * step)])
                << "step " << step << " width " << width << " row " << r << " pixel " << i;
        for (size_t i = size_t(rows * width); i < got.size(); ++i)
          ASSERT_EQ(got[i], 0xEE) << "wrote past the end, step " << step << " width " << width;
      }
}

}  // namespace
}  // namespace tessera::linalg
