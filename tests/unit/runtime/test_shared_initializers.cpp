#include <gtest/gtest.h>

#include <cstring>

#include "runtime/shared_initializers.hpp"

using namespace tessera;
using tessera::runtime::SharedInitializers;

namespace {
// A float tensor of n values i * 0.5, so every 8-byte word differs.
Tensor ramp(int64_t n) {
  Tensor t(DataType::kFloat, Shape({n}));
  auto* p = static_cast<float*>(t.mutable_raw_data());
  for (int64_t i = 0; i < n; ++i) p[i] = float(i) * 0.5f;
  return t;
}
}  // namespace

TEST(RuntimeSharedInitializers, EqualContentSharesOneCopy) {
  SharedInitializers shared;
  for (int64_t n : {0, 1, 7, 8, 9, 31, 32, 33, 1000}) {
    std::string name = "w";  // (GCC 12 warns falsely on "w" + to_string)
    name += std::to_string(n);
    Tensor a = ramp(n), b = ramp(n);
    Tensor first = shared.share_host(name, a);
    Tensor second = shared.share_host(name, b);
    EXPECT_EQ(first.raw_data(), a.raw_data()) << n;
    EXPECT_EQ(second.raw_data(), a.raw_data()) << "n = " << n << ": equal content not shared";
  }
}

TEST(RuntimeSharedInitializers, AnyDifferenceKeepsCopiesApart) {
  SharedInitializers shared;
  const int64_t n = 1003;  // 32-byte words, then a tail of 12 bytes
  Tensor base = ramp(n);
  shared.share_host("w", base);
  // A change in the words, in the tail, in the name or in the shape.
  for (size_t byte : {size_t(0), size_t(17), size_t(2000), size_t(n * 4 - 1)}) {
    Tensor t = ramp(n);
    static_cast<unsigned char*>(t.mutable_raw_data())[byte] ^= 1;
    EXPECT_EQ(shared.share_host("w", t).raw_data(), t.raw_data()) << "byte " << byte;
  }
  Tensor same = ramp(n);
  EXPECT_EQ(shared.share_host("v", same).raw_data(), same.raw_data());
  Tensor reshaped(DataType::kFloat, Shape({1, n}));
  std::memcpy(reshaped.mutable_raw_data(), base.raw_data(), base.byte_size());
  EXPECT_EQ(shared.share_host("w", reshaped).raw_data(), reshaped.raw_data());
}

TEST(RuntimeSharedInitializers, MemoryGoesWithItsLastUser) {
  SharedInitializers shared;
  {
    Tensor a = ramp(64);
    shared.share_host("w", a);
    EXPECT_EQ(shared.size(), 1u);
  }
  Tensor b = ramp(64);
  EXPECT_EQ(shared.share_host("w", b).raw_data(), b.raw_data());  // not the freed copy
}
