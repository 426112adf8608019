// Float two-operand Einsum runs as batched GEMMs; double inputs keep the
// general loop nest, so the same equation in both types checks one against
// the other.
#include <gtest/gtest.h>

#include <random>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_string;
using test::run_node;

struct Case {
  std::string eq;
  Shape a, b;
};

template <typename T>
Tensor random_tensor(const Shape& s, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<T> v(size_t(s.num_elements()));
  for (auto& x : v) x = T(u(gen));
  return Tensor::from_vector<T>(v, s);
}

void check_against_general(const Case& c, uint32_t seed) {
  SCOPED_TRACE(c.eq + " " + c.a.to_string() + " " + c.b.to_string());
  auto fast =
      run_node("Einsum", {random_tensor<float>(c.a, seed), random_tensor<float>(c.b, seed + 1)},
               {attr_string("equation", c.eq)}, 12);
  auto general =
      run_node("Einsum", {random_tensor<double>(c.a, seed), random_tensor<double>(c.b, seed + 1)},
               {attr_string("equation", c.eq)}, 12);
  const Tensor& f = fast[0].tensor();
  const Tensor& g = general[0].tensor();
  ASSERT_EQ(f.dtype(), DataType::kFloat);
  ASSERT_EQ(f.shape(), g.shape());
  for (int64_t i = 0; i < f.num_elements(); ++i)
    ASSERT_NEAR(f.element_as_double(i), g.element_as_double(i), 1e-4) << "at " << i;
}

TEST(EinsumGemm, MatchesGeneralPath) {
  const std::vector<Case> cases = {
      {"bhqd,bhkd->bhqk", {2, 3, 5, 4}, {2, 3, 6, 4}},  // B transposed
      {"bhqk,bhkd->bhqd", {2, 3, 5, 6}, {2, 3, 6, 4}},  // plain batched
      {"ij,jk->ik", {7, 5}, {5, 9}},
      {"ji,jk->ik", {5, 7}, {5, 9}},           // A transposed
      {"ji,kj->ik", {5, 7}, {9, 5}},           // both transposed
      {"ij,jk->ki", {7, 5}, {5, 9}},           // output transposed
      {"bqd,kbd->bqk", {3, 4, 5}, {6, 3, 5}},  // batch label in the middle of B
      {"qbd,bkd->bkq", {4, 3, 5}, {3, 6, 5}},  // batch in the middle, permuted output
      {"bij,bjk->ibk", {3, 4, 5}, {3, 5, 6}},  // batch inside the output
      {"abij,bajk->ikab", {2, 3, 4, 5}, {3, 2, 5, 6}},
      {"ik,jk->ijk", {4, 1}, {5, 1}},           // no contraction: batch k
      {"i,j->ij", {4}, {5}},                    // outer product (K = 1)
      {"ij,j->i", {4, 5}, {5}},                 // matrix-vector
      {"i,i->", {6}, {6}},                      // dot
      {"ijk,jkl->il", {3, 4, 5}, {4, 5, 6}},    // two contracted labels
      {"ijk,kjl->il", {3, 4, 5}, {5, 4, 6}},    // contracted labels in swapped order
      {"ijm,jkn->mikn", {3, 4, 2}, {4, 5, 3}},  // several free labels per side
      {"...ij,...jk->...ik", {2, 3, 4, 5}, {2, 3, 5, 6}},
      {"...ij,...jk->...ik", {2, 1, 4, 5}, {1, 3, 5, 6}},  // broadcast batch dims
      {"...ij,jk", {2, 3, 4, 5}, {5, 6}},
      {"bij,bjk->bik", {2, 0, 5}, {2, 5, 6}},               // empty M
      {"bij,bjk->bik", {2, 4, 0}, {2, 0, 6}},               // empty K: zeros
      {"bij,bjk->bik", {0, 4, 5}, {0, 5, 6}},               // empty batch
      {"bhqd,bhkd->bhqk", {1, 2, 40, 64}, {1, 2, 48, 64}},  // large enough for threads
  };
  uint32_t seed = 1;
  for (const Case& c : cases) check_against_general(c, seed += 7);
}

TEST(EinsumGemm, GeneralFormsStillWork) {
  // A diagonal and a label summed within one operand are not products.
  check_against_general({"ii,ij->j", {4, 4}, {4, 5}}, 3);
  check_against_general({"ij,jk->k", {3, 4}, {4, 5}}, 5);
  check_against_general({"ij,kl->", {3, 4}, {2, 5}}, 9);
}

}  // namespace
}  // namespace tessera
