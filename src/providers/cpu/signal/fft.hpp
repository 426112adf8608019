// Complex FFT of any length in O(n log n): iterative radix-2 for powers of
// two, Bluestein's chirp-z transform (built on a power-of-two FFT) otherwise.
// A plan is immutable after construction and may be shared across threads;
// each caller brings its own scratch buffer.
#pragma once
#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

namespace tessera::cpu::signal {

using cd = std::complex<double>;

class FftPlan {
 public:
  // inverse: uses e^{+2 pi i kn/N}; neither direction scales by 1/N.
  FftPlan(size_t n, bool inverse);
  ~FftPlan();
  size_t size() const { return n_; }
  // Transforms data[0..n) in place. `scratch` is resized as needed.
  void run(cd* data, std::vector<cd>& scratch) const;

 private:
  void radix2(cd* data) const;

  size_t n_;
  bool inverse_;
  bool pow2_;
  std::vector<cd> twiddle_;   // radix-2: e^{-+2 pi i k/n}, k < n/2
  std::vector<size_t> rev_;   // radix-2 bit reversal
  // Bluestein: chirp c_k, the FFT of the conjugate chirp filter, and the
  // power-of-two plans of length m >= 2n - 1 it convolves with.
  std::vector<cd> chirp_, filter_fft_;
  std::unique_ptr<FftPlan> fwd_m_, inv_m_;
};

}  // namespace tessera::cpu::signal
