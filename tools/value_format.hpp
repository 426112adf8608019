// Making and describing values for the command line: random inputs of a
// declared type, one-line summaries of outputs, and element formatting.
#pragma once
#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "core/value.hpp"
#include "ir/type_info.hpp"

namespace tessera::cli {

// Concrete shape for a declared one: known dims kept, symbolic dims from
// `dims` (by name) or 1, unknown rank -> [1].
Shape concrete_shape(const ir::TypeInfo& type, const std::map<std::string, int64_t>& dims);
// A random tensor: floats uniform in [-1, 1), integers in [0, 10), random bools,
// strings "s0".."s9". Deterministic for a given generator state.
Tensor random_tensor(DataType dtype, const Shape& shape, std::mt19937_64& rng);
// A random value of a declared type (tensor, optional(tensor), seq(tensor) of one).
Value random_value(const ir::TypeInfo& type, const std::map<std::string, int64_t>& dims,
                   std::mt19937_64& rng);

// "tensor(float) [N,3,224,224]"; non-tensors without a shape.
std::string declared_type(const ir::TypeInfo& type);
// "float[1,10]", "seq(float[2]...) x3", "none".
std::string describe_value(const Value& v);
// "min -1.2 max 3.4 mean 0.05 | first: 0.1, 0.2, ..." (numeric), or the first strings.
std::string summarize_tensor(const Tensor& t, int first_n = 6);
// One element as text (numbers with up to 7 significant digits, strings quoted).
std::string element_to_string(const Tensor& t, int64_t i);

}  // namespace tessera::cli
