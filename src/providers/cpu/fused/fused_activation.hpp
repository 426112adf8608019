// The activation of a com.tessera fused op (attributes `activation` and
// `activation_params`), read once at kernel creation.
#pragma once
#include <cmath>

#include "ep/kernel.hpp"
#include "linalg/epilogue.hpp"

namespace tessera::cpu {

// "" (none), "Relu", "Clip" [min, max], "LeakyRelu" [alpha], "Sigmoid",
// "Swish" [alpha] (x * sigmoid(alpha x); SiLU is alpha 1), "HardSigmoid"
// [alpha, beta], "HardSwish" or "Tanh"; anything else is an error naming the node. `prefix` names a
// second stage's pair (e.g. "dw_" for dw_activation / dw_activation_params).
linalg::ActivationSpec parse_fused_activation(const ep::KernelInfo& info,
                                              const std::string& prefix = "");

// The activation on one value, for the scalar paths (double, broadcast
// residuals); written as compares so a NaN passes through, as in the ops.
template <typename T>
T activate(const linalg::ActivationSpec& a, T v) {
  switch (a.kind) {
    case linalg::Activation::kRelu:
      return v < T(0) ? T(0) : v;
    case linalg::Activation::kClip: {
      const T lo = v < T(a.p0) ? T(a.p0) : v;
      return lo > T(a.p1) ? T(a.p1) : lo;
    }
    case linalg::Activation::kLeakyRelu:
      return v < T(0) ? v * T(a.p0) : v;
    case linalg::Activation::kSigmoid:
      return T(1) / (T(1) + std::exp(-v));
    case linalg::Activation::kSwish:
      return v * (T(1) / (T(1) + std::exp(-(T(a.p0) * v))));
    case linalg::Activation::kHardSigmoid:
    case linalg::Activation::kHardSwish: {
      T h = T(a.p0) * v + T(a.p1);
      h = h < T(0) ? T(0) : h;
      h = h > T(1) ? T(1) : h;
      return a.kind == linalg::Activation::kHardSwish ? v * h : h;
    }
    case linalg::Activation::kTanh:
      return std::tanh(v);
    case linalg::Activation::kNone:
      break;
  }
  return v;
}

}  // namespace tessera::cpu
