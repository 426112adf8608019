#include <gtest/gtest.h>

#include "ep/prepack_cache.hpp"

using namespace tessera;

namespace {

struct Packed {
  std::vector<float> data;
};

}  // namespace

TEST(EpPrepackCache, OneFormPerConstantKindAndParamsWithWeakReferences) {
  ep::PrepackCache cache;
  Tensor w = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{2, 2});
  int made = 0;
  std::function<Packed()> make = [&] {
    ++made;
    return Packed{{w.data<float>()[0], w.data<float>()[3]}};
  };
  auto p1 = cache.get<Packed>(w, "test.packed", {0}, make);
  auto p2 = cache.get<Packed>(Tensor(w), "test.packed", {0}, make);  // same memory
  EXPECT_EQ(p1.get(), p2.get());
  EXPECT_EQ(made, 1);
  EXPECT_EQ(p1->data, (std::vector<float>{1, 4}));
  auto other_params = cache.get<Packed>(w, "test.packed", {1}, make);
  auto other_kind = cache.get<Packed>(w, "test.other", {0}, make);
  EXPECT_NE(other_params.get(), p1.get());
  EXPECT_NE(other_kind.get(), p1.get());
  EXPECT_EQ(made, 3);
  // Equal bytes in other memory are the same constant (the key is the content).
  Tensor copy = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{2, 2});
  auto p3 = cache.get<Packed>(copy, "test.packed", {0}, make);
  EXPECT_EQ(p3.get(), p1.get());
  EXPECT_EQ(made, 3);
  EXPECT_EQ(cache.size(), 3u);
  p1.reset();
  EXPECT_EQ(cache.size(), 3u);  // p2 and p3 hold it
  p2.reset();
  other_params.reset();
  other_kind.reset();
  p3.reset();
  EXPECT_EQ(cache.size(), 0u);
  auto again = cache.get<Packed>(w, "test.packed", {0}, make);
  EXPECT_EQ(made, 4);  // packed again once nothing held it
}

TEST(EpPrepackCache, KeyedByContentNotByAddress) {
  ep::PrepackCache cache;
  int made = 0;
  std::function<Packed()> make = [&] {
    ++made;
    return Packed{};
  };
  std::shared_ptr<const Packed> kept;
  {
    Tensor w = Tensor::from_vector<float>({1, 2}, Shape{2});
    kept = cache.get<Packed>(w, "test.packed", {}, make);
  }
  // The constant is gone (a session gave it back after packing): the packed
  // form lives on with its users, and the same bytes find it again.
  EXPECT_EQ(cache.size(), 1u);
  Tensor same = Tensor::from_vector<float>({1, 2}, Shape{2});
  EXPECT_EQ(cache.get<Packed>(same, "test.packed", {}, make).get(), kept.get());
  EXPECT_EQ(made, 1);
  // Other bytes, shape or type (even at a reused address) are another constant.
  Tensor w2 = Tensor::from_vector<float>({5, 6}, Shape{2});
  auto p = cache.get<Packed>(w2, "test.packed", {}, make);
  EXPECT_NE(p.get(), kept.get());
  Tensor w3 = Tensor::from_vector<float>({1, 2}, Shape{1, 2});
  EXPECT_NE(cache.get<Packed>(w3, "test.packed", {}, make).get(), kept.get());
  EXPECT_EQ(made, 3);
  kept.reset();
  p.reset();
  EXPECT_EQ(cache.size(), 0u);  // gone with their last users
}
