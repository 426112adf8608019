#include "providers/cpu/quant/element_io.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/float8.hpp"
#include "providers/cpu/element_convert.hpp"

namespace tessera::cpu {

namespace {

// Integer targets clamp to the type's range (NaN gives 0) instead of the
// undefined out-of-range cast.
template <typename D, typename T>
D clamp_to_int(T value) {
  double v = double(value);
  if (std::isnan(v)) return D(0);
  const double lo = double(std::numeric_limits<D>::lowest());
  const double hi = double(std::numeric_limits<D>::max());
  return v <= lo   ? std::numeric_limits<D>::lowest()
         : v >= hi ? std::numeric_limits<D>::max()
                   : D(v);
}

}  // namespace

void integer_range(DataType t, double* lo, double* hi) {
  switch (t) {
    case DataType::kUInt8:
      *lo = 0, *hi = 255;
      return;
    case DataType::kInt8:
      *lo = -128, *hi = 127;
      return;
    case DataType::kUInt16:
      *lo = 0, *hi = 65535;
      return;
    case DataType::kInt16:
      *lo = -32768, *hi = 32767;
      return;
    case DataType::kInt32:
      *lo = -2147483648.0, *hi = 2147483647.0;
      return;
    case DataType::kUInt32:
      *lo = 0, *hi = 4294967295.0;
      return;
    case DataType::kUInt4:
      *lo = 0, *hi = 15;
      return;
    case DataType::kInt4:
      *lo = -8, *hi = 7;
      return;
    case DataType::kUInt2:
      *lo = 0, *hi = 3;
      return;
    case DataType::kInt2:
      *lo = -2, *hi = 1;
      return;
    case DataType::kInt64:
      *lo = -9.2233720368547758e18, *hi = 9.2233720368547758e18;
      return;
    case DataType::kUInt64:
      *lo = 0, *hi = 1.8446744073709552e19;
      return;
    default:
      *lo = -INFINITY, *hi = INFINITY;
      return;
  }
}

template <typename T>
std::vector<T> read_as(const Tensor& t) {
  const int64_t n = t.num_elements();
  std::vector<T> out(size_t(n > 0 ? n : 0));
  const void* p = t.raw_data();
  bool done = dispatch_real(t.dtype(), [&](auto* tag) {
    auto* s = static_cast<const std::remove_pointer_t<decltype(tag)>*>(p);
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = convert_elem<T>(s[i]);
  });
  if (!done) {
    check(is_float_type(t.dtype()) || is_sub_byte_type(t.dtype()), "cannot read ", t.description(),
          " as a number");
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = T(small_type_to_float(t.dtype(), p, i));
  }
  return out;
}

template <typename T>
void write_from(Tensor& t, const T* v, bool saturate) {
  const int64_t n = t.num_elements();
  void* p = t.mutable_raw_data();
  bool done = dispatch_real(t.dtype(), [&](auto* tag) {
    using D = std::remove_pointer_t<decltype(tag)>;
    auto* d = static_cast<D*>(p);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<D> && !std::is_same_v<D, bool>)
        d[i] = clamp_to_int<D>(v[i]);
      else
        d[i] = convert_elem<D>(v[i]);
    }
  });
  if (done) return;
  check(is_float_type(t.dtype()) || is_sub_byte_type(t.dtype()), "cannot write numbers into ",
        t.description());
  if (is_sub_byte_type(t.dtype()) && !is_float_type(t.dtype())) {
    for (int64_t i = 0; i < n; ++i)
      set_packed_int(t.dtype(), p, i,
                     int32_t(std::trunc(std::fmax(-1e6, std::fmin(1e6, double(v[i]))))));
  } else {
    for (int64_t i = 0; i < n; ++i) small_type_from_float(t.dtype(), p, i, float(v[i]), saturate);
  }
}

template std::vector<float> read_as<float>(const Tensor&);
template std::vector<double> read_as<double>(const Tensor&);
template void write_from<float>(Tensor&, const float*, bool);
template void write_from<double>(Tensor&, const double*, bool);

}  // namespace tessera::cpu
