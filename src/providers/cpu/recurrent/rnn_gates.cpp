#include "providers/cpu/recurrent/rnn_gates.hpp"

#include <algorithm>

#include "linalg/vec_math.hpp"

namespace tessera::cpu::rnn {

namespace {

template <typename A>
void activate_scalar(const Activation& f, A* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = f(x[i]);
}

}  // namespace

void activate(const Activation& f, float* x, int64_t n) {
  switch (f.kind) {
    case ActKind::kSigmoid:
      linalg::vec_activation(linalg::VecActivation::kSigmoid, 0.f, 0.f, x, x, n);
      return;
    case ActKind::kTanh:
      linalg::vec_tanh(x, x, n);
      return;
    case ActKind::kScaledTanh:
      for (int64_t i = 0; i < n; ++i) x[i] *= f.beta;
      linalg::vec_tanh(x, x, n);
      for (int64_t i = 0; i < n; ++i) x[i] *= f.alpha;
      return;
    case ActKind::kSoftplus:
      linalg::vec_softplus(x, x, n);
      return;
    default:
      activate_scalar(f, x, n);
  }
}

void activate(const Activation& f, double* x, int64_t n) { activate_scalar(f, x, n); }

void activate(const Activation& f, const float* x, float* out, int64_t n) {
  switch (f.kind) {
    case ActKind::kSigmoid:
      linalg::vec_activation(linalg::VecActivation::kSigmoid, 0.f, 0.f, x, out, n);
      return;
    case ActKind::kTanh:
      linalg::vec_tanh(x, out, n);
      return;
    default:
      std::copy(x, x + n, out);
      activate(f, out, n);
  }
}

void activate(const Activation& f, const double* x, double* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
}

}  // namespace tessera::cpu::rnn
