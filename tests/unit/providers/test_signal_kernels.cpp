#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "unit/kernel_test_util.hpp"
#include "providers/cpu/signal/fft.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::run_node;
using cd = std::complex<double>;

std::vector<cd> naive_dft(const std::vector<cd>& x, size_t n, bool inverse) {
  std::vector<cd> y(n);
  double sign = inverse ? 1 : -1;
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < std::min(n, x.size()); ++j)
      y[k] += x[j] * std::polar(1.0, sign * 2 * std::numbers::pi * double(k * j) / double(n));
  return y;
}

std::vector<cd> test_signal(size_t n) {
  std::vector<cd> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = cd(std::sin(0.7 * double(i)) + 0.1 * double(i), std::cos(1.3 * double(i)));
  return x;
}

TEST(SignalKernels, FftMatchesDirectDftForManyLengths) {
  for (size_t n : {1, 2, 3, 5, 6, 7, 8, 12, 16, 17, 30, 64, 100}) {
    for (bool inv : {false, true}) {
      auto x = test_signal(n);
      auto want = naive_dft(x, n, inv);
      cpu::signal::FftPlan plan(n, inv);
      std::vector<cd> scratch;
      plan.run(x.data(), scratch);
      for (size_t k = 0; k < n; ++k) ASSERT_LT(std::abs(x[k] - want[k]), 1e-9 * double(n)) << n << " " << k;
    }
  }
}

// [batch, n, 2] complex input as a float tensor.
Value complex_tensor(const std::vector<std::vector<cd>>& rows) {
  std::vector<float> v;
  for (auto& r : rows)
    for (auto c : r) {
      v.push_back(float(c.real()));
      v.push_back(float(c.imag()));
    }
  return Tensor::from_vector<float>(v, Shape{int64_t(rows.size()), int64_t(rows[0].size()), 2});
}

void expect_complex(const Value& y, const std::vector<std::vector<cd>>& want, double tol = 1e-3) {
  const Tensor& t = y.tensor();
  ASSERT_EQ(t.shape(), (Shape{int64_t(want.size()), int64_t(want[0].size()), 2}));
  for (size_t b = 0; b < want.size(); ++b)
    for (size_t k = 0; k < want[b].size(); ++k) {
      size_t at = (b * want[b].size() + k) * 2;
      EXPECT_NEAR(t.data<float>()[at], want[b][k].real(), tol) << b << "," << k;
      EXPECT_NEAR(t.data<float>()[at + 1], want[b][k].imag(), tol) << b << "," << k;
    }
}

TEST(SignalKernels, DftComplexForwardAndInverse) {
  auto a = test_signal(6), b = test_signal(6);
  for (auto& c : b) c *= 2.0;
  auto y = run_node("DFT", {complex_tensor({a, b})}, {}, 17)[0];
  expect_complex(y, {naive_dft(a, 6, false), naive_dft(b, 6, false)});
  auto back = run_node("DFT", {y}, {attr_int("inverse", 1)}, 20)[0];
  expect_complex(back, {a, b});
}

TEST(SignalKernels, DftRealOnesidedAndLength) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  Value in = Tensor::from_vector<float>(x, {1, 8, 1});
  std::vector<cd> xc(x.begin(), x.end());
  auto full = naive_dft(xc, 8, false);
  auto y = run_node("DFT", {in}, {attr_int("onesided", 1)}, 17)[0];
  expect_complex(y, {std::vector<cd>(full.begin(), full.begin() + 5)});
  // dft_length shorter (truncates) and longer (zero-pads).
  auto y5 = run_node("DFT", {in, Tensor::scalar<int64_t>(5)}, {}, 20)[0];
  expect_complex(y5, {naive_dft(std::vector<cd>(xc.begin(), xc.begin() + 5), 5, false)});
  auto y10 = run_node("DFT", {in, Tensor::scalar<int32_t>(10)}, {}, 20)[0];
  expect_complex(y10, {naive_dft(xc, 10, false)});
}

TEST(SignalKernels, DftIrfftRestoresSignal) {
  std::vector<float> x = {1, -2, 3, 0.5f, 5, 6};
  Value in = Tensor::from_vector<float>(x, {1, 6, 1});
  auto spec = run_node("DFT", {in}, {attr_int("onesided", 1)}, 20)[0];
  EXPECT_EQ(spec.tensor().shape(), (Shape{1, 4, 2}));
  auto back = run_node("DFT", {spec}, {attr_int("onesided", 1), attr_int("inverse", 1)}, 20)[0];
  ASSERT_EQ(back.tensor().shape(), (Shape{1, 6, 1}));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(back.tensor().data<float>()[i], x[i], 1e-4);
}

TEST(SignalKernels, DftAxisAttributeAndInput) {
  // [2, 3, 1] real input: transform along axis 0 (length 2).
  Value in = Tensor::from_vector<double>({1, 2, 3, 10, 20, 30}, {2, 3, 1});
  auto y17 = run_node("DFT", {in}, {attr_int("axis", 0)}, 17)[0];
  auto y20 = run_node("DFT", {in, Value(), Tensor::scalar<int64_t>(-3)}, {}, 20)[0];
  for (const auto& y : {y17, y20}) {
    const Tensor& t = y.tensor();
    ASSERT_EQ(t.shape(), (Shape{2, 3, 2}));
    EXPECT_DOUBLE_EQ(t.data<double>()[0], 11);   // [0,0] re
    EXPECT_DOUBLE_EQ(t.data<double>()[6], -9);   // [1,0] re
    EXPECT_DOUBLE_EQ(t.data<double>()[10], -27); // [1,2] re
  }
  EXPECT_THROW(run_node("DFT", {in, Value(), Tensor::scalar<int64_t>(2)}, {}, 20), Error);
  EXPECT_THROW(run_node("DFT", {in}, {attr_int("axis", -1)}, 17), Error);
  Value bad = Tensor::from_vector<float>({1, 2, 3}, {1, 1, 3});
  EXPECT_THROW(run_node("DFT", {bad}, {}, 20), Error);
}

TEST(SignalKernels, DftHalfPrecision) {
  Value in = Tensor::from_vector<Float16>({Float16(1.0f), Float16(2.0f), Float16(3.0f), Float16(4.0f)},
                                         {1, 4, 1});
  auto y = run_node("DFT", {in}, {}, 20)[0];
  EXPECT_EQ(y.tensor().dtype(), DataType::kFloat16);
  EXPECT_FLOAT_EQ(float(y.tensor().data<Float16>()[0]), 10.0f);
  EXPECT_FLOAT_EQ(float(y.tensor().data<Float16>()[2]), -2.0f);
  EXPECT_FLOAT_EQ(float(y.tensor().data<Float16>()[3]), 2.0f);
}

TEST(SignalKernels, StftWithAndWithoutWindow) {
  std::vector<float> sig(128);
  for (size_t i = 0; i < sig.size(); ++i) sig[i] = float(i);
  Value x = Tensor::from_vector<float>(sig, {1, 128, 1});
  auto y = run_node("STFT", {x, Tensor::scalar<int64_t>(8), Value(), Tensor::scalar<int64_t>(16)},
                    {}, 17)[0];
  ASSERT_EQ(y.tensor().shape(), (Shape{1, 15, 9, 2}));
  std::vector<float> win(16);
  for (size_t i = 0; i < 16; ++i) win[i] = float(0.5 + 0.5 * std::cos(2 * std::numbers::pi * double(i) / 16));
  auto yw = run_node("STFT", {x, Tensor::scalar<int64_t>(8), Tensor::from_vector<float>(win, {16})},
                     {}, 17)[0];
  ASSERT_EQ(yw.tensor().shape(), (Shape{1, 15, 9, 2}));
  for (int64_t f : {0, 7, 14}) {
    std::vector<cd> frame(16), wframe(16);
    for (size_t k = 0; k < 16; ++k) {
      frame[k] = sig[size_t(f * 8) + k];
      wframe[k] = frame[k] * double(win[k]);
    }
    auto want = naive_dft(frame, 16, false), wwant = naive_dft(wframe, 16, false);
    for (int64_t k = 0; k < 9; ++k) {
      int64_t at = (f * 9 + k) * 2;
      EXPECT_NEAR(y.tensor().data<float>()[at], want[size_t(k)].real(), 1e-3);
      EXPECT_NEAR(y.tensor().data<float>()[at + 1], want[size_t(k)].imag(), 1e-3);
      EXPECT_NEAR(yw.tensor().data<float>()[at], wwant[size_t(k)].real(), 1e-3);
      EXPECT_NEAR(yw.tensor().data<float>()[at + 1], wwant[size_t(k)].imag(), 1e-3);
    }
  }
  auto two = run_node("STFT", {x, Tensor::scalar<int64_t>(8), Value(), Tensor::scalar<int64_t>(16)},
                      {attr_int("onesided", 0)}, 17)[0];
  EXPECT_EQ(two.tensor().shape(), (Shape{1, 15, 16, 2}));
  EXPECT_THROW(run_node("STFT", {x, Tensor::scalar<int64_t>(8)}, {}, 17), Error);
  EXPECT_THROW(run_node("STFT", {x, Tensor::scalar<int64_t>(0), Value(), Tensor::scalar<int64_t>(16)},
                        {}, 17),
               Error);
}

TEST(SignalKernels, Windows) {
  const double pi = std::numbers::pi;
  auto hann = run_node("HannWindow", {Tensor::scalar<int32_t>(10)}, {}, 17)[0];
  auto hamm = run_node("HammingWindow", {Tensor::scalar<int64_t>(10)}, {attr_int("periodic", 0)}, 17)[0];
  auto black = run_node("BlackmanWindow", {Tensor::scalar<int64_t>(10)}, {}, 17)[0];
  ASSERT_EQ(hann.tensor().shape(), (Shape{10}));
  for (int i = 0; i < 10; ++i) {
    EXPECT_NEAR(hann.tensor().data<float>()[i], 0.5 - 0.5 * std::cos(2 * pi * i / 10), 1e-6);
    EXPECT_NEAR(hamm.tensor().data<float>()[i], 25.0 / 46 - 21.0 / 46 * std::cos(2 * pi * i / 9), 1e-6);
    EXPECT_NEAR(black.tensor().data<float>()[i],
                0.42 - 0.5 * std::cos(2 * pi * i / 10) + 0.08 * std::cos(4 * pi * i / 10), 1e-6);
  }
  auto d = run_node("HannWindow", {Tensor::scalar<int64_t>(4)},
                    {attr_int("output_datatype", int64_t(DataType::kDouble))}, 17)[0];
  EXPECT_EQ(d.tensor().dtype(), DataType::kDouble);
  EXPECT_DOUBLE_EQ(d.tensor().data<double>()[2], 1.0);
  auto one = run_node("HannWindow", {Tensor::scalar<int64_t>(1)}, {attr_int("periodic", 0)}, 17)[0];
  EXPECT_EQ(one.tensor().data<float>()[0], 1.0f);
  EXPECT_THROW(run_node("HannWindow", {Tensor::scalar<int64_t>(-1)}, {}, 17), Error);
  EXPECT_THROW(run_node("HannWindow", {Tensor::scalar<int64_t>(3)},
                        {attr_int("output_datatype", int64_t(DataType::kString))}, 17),
               Error);
}

TEST(SignalKernels, MelWeightMatrixMatchesSpecExample) {
  auto y = run_node("MelWeightMatrix",
                    {Tensor::scalar<int32_t>(8), Tensor::scalar<int32_t>(16), Tensor::scalar<int32_t>(8192),
                     Tensor::scalar<float>(0), Tensor::scalar<float>(4096)},
                    {}, 17)[0];
  ASSERT_EQ(y.tensor().shape(), (Shape{9, 8}));
  // From the spec's example: ones at (0,0),(0,1),(1,2),(1,3),(2,4),(3,5),(4,6),(5,7).
  std::vector<std::pair<int, int>> ones = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
  for (int r = 0; r < 9; ++r)
    for (int c = 0; c < 8; ++c) {
      bool one = std::find(ones.begin(), ones.end(), std::make_pair(r, c)) != ones.end();
      EXPECT_EQ(y.tensor().data<float>()[r * 8 + c], one ? 1.0f : 0.0f) << r << "," << c;
    }
}

}  // namespace
}  // namespace tessera
