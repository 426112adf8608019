// Helpers of the CUDA indexing, TopK and Resize tests: random tensors of
// any element type, random indices (negative ones included), and running a
// one-node model on [CUDA, CPU] and on the CPU alone, comparing every output
// bit for bit or within a stated tolerance.
#pragma once
#include <cstring>

#include "unit/providers/test_cuda_util.hpp"

namespace tessera::test::cuda_test {

// Random values of any fixed-size type: floats in [-4, 4), small integers
// for the integer types (so sums and products stay in range), bools 0/1.
inline Tensor random_tensor(DataType t, std::vector<int64_t> dims, uint32_t seed) {
  const int64_t n = count(dims);
  if (t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16)
    return make_tensor(t, dims, random_values(n, seed, -4, 4));
  Tensor out(t, Shape(dims));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < n; ++i) {
    const int v = int(gen() % 7) - 3;
    switch (t) {
      case DataType::kDouble:
        out.mutable_data<double>()[i] = double(gen() % 2001) / 7 - 100;
        break;
      case DataType::kInt64:
        out.mutable_data<int64_t>()[i] = v;
        break;
      case DataType::kInt32:
        out.mutable_data<int32_t>()[i] = v;
        break;
      case DataType::kInt8:
        out.mutable_data<int8_t>()[i] = int8_t(v);
        break;
      case DataType::kUInt8:
        out.mutable_data<uint8_t>()[i] = uint8_t(gen() % 256);
        break;
      case DataType::kBool:
        static_cast<uint8_t*>(out.mutable_raw_data())[i] = uint8_t(gen() % 2);
        break;
      default:
        ADD_FAILURE() << "random_tensor: unsupported type";
    }
  }
  return out;
}

// Indices in [-dim, dim) (negative ones count from the end).
inline Tensor random_indices(DataType t, std::vector<int64_t> dims, int64_t dim, uint32_t seed) {
  std::mt19937 gen(seed);
  Tensor out(t, Shape(dims));
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    const int64_t v = int64_t(gen() % uint32_t(2 * dim)) - dim;
    if (t == DataType::kInt64)
      out.mutable_data<int64_t>()[i] = v;
    else
      out.mutable_data<int32_t>()[i] = int32_t(v);
  }
  return out;
}

inline Tensor i64s(std::vector<int64_t> v, std::vector<int64_t> dims) {
  return Tensor::from_vector<int64_t>(v, Shape(dims));
}
inline Tensor i64s(std::vector<int64_t> v) { return i64s(v, {int64_t(v.size())}); }

// Runs `m` with [CUDA, CPU] (its node must run on CUDA) and with [CPU]
// alone; every output must agree: bit for bit when tol is 0 (a NaN matches
// any NaN), else floats within |got - want| <= tol * (1 + |want|) and
// integers within 1 (a value truncated on either side of an integer).
inline void expect_cpu_result(const OneNode& m, const std::string& what, double tol = 0) {
  auto cuda = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  std::string reasons;
  ASSERT_EQ(assigned_provider(*cuda, &reasons), kCuda) << what << ": " << reasons;
  auto cpu = Session::create_from_model(m.model, {}, {{kCpu, {}}});
  auto got = cuda->run(m.feeds);
  auto want = cpu->run(m.feeds);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < got.size(); ++o) {
    const Tensor& g = got[o].tensor();
    const Tensor& w = want[o].tensor();
    const std::string at = what + ", output " + std::to_string(o);
    ASSERT_EQ(g.dtype(), w.dtype()) << at;
    ASSERT_EQ(g.shape(), w.shape()) << at;
    const size_t size = data_type_storage_bytes(g.dtype(), 1);
    size_t bad = 0;
    for (int64_t i = 0; i < g.num_elements(); ++i) {
      const bool floaty = is_float_type(g.dtype());
      if (tol > 0 && !floaty && std::fabs(g.element_as_double(i) - w.element_as_double(i)) <= 1)
        continue;
      if (tol == 0 || !floaty) {
        const auto* gb = static_cast<const uint8_t*>(g.raw_data()) + size_t(i) * size;
        const auto* wb = static_cast<const uint8_t*>(w.raw_data()) + size_t(i) * size;
        if (std::memcmp(gb, wb, size) == 0) continue;
        if (floaty && std::isnan(g.element_as_double(i)) && std::isnan(w.element_as_double(i)))
          continue;
        if (bad++ < 5)
          ADD_FAILURE() << at << ": element " << i << ": got " << g.element_as_double(i)
                        << ", want " << w.element_as_double(i) << " (bit for bit)";
        continue;
      }
      const double gv = g.element_as_double(i), wv = w.element_as_double(i);
      if (gv == wv || (std::isnan(gv) && std::isnan(wv))) continue;
      if (!(std::fabs(gv - wv) <= tol * (1 + std::fabs(wv))) && bad++ < 5)
        ADD_FAILURE() << at << ": element " << i << ": got " << gv << ", want " << wv;
    }
    EXPECT_EQ(bad, 0u) << at << ": elements that differ";
  }
}

inline std::string cuda_error(const OneNode& m) {
  auto cuda = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  EXPECT_EQ(assigned_provider(*cuda), kCuda);
  try {
    cuda->run(m.feeds);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace tessera::test::cuda_test
