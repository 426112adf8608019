#include "providers/cpu/signal/fft.hpp"

#include <cmath>
#include <numbers>

namespace tessera::cpu::signal {

namespace {
bool is_pow2(size_t n) { return n != 0 && (n & (n - 1)) == 0; }
}  // namespace

FftPlan::~FftPlan() = default;

FftPlan::FftPlan(size_t n, bool inverse) : n_(n), inverse_(inverse), pow2_(is_pow2(n) || n <= 1) {
  const double sign = inverse ? 1.0 : -1.0;
  if (n <= 1) return;
  if (pow2_) {
    twiddle_.resize(n / 2);
    for (size_t k = 0; k < n / 2; ++k)
      twiddle_[k] = std::polar(1.0, sign * 2.0 * std::numbers::pi * double(k) / double(n));
    rev_.resize(n);
    size_t bits = 0;
    while ((size_t(1) << bits) < n) ++bits;
    for (size_t i = 0; i < n; ++i) {
      size_t r = 0;
      for (size_t b = 0; b < bits; ++b) r |= ((i >> b) & 1u) << (bits - 1 - b);
      rev_[i] = r;
    }
    return;
  }
  // Bluestein: kn = (k^2 + n^2 - (k-n)^2) / 2, so the DFT is a convolution
  // with the chirp e^{sign pi i k^2 / n}. k^2 is reduced mod 2n for accuracy.
  size_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  chirp_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    size_t k2 = (k * k) % (2 * n);
    chirp_[k] = std::polar(1.0, sign * std::numbers::pi * double(k2) / double(n));
  }
  fwd_m_ = std::make_unique<FftPlan>(m, false);
  inv_m_ = std::make_unique<FftPlan>(m, true);
  filter_fft_.assign(m, cd(0, 0));
  filter_fft_[0] = std::conj(chirp_[0]);
  for (size_t k = 1; k < n; ++k) filter_fft_[k] = filter_fft_[m - k] = std::conj(chirp_[k]);
  std::vector<cd> unused;
  fwd_m_->run(filter_fft_.data(), unused);
}

void FftPlan::radix2(cd* a) const {
  const size_t n = n_;
  for (size_t i = 0; i < n; ++i)
    if (i < rev_[i]) std::swap(a[i], a[rev_[i]]);
  for (size_t len = 2; len <= n; len <<= 1) {
    size_t half = len / 2, step = n / len;
    for (size_t i = 0; i < n; i += len)
      for (size_t j = 0; j < half; ++j) {
        cd u = a[i + j], v = a[i + j + half] * twiddle_[j * step];
        a[i + j] = u + v;
        a[i + j + half] = u - v;
      }
  }
}

void FftPlan::run(cd* data, std::vector<cd>& scratch) const {
  if (n_ <= 1) return;
  if (pow2_) {
    radix2(data);
    return;
  }
  size_t m = filter_fft_.size();
  scratch.assign(m, cd(0, 0));
  for (size_t k = 0; k < n_; ++k) scratch[k] = data[k] * chirp_[k];
  fwd_m_->radix2(scratch.data());
  for (size_t k = 0; k < m; ++k) scratch[k] *= filter_fft_[k];
  inv_m_->radix2(scratch.data());
  const double inv_m = 1.0 / double(m);
  for (size_t k = 0; k < n_; ++k) data[k] = scratch[k] * chirp_[k] * inv_m;
}

}  // namespace tessera::cpu::signal
