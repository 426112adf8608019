#include "core/tensor_ints.hpp"

#include <cstring>

#include "core/error.hpp"

namespace tessera {

std::vector<int64_t> read_ints(const Tensor& t) {
  // (Conditions tested before the message is built: these run per node.)
  if (!t.memory_info().host_accessible())
    fail(ErrorCode::kInvalidArgument, "index tensor ", t.description(), " must be in host memory");
  std::vector<int64_t> v(size_t(t.num_elements()));
  if (t.dtype() == DataType::kInt64) {
    if (!v.empty()) std::memcpy(v.data(), t.raw_data(), v.size() * sizeof(int64_t));
  } else if (t.dtype() == DataType::kInt32) {
    const auto* p = t.data<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  } else {
    if (!is_integer_type(t.dtype()) && !is_float_type(t.dtype()))
      fail(ErrorCode::kInvalidArgument, "expected an integer tensor, got ", t.description());
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.element_as_int64(int64_t(i));
  }
  return v;
}

}  // namespace tessera
