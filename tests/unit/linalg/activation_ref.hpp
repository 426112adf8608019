// The fused activations from their ONNX definitions, in double: the reference
// the kernels' epilogues are checked against, and one spec of every kind.
#pragma once
#include <cmath>
#include <vector>

#include "linalg/epilogue.hpp"

namespace tessera::linalg {

inline double activation_ref(const ActivationSpec& a, double v) {
  switch (a.kind) {
    case Activation::kRelu:
      return v < 0 ? 0 : v;
    case Activation::kClip:
      return std::fmin(std::fmax(v, a.p0), a.p1);
    case Activation::kLeakyRelu:
      return v < 0 ? v * a.p0 : v;
    case Activation::kSigmoid:
      return 1 / (1 + std::exp(-v));
    case Activation::kSwish:
      return v / (1 + std::exp(-a.p0 * v));
    case Activation::kHardSigmoid:
      return std::fmin(1.0, std::fmax(0.0, a.p0 * v + a.p1));
    case Activation::kHardSwish:
      return v * std::fmin(1.0, std::fmax(0.0, a.p0 * v + a.p1));
    case Activation::kTanh:
      return std::tanh(v);
    case Activation::kNone:
      break;
  }
  return v;
}

// Every kind once; Sigmoid and HardSigmoid make a zero nonzero, which the
// blocked layout's padded channels must not show.
inline std::vector<ActivationSpec> every_activation() {
  return {{Activation::kNone, 0, 0},
          {Activation::kRelu, 0, 0},
          {Activation::kClip, 0.f, 0.5f},
          {Activation::kLeakyRelu, 0.1f, 0},
          {Activation::kSigmoid, 0, 0},
          {Activation::kSwish, 1.f, 0},
          {Activation::kHardSigmoid, 0.2f, 0.5f},
          {Activation::kHardSwish, 1.f / 6, 0.5f},
          {Activation::kTanh, 0, 0}};
}

}  // namespace tessera::linalg
