// Comparing a produced value against an expected one, as the ONNX backend
// tests do: floats within atol + rtol*|expected| (NaN equals NaN, infinities
// must match), everything else exactly; shapes, types and kinds exactly.
#pragma once
#include <optional>
#include <string>

#include "core/value.hpp"

namespace tessera::cli {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-5;
};

// nullopt when they match; otherwise why not, starting with `what`
// (e.g. "output 'y'") and naming the first mismatching element.
std::optional<std::string> compare_values(const Value& expected, const Value& got,
                                          const std::string& what, const Tolerance& tol = {});

}  // namespace tessera::cli
